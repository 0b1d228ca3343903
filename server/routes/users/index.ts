import type { FastifyInstance } from 'fastify';
import { M } from '../../../common/messages';
import { ADMIN_MESSAGES, createTenantUserSchema, idParamSchema } from '../../../common/schemas/users';
import { conflict, forbidden, invalid, notFound } from '../../errors';
import { hashPassword } from '../../auth/passwords';
import { deleteUser, findAnyUser, findTenantUser, insertUser, listTenantUsers, removeFromTenant } from '../../db/queries/admin';
import { presentUser } from '../../presenters/users';
import { scope } from '../../plugins/context';
import { authorize } from '../../policies';
import { parse } from '../../validation';
import { writeAudit } from '../../commands/audit';

/**
 * The users of the current tenant (Tenant Settings). Deleting removes the user from this tenant;
 * when it is their primary tenant the account itself goes (docs/decisions/tenant-users.md).
 */
export default async function userRoutes(app: FastifyInstance) {
  const db = () => app.database.db;

  app.get('/users', async (req) => {
    const { actor, tenantId } = scope(req);
    authorize(actor, 'tenant.users', { tenantId });
    const users = await listTenantUsers(db(), tenantId);
    return { users: users.map((u) => presentUser(u, u.tenantName)) };
  });

  app.post('/users', async (req, reply) => {
    const { actor, tenantId } = scope(req);
    authorize(actor, 'tenant.users', { tenantId });
    const input = parse(createTenantUserSchema, req.body);
    const passwordHash = input.password ? await hashPassword(input.password) : null;
    const created = await db().transaction(async (tx) => {
      const row = await insertUser(tx, { email: input.email, name: input.name, role: input.role, tenantId, passwordHash });
      if (!row) throw conflict(M.emailTaken);
      await writeAudit(tx, actor, { tenantId, action: 'user.create', targetType: 'user', targetId: row.id, details: { email: row.email, role: row.role } });
      return row;
    });
    const user = (await findAnyUser(db(), created.id))!;
    return reply.status(201).send({ user: presentUser(user, user.tenantName) });
  });

  app.delete('/users/:id', async (req, reply) => {
    const { actor, tenantId } = scope(req);
    authorize(actor, 'tenant.users', { tenantId });
    const parsed = idParamSchema.safeParse(req.params);
    if (!parsed.success) throw notFound(ADMIN_MESSAGES.userNotFound);
    const id = parsed.data.id;
    if (id === actor.user.id) throw invalid(M.cannotDeleteOwnAccount);
    const user = await findTenantUser(db(), tenantId, id);
    if (!user) throw notFound(ADMIN_MESSAGES.userNotFound);
    if (user.superAdmin) throw forbidden(M.cannotDeleteSuperAdmin);
    const wholeAccount = user.tenantId === tenantId;
    await db().transaction(async (tx) => {
      if (wholeAccount) await deleteUser(tx, id);
      else await removeFromTenant(tx, tenantId, id);
      await writeAudit(tx, actor, {
        tenantId,
        action: 'user.delete',
        targetType: 'user',
        targetId: id,
        details: { email: user.email, scope: wholeAccount ? 'account' : 'membership' },
      });
    });
    return reply.status(204).send();
  });
}

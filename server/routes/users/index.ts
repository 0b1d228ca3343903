import type { FastifyInstance } from 'fastify';
import { ADMIN_MESSAGES, createTenantUserSchema, idParamSchema } from '../../../common/schemas/users';
import { notFound } from '../../errors';
import { deleteUser, findTenantUser, listTenantUsers, removeFromTenant } from '../../db/queries/admin';
import { findInvitationOf, findTenantInvitation, listTenantInvitations } from '../../db/queries/invitations';
import { presentTenantListUser } from '../../presenters/invitations';
import { presentUser } from '../../presenters/users';
import { scope } from '../../plugins/context';
import { requireMayRemoveUser, requireTenant } from '../../policies';
import { parse } from '../../validation';
import { writeAudit } from '../../commands/audit';
import { createUser, creatorScope, invitationAsUser } from '../../commands/createUser';
import { withdrawInvitation } from '../../commands/invitations';

/**
 * The users of the current tenant (Tenant Settings). Deleting removes the user from this tenant;
 * when it is their primary tenant the account itself goes (docs/decisions/tenant-users.md).
 */
export default async function userRoutes(app: FastifyInstance) {
  const db = () => app.database.db;

  app.get('/users', async (req) => {
    const { actor, tenantId } = scope(req);
    requireTenant(actor, 'tenant.users');
    const [members, invitations] = await Promise.all([listTenantUsers(db(), tenantId), listTenantInvitations(db(), tenantId)]);
    // A person with a pending invitation is listed as the invitation, with what the admin entered,
    // whether the account is outside the tenant or was created here and has not signed in yet.
    const pending = new Set(invitations.map((i) => i.userId));
    const rows = [
      ...members.filter((u) => !pending.has(u.id)).map((u) => presentTenantListUser(u, false)),
      ...invitations.map((i) => presentTenantListUser(invitationAsUser(i, scope(req).tenant), true)),
    ];
    rows.sort((a, b) => a.name.localeCompare(b.name) || a.email.localeCompare(b.email));
    return { users: rows };
  });

  app.post('/users', async (req, reply) => {
    const { actor, tenantId } = scope(req);
    requireTenant(actor, 'tenant.users');
    const input = parse(createTenantUserSchema, req.body);
    // An account outside the tenant is invited, with the same answer as a new one (decision 0110).
    const { user } = await createUser(db(), { actor, scope: creatorScope(actor), tenant: scope(req).tenant, input, asInvitation: true });
    return reply.status(201).send({ user: presentUser(user, user.tenantName) });
  });

  app.delete('/users/:id', async (req, reply) => {
    const { actor, tenantId } = scope(req);
    requireTenant(actor, 'tenant.users');
    const parsed = idParamSchema.safeParse(req.params);
    if (!parsed.success) throw notFound(ADMIN_MESSAGES.userNotFound);
    const id = parsed.data.id;
    requireMayRemoveUser(actor, { id }, 'tenant');
    // The list gives a pending invitation's id: deleting it withdraws the invitation.
    const invitation = await findTenantInvitation(db(), tenantId, id);
    if (invitation) {
      await withdrawInvitation(db(), actor, invitation);
      return reply.status(204).send();
    }
    const user = await findTenantUser(db(), tenantId, id);
    // A pending invitee is known by the invitation's id only, as the list shows it.
    if (!user || (await findInvitationOf(db(), tenantId, id))) throw notFound(ADMIN_MESSAGES.userNotFound);
    requireMayRemoveUser(actor, user, 'tenant');
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

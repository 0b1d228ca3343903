import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { M } from '../../../common/messages';
import { createTenantSchema, tenantAnswerSchema, tenantListSchema, updateTenantSchema } from '../../../common/schemas/tenants';
import { documented, type RouteDoc } from '../../routeDoc';
import { ADMIN_MESSAGES, idParamSchema } from '../../../common/schemas/users';
import { conflict, notFound } from '../../errors';
import { insertTenant, listTenants, lockTenant, renameTenant, setTenantArchived } from '../../db/queries/tenants';
import { presentTenant } from '../../presenters/users';
import { requireActor } from '../../plugins/context';
import { requirePlatform } from '../../policies';
import { bodyOf, queryOf } from '../../validation';
import { writeAudit } from '../../commands/audit';
import { deleteTenant } from '../../commands/deleteTenant';

const listQuery = z.object({
  includeArchived: z
    .enum(['true', 'false', '1', '0'], { error: 'includeArchived must be true or false' })
    .optional()
    .transform((v) => v === 'true' || v === '1'),
});

/** The tenant id of the path; anything that is not an id is not found. */
export function tenantIdOf(req: FastifyRequest): string {
  const parsed = idParamSchema.safeParse(req.params);
  if (!parsed.success) throw notFound(ADMIN_MESSAGES.tenantNotFound);
  return parsed.data.id;
}

/** Tenant management (super admin); these routes work across tenants and ignore the tenant header. */
export default async function tenantRoutes(app: FastifyInstance) {
  const platform = documented('Tenants', { tenant: false });
  const cross = <E extends Partial<RouteDoc> = object>(summary: string, responses: RouteDoc['responses'], extra?: E) =>
    platform(summary, 'platform.manage', responses, extra);
  const one = { 200: tenantAnswerSchema };

  app.get('/tenants', cross('Every tenant, archived ones with includeArchived', { 200: tenantListSchema }, { query: listQuery }), async (req) => {
    const actor = requireActor(req);
    requirePlatform(actor);
    const query = queryOf(req);
    const rows = await listTenants(app.database.db, { includeArchived: query.includeArchived });
    return { tenants: rows.map(presentTenant) };
  });

  app.post(
    '/tenants',
    cross('Create a tenant', { 201: tenantAnswerSchema }, { body: createTenantSchema, errors: { 409: M.tenantSlugTaken } }),
    async (req, reply) => {
      const actor = requireActor(req);
      requirePlatform(actor);
      const input = bodyOf(req);
      const tenant = await app.database.db.transaction(async (tx) => {
        const row = await insertTenant(tx, input);
        if (!row) throw conflict(M.tenantSlugTaken);
        await writeAudit(tx, actor, { tenantId: row.id, action: 'tenant.create', targetType: 'tenant', targetId: row.id });
        return row;
      });
      return reply.status(201).send({ tenant: presentTenant(tenant) });
    },
  );

  app.put('/tenants/:id', cross('Rename a tenant (its slug never changes)', one, { body: updateTenantSchema }), async (req) => {
    const actor = requireActor(req);
    requirePlatform(actor);
    const id = tenantIdOf(req);
    const input = bodyOf(req);
    const tenant = await app.database.db.transaction(async (tx) => {
      const current = await lockTenant(tx, id);
      if (!current) throw notFound(ADMIN_MESSAGES.tenantNotFound);
      const row = await renameTenant(tx, id, input.name);
      await writeAudit(tx, actor, {
        tenantId: id,
        action: 'tenant.update',
        targetType: 'tenant',
        targetId: id,
        details: { from: current.name, to: input.name },
      });
      return row;
    });
    return { tenant: presentTenant(tenant) };
  });

  for (const [path, archived] of [
    ['archive', true],
    ['unarchive', false],
  ] as const) {
    const summary = archived ? 'Archive a tenant: hidden from the main view, its members cannot work in it' : 'Unarchive a tenant';
    app.patch(`/tenants/:id/${path}`, cross(summary, one), async (req) => {
      const actor = requireActor(req);
      requirePlatform(actor);
      const id = tenantIdOf(req);
      const tenant = await app.database.db.transaction(async (tx) => {
        const current = await lockTenant(tx, id);
        if (!current) throw notFound(ADMIN_MESSAGES.tenantNotFound);
        if (current.archived === archived) return current;
        const row = await setTenantArchived(tx, id, archived);
        await writeAudit(tx, actor, { tenantId: id, action: archived ? 'tenant.archive' : 'tenant.unarchive', targetType: 'tenant', targetId: id });
        return row;
      });
      return { tenant: presentTenant(tenant) };
    });
  }

  app.delete(
    '/tenants/:id',
    cross(
      'Permanently delete an archived tenant with its services, snapshots, audit log and the users whose primary tenant it is',
      { 204: null },
      { errors: { 409: `${ADMIN_MESSAGES.tenantNotArchived}; or: ${ADMIN_MESSAGES.cannotDeleteOwnTenant}` } },
    ),
    async (req, reply) => {
      const actor = requireActor(req);
      requirePlatform(actor);
      await deleteTenant(app.database, actor, tenantIdOf(req));
      return reply.status(204).send();
    },
  );
}

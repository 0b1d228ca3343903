import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { M } from '../../../common/messages';
import { createTenantSchema, updateTenantSchema } from '../../../common/schemas/tenants';
import { ADMIN_MESSAGES, idParamSchema } from '../../../common/schemas/users';
import { conflict, notFound } from '../../errors';
import { insertTenant, listTenants, lockTenant, renameTenant, setTenantArchived } from '../../db/queries/tenants';
import { presentTenant } from '../../presenters/users';
import { requireActor } from '../../plugins/context';
import { requirePlatform } from '../../policies';
import { parse } from '../../validation';
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
  const cross = { config: { tenant: false } };

  app.get('/tenants', cross, async (req) => {
    const actor = requireActor(req);
    requirePlatform(actor);
    const query = parse(listQuery, req.query);
    const rows = await listTenants(app.database.db, { includeArchived: query.includeArchived });
    return { tenants: rows.map(presentTenant) };
  });

  app.post('/tenants', cross, async (req, reply) => {
    const actor = requireActor(req);
    requirePlatform(actor);
    const input = parse(createTenantSchema, req.body);
    const tenant = await app.database.db.transaction(async (tx) => {
      const row = await insertTenant(tx, input);
      if (!row) throw conflict(M.tenantSlugTaken);
      await writeAudit(tx, actor, { tenantId: row.id, action: 'tenant.create', targetType: 'tenant', targetId: row.id });
      return row;
    });
    return reply.status(201).send({ tenant: presentTenant(tenant) });
  });

  app.put('/tenants/:id', cross, async (req) => {
    const actor = requireActor(req);
    requirePlatform(actor);
    const id = tenantIdOf(req);
    const input = parse(updateTenantSchema, req.body);
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
    app.patch(`/tenants/:id/${path}`, cross, async (req) => {
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

  app.delete('/tenants/:id', cross, async (req, reply) => {
    const actor = requireActor(req);
    requirePlatform(actor);
    await deleteTenant(app.database, actor, tenantIdOf(req));
    return reply.status(204).send();
  });
}

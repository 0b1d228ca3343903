import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { M } from '../../../common/messages';
import { createTenantSchema } from '../../../common/schemas/tenants';
import { conflict } from '../../errors';
import { insertTenant, listTenants } from '../../db/queries/tenants';
import { presentTenant } from '../../presenters/users';
import { requireActor } from '../../plugins/context';
import { authorize } from '../../policies';
import { parse } from '../../validation';
import { writeAudit } from '../../commands/audit';

const listQuery = z.object({
  includeArchived: z
    .enum(['true', 'false', '1', '0'], { error: 'includeArchived must be true or false' })
    .optional()
    .transform((v) => v === 'true' || v === '1'),
});

/** Tenant management (super admin); these routes work across tenants and ignore the tenant header. */
export default async function tenantRoutes(app: FastifyInstance) {
  app.get('/tenants', { config: { tenant: false } }, async (req) => {
    const actor = requireActor(req);
    authorize(actor, 'platform.manage');
    const query = parse(listQuery, req.query);
    const rows = await listTenants(app.database.db, { includeArchived: query.includeArchived });
    return { tenants: rows.map(presentTenant) };
  });

  app.post('/tenants', { config: { tenant: false } }, async (req, reply) => {
    const actor = requireActor(req);
    authorize(actor, 'platform.manage');
    const input = parse(createTenantSchema, req.body);
    const tenant = await app.database.db.transaction(async (tx) => {
      const row = await insertTenant(tx, input);
      if (!row) throw conflict(M.tenantSlugTaken);
      await writeAudit(tx, actor, { tenantId: row.id, action: 'tenant.create', targetType: 'tenant', targetId: row.id });
      return row;
    });
    return reply.status(201).send({ tenant: presentTenant(tenant) });
  });
}

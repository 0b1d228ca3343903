import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { listServices } from '../../db/queries/services';
import { presentService } from '../../presenters/services';
import { scope } from '../../plugins/context';
import { authorize, can } from '../../policies';
import { parse } from '../../validation';

const listQuery = z.object({
  includeArchived: z
    .enum(['true', 'false', '1', '0'], { error: 'includeArchived must be true or false' })
    .optional()
    .transform((v) => v === 'true' || v === '1'),
});

export default async function serviceRoutes(app: FastifyInstance) {
  app.get('/services', async (req) => {
    const { actor, tenantId } = scope(req);
    const query = parse(listQuery, req.query);
    authorize(actor, 'catalog.view');
    // Only those who may see archived services get them; for everyone else the flag is ignored.
    const includeArchived = query.includeArchived && can(actor, 'services.showArchived');
    const rows = await listServices(app.database.db, tenantId, { includeArchived });
    return { services: rows.map(presentService) };
  });
}

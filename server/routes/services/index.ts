import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { listServices } from '../../db/queries/services';
import { presentService } from '../../presenters/services';
import { scope } from '../../plugins/context';
import { authorize, can } from '../../policies';
import { parse } from '../../validation';
import { authorizeService, pathId } from '../../commands/serviceWrites';
import serviceWriteRoutes from './writes';
import fullServiceRoute from './full';
import { StampedCache } from '../../db/writeStamps';
import { headerPairs, type HotAnswer } from '../../plugins/hotReads';

const listQuery = z.object({
  includeArchived: z
    .enum(['true', 'false', '1', '0'], { error: 'includeArchived must be true or false' })
    .optional()
    .transform((v) => v === 'true' || v === '1'),
});

export default async function serviceRoutes(app: FastifyInstance) {
  // A tenant's list, encoded once and read again as soon as this process writes services.
  const lists = new StampedCache<Buffer>(['services'], app.config.CACHE_MAX_AGE_MS, 1000);

  app.get('/services', async (req, reply) => {
    const { actor, tenantId } = scope(req);
    const query = parse(listQuery, req.query);
    authorize(actor, 'catalog.view');
    // Only those who may see archived services get them; for everyone else the flag is ignored.
    const includeArchived = query.includeArchived && can(actor, 'services.showArchived');
    const body = await lists.get(`${tenantId}|${includeArchived}`, async () => {
      const rows = await listServices(app.database.db, tenantId, { includeArchived });
      return Buffer.from(JSON.stringify({ services: rows.map(presentService) }));
    });
    return reply.header('Content-Type', 'application/json; charset=utf-8').send(body);
  });

  // Without a query string the list is the default one (archived services left out), when held.
  const listHeaders = headerPairs({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  app.hotReads.route(/^\/api\/services$/, (_req, { actor, tenantId }): HotAnswer | undefined => {
    authorize(actor, 'catalog.view');
    const body = lists.peek(`${tenantId}|false`);
    if (!body) return undefined;
    return { status: 200, headers: listHeaders, body };
  });

  app.get<{ Params: { id: string } }>('/services/:id', async (req) => {
    const { actor, tenantId } = scope(req);
    const id = pathId(req.params.id);
    const { service } = await authorizeService(app.database.db, actor, tenantId, id, 'catalog.view');
    return { service: presentService(service) };
  });

  await fullServiceRoute(app);
  await serviceWriteRoutes(app);
}

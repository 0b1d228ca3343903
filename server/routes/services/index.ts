import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { listServices, listUserServiceRoles, pageServices } from '../../db/queries/services';
import { encodeCursor, isPaged, SERVICE_PAGE_DEFAULT, servicePageQuerySchema } from '../../../common/schemas/paging';
import { presentService } from '../../presenters/services';
import { scope, type Actor } from '../../plugins/context';
import { loadService, reachableServices, rungOf, serviceListPermissions, tenantPermissions } from '../../policies';
import { queryOf } from '../../validation';
import { parsePathId } from '../../commands/serviceWrites';
import serviceWriteRoutes from './writes';
import fullServiceRoute from './full';
import { StampedCache } from '../../db/writeStamps';
import { headerPairs, type HotAnswer } from '../../plugins/hotReads';
import { serviceAnswerSchema, serviceListSchema } from '../../../common/schemas/services';
import { documented } from '../../routeDoc';

const serviceDoc = documented('Services');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The archived filter, and a page (search, limit, after) when asked for (docs/decisions/0114-paged-lists.md). */
const listQuery = servicePageQuerySchema
  .extend({
    includeArchived: z
      .enum(['true', 'false', '1', '0'], { error: 'includeArchived must be true or false' })
      .optional()
      .transform((v) => v === 'true' || v === '1'),
  })
  // The services' cursor is a name and a service id: any other key is not one of ours.
  .refine((q) => q.after === undefined || UUID.test(q.after[1]), { error: 'after must be a cursor from a previous answer', path: ['after'] });

/** Encoded list bodies by tenant and caller, kept while the two parts they were made from are current. */
const MAX_BODIES = 10_000;

/** The list's body: the tenant's services (encoded once for everyone) and what this caller may do on each. */
function listBody(bodies: Map<string, { services: string; permissions: string; body: Buffer }>, key: string, services: string, permissions: string): Buffer {
  const held = bodies.get(key);
  if (held && held.services === services && held.permissions === permissions) return held.body;
  const body = Buffer.from(`{"services":${services},"permissions":${permissions}}`);
  if (bodies.size >= MAX_BODIES) bodies.clear();
  bodies.set(key, { services, permissions, body });
  return body;
}

export default async function serviceRoutes(app: FastifyInstance) {
  // A tenant's services, encoded once and read again as soon as this process writes services.
  const lists = new StampedCache<string>(['services'], app.config.CACHE_MAX_AGE_MS, 1000);
  // Each caller's rights on the list, read again as soon as this process writes assignments.
  const rights = new StampedCache<string>(['service_role_assignments'], app.config.CACHE_MAX_AGE_MS, 10_000);
  const rightsKey = (actor: Actor, tenantId: string) => `${tenantId}|${actor.userId}|${rungOf(actor)}`;
  const bodies = new Map<string, { services: string; permissions: string; body: Buffer }>();

  app.get(
    '/services',
    serviceDoc(
      "The tenant's services by name (archived ones with includeArchived, for those who may see them) and what the caller may do on each; a page of them with search, limit or after",
      'member (the services the caller reaches; archived ones with services.showArchived)',
      { 200: serviceListSchema },
      { query: listQuery },
    ),
    async (req, reply) => {
      const { actor, tenantId } = scope(req);
      const query = queryOf(req);
      const db = app.database.db;
      // Only those who may see archived services get them; for everyone else the flag is ignored.
      const includeArchived = query.includeArchived && tenantPermissions(actor).canShowArchived;
      if (isPaged(query)) {
        // One page and what the caller may do on its services; the next page's cursor is its last row's name and id.
        const limit = query.limit ?? SERVICE_PAGE_DEFAULT;
        // A token limited to some services reads only those, so that its pages are full.
        const only = reachableServices(actor);
        const rows = await pageServices(db, tenantId, { includeArchived, search: query.search, after: query.after, limit: limit + 1, only });
        const page = rows.slice(0, limit);
        const assignments = await listUserServiceRoles(
          db,
          tenantId,
          actor.userId,
          page.map((s) => s.id),
        );
        const last = page.at(-1);
        return {
          services: page.map(presentService),
          permissions: serviceListPermissions(actor, assignments),
          next_after: rows.length > limit && last ? encodeCursor([last.name, last.id]) : null,
        };
      }
      const only = reachableServices(actor);
      if (only) {
        const rows = await listServices(db, tenantId, { includeArchived, only });
        return { services: rows.map(presentService), permissions: serviceListPermissions(actor, []) };
      }
      const [services, permissions] = await Promise.all([
        lists.get(`${tenantId}|${includeArchived}`, async () => JSON.stringify((await listServices(db, tenantId, { includeArchived })).map(presentService))),
        rights.get(rightsKey(actor, tenantId), async () =>
          JSON.stringify(serviceListPermissions(actor, await listUserServiceRoles(db, tenantId, actor.userId))),
        ),
      ]);
      const body = listBody(bodies, `${rightsKey(actor, tenantId)}|${includeArchived}`, services, permissions);
      return reply.header('Content-Type', 'application/json; charset=utf-8').send(body);
    },
  );

  // Without a query string the list is the default one (archived services left out), when held.
  const listHeaders = headerPairs({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  app.hotReads.route(/^\/api\/services$/, (_req, { actor, tenantId }): HotAnswer | undefined => {
    const services = lists.peek(`${tenantId}|false`);
    const permissions = rights.peek(rightsKey(actor, tenantId));
    if (services === undefined || permissions === undefined) return undefined;
    return { status: 200, headers: listHeaders, body: listBody(bodies, `${rightsKey(actor, tenantId)}|false`, services, permissions) };
  });

  app.get<{ Params: { id: string } }>('/services/:id', serviceDoc('One service', 'catalog.view', { 200: serviceAnswerSchema }), async (req) => {
    const { actor, tenantId } = scope(req);
    const id = parsePathId(req.params.id);
    const { service } = await loadService(app.database.db, actor, tenantId, id, 'catalog.view');
    return { service: presentService(service) };
  });

  await fullServiceRoute(app);
  await serviceWriteRoutes(app);
}

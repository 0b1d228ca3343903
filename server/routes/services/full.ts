import type { FastifyInstance } from 'fastify';
import { loadServiceContentJson } from '../../db/queries/catalog';
import { presentService } from '../../presenters/services';
import { scope } from '../../plugins/context';
import { can } from '../../policies';
import { authorizeService, pathId, SERVICE_ACCESS_TABLES, type ServiceAccess } from '../../commands/serviceWrites';
import { StampedCache } from '../../db/writeStamps';
import { M } from '../../../common/messages';
import { acceptsGzip, etagMatches, FullCache } from './fullCache';

/** Bytes of encoded /full bodies kept in memory. */
export const FULL_CACHE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * The catalog screen's data in one call. Readers never get private aspects. `permissions` tells
 * the page which controls to show; every write is still authorized on its own.
 *
 * Every request authorizes the caller on the service row and their service role, which are read
 * again whenever this process has written services or assignments since (server/db/writeStamps.ts);
 * the body itself is built by one statement once per service version and rights variant, then
 * served from memory, gzip included, with an ETag for 304s (docs/decisions/0100-full-response-cache.md).
 */
export default async function fullServiceRoute(app: FastifyInstance) {
  const cache = new FullCache(FULL_CACHE_MAX_BYTES);
  const access = new StampedCache<ServiceAccess | undefined>(SERVICE_ACCESS_TABLES, app.config.CACHE_MAX_AGE_MS);

  app.get<{ Params: { id: string } }>('/services/:id/full', async (req, reply) => {
    const { actor, tenantId } = scope(req);
    const id = pathId(req.params.id);
    const db = app.database.db;
    const { service, serviceRole } = await authorizeService(db, actor, tenantId, id, 'catalog.view', M.serviceNotFound, access);
    const ctx = { tenantId, serviceRole };
    const permissions = {
      canEdit: can(actor, 'catalog.edit', ctx),
      canManageSettings: can(actor, 'service.settings', ctx),
      canAdmin: can(actor, 'service.admin', ctx),
      canHardDelete: can(actor, 'services.hardDelete', ctx),
    };
    const includePrivate = permissions.canEdit;
    const variant = [includePrivate, ...Object.values(permissions)].map((flag) => (flag ? '1' : '0')).join('');
    const key = { tenantId, serviceId: service.id, version: service.version, variant };

    const entry = await cache.get(key, async () => {
      const content = await loadServiceContentJson(db, tenantId, id, { includePrivate, timeline: service.timeline });
      // The database answers the lists as JSON text; they are spliced in as they are.
      return (
        `{"service":${JSON.stringify(presentService(service))},"categories":${content.categories},` +
        `"resolved_data":{"aspects":${content.aspects},"timeline":${JSON.stringify(service.timeline)}},` +
        `"roles":${content.roles},"templates":${content.templates},"permissions":${JSON.stringify(permissions)}}`
      );
    });

    reply
      .header('ETag', entry.etag)
      .header('Vary', 'Accept-Encoding')
      // Private: the body depends on who asks; no-cache: always revalidate with the ETag.
      .header('Cache-Control', 'private, no-cache');
    if (etagMatches(req.headers['if-none-match'], entry.etag)) return reply.code(304).send();
    reply.header('Content-Type', 'application/json; charset=utf-8');
    if (acceptsGzip(req.headers['accept-encoding'])) {
      return reply.header('Content-Encoding', 'gzip').send(await entry.gzip());
    }
    return reply.send(entry.json);
  });
}

import type { FastifyInstance } from 'fastify';
import { loadAspectsJson, loadServiceContentJson } from '../../db/queries/catalogJson';
import { presentService } from '../../presenters/services';
import { scope } from '../../plugins/context';
import { grantService, loadService, SERVICE_ACCESS_TABLES, serviceAccessKey, type ServiceAccess, type ServiceGrant, seesPrivate } from '../../policies';
import { parsePathId } from '../../commands/serviceWrites';
import { StampedCache } from '../../db/writeStamps';
import { acceptsGzip, etagMatches, FullCache, type EncodedBody, type VariantKey } from './fullCache';
import { headerPairs, type HotAnswer } from '../../plugins/hotReads';
import { partsOf, withAspects, type FullParts } from './fullParts';
import { fullServiceSchema } from '../../../common/schemas/services';
import { documented } from '../../routeDoc';

const serviceDoc = documented('Services');

/** Bytes of encoded /full bodies kept in memory. */
export const FULL_CACHE_MAX_BYTES = 64 * 1024 * 1024;

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

/** The permission objects already encoded, by object (the access layer hands out the same few). */
const encoded = new WeakMap<ServiceGrant['permissions'], { code: string; json: string }>();

/** The rights as a variant code (one digit a right, for keys and ETags) and as the JSON the body carries. */
function encode(permissions: ServiceGrant['permissions']) {
  let found = encoded.get(permissions);
  if (!found) {
    found = {
      code: Object.values(permissions)
        .map((allowed) => (allowed ? '1' : '0'))
        .join(''),
      json: JSON.stringify(permissions),
    };
    encoded.set(permissions, found);
  }
  return found;
}

/** The body variant the caller's rights select. */
function variantOf(tenantId: string, grant: ServiceGrant) {
  const { service, permissions } = grant;
  const { code, json } = encode(permissions);
  const key: VariantKey = { tenantId, serviceId: service.id, version: service.version, variant: code };
  return { permissionsJson: json, includePrivate: seesPrivate(permissions), key };
}

/** The headers of a /full answer; `gzip` when the body sent is the compressed one. */
function fullHeaders(entry: EncodedBody, gzip: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    etag: entry.etag,
    vary: 'Accept-Encoding',
    // Private: the body depends on who asks; no-cache: always revalidate with the ETag.
    'cache-control': 'private, no-cache',
  };
  if (gzip) headers['content-encoding'] = 'gzip';
  return headers;
}

/** The header lists of a held body's hot answers: plain, gzip and 304, built once per body. */
const hotHeaders = new WeakMap<EncodedBody, { plain: readonly string[]; gzip: readonly string[]; notModified: readonly string[] }>();

function hotHeadersOf(entry: EncodedBody) {
  let lists = hotHeaders.get(entry);
  if (!lists) {
    const type = { 'content-type': 'application/json; charset=utf-8' };
    lists = {
      plain: headerPairs({ ...fullHeaders(entry, false), ...type }),
      gzip: headerPairs({ ...fullHeaders(entry, true), ...type }),
      notModified: headerPairs(fullHeaders(entry, false)),
    };
    hotHeaders.set(entry, lists);
  }
  return lists;
}

/**
 * The catalog screen's data in one call. Readers never get private aspects. `permissions` tells
 * the page which controls to show; every write is still authorized on its own.
 *
 * Every request authorizes the caller on the service row and their service role, which are read
 * again whenever this process has written services or assignments since (server/db/writeStamps.ts);
 * the body itself is built by one statement once per service version and rights variant, then
 * served from memory, gzip included, with an ETag for 304s (docs/decisions/0100-full-response-cache.md).
 * After availability writes of this process only, the next version is made from the body before
 * it, reading only the aspects written (docs/decisions/0107-full-after-availability-writes.md).
 * A request whose every part is already held is answered as a hot read (server/plugins/hotReads.ts).
 */
export default async function fullServiceRoute(app: FastifyInstance) {
  const cache = new FullCache(FULL_CACHE_MAX_BYTES);
  const access = new StampedCache<ServiceAccess | undefined>(SERVICE_ACCESS_TABLES, app.config.CACHE_MAX_AGE_MS);

  /**
   * The parts of the body at `key`'s version made from the variant's earlier body, when only
   * availability writes of this process came between them: the aspects they wrote are read again,
   * the rest is the earlier body's (docs/decisions/0107-full-after-availability-writes.md).
   * Undefined when the body must be built whole.
   */
  async function partsAfterAvailabilityWrites(
    earlier: EncodedBody | undefined,
    key: VariantKey,
    opts: { includePrivate: boolean; timeline: string[] },
  ): Promise<FullParts | undefined> {
    if (!earlier?.parts || earlier.parts.timeline !== JSON.stringify(opts.timeline)) return undefined;
    const changed = app.availabilityChanges.between(key.tenantId, key.serviceId, earlier.version, key.version);
    if (!changed) return undefined;
    const shown = [...changed].filter((aspectId) => earlier.parts!.index.has(aspectId));
    // An aspect the earlier body does not show: it is private and this variant shows none.
    if (!shown.length) return earlier.parts;
    const rows = await loadAspectsJson(app.database.db, key.tenantId, key.serviceId, shown, opts);
    if (rows.length !== shown.length) return undefined;
    return withAspects(earlier.parts, rows);
  }

  const doc = serviceDoc(
    "The catalog screen's data in one answer: the service, its categories, aspects with their availabilities over the timeline, actor roles, quick templates and the caller's permissions",
    'catalog.view (private aspects: catalog.viewPrivate)',
    { 200: fullServiceSchema, 304: null },
    { description: 'Answers an ETag; If-None-Match with it answers 304 while nothing changed. Gzip when the caller accepts it.' },
  );
  app.get<{ Params: { id: string } }>('/services/:id/full', doc, async (req, reply) => {
    const { actor, tenantId } = scope(req);
    const id = parsePathId(req.params.id);
    const db = app.database.db;
    const grant = await loadService(db, actor, tenantId, id, 'catalog.view', { cache: access });
    const { includePrivate, key, permissionsJson } = variantOf(tenantId, grant);
    const { service } = grant;

    const entry = await cache.get(key, async (earlier) => {
      const timeline = service.timeline;
      const parts =
        (await partsAfterAvailabilityWrites(earlier, key, { includePrivate, timeline })) ??
        partsOf(await loadServiceContentJson(db, tenantId, id, { includePrivate, timeline }), timeline);
      // The database answers the lists as JSON text; they are spliced in as they are.
      const body =
        `{"service":${JSON.stringify(presentService(service))},"categories":${parts.categories},` +
        `"resolved_data":{"aspects":[${parts.aspects.join(',')}],"timeline":${parts.timeline}},` +
        `"roles":${parts.roles},"templates":${parts.templates},"permissions":${permissionsJson}}`;
      return { body, parts };
    });

    if (etagMatches(req.headers['if-none-match'], entry.etag)) return reply.headers(fullHeaders(entry, false)).code(304).send();
    reply.header('Content-Type', 'application/json; charset=utf-8');
    if (acceptsGzip(req.headers['accept-encoding'])) return reply.headers(fullHeaders(entry, true)).send(await entry.gzip());
    return reply.headers(fullHeaders(entry, false)).send(entry.json);
  });

  // The same answer from what is held: the access read, the decision by the same policies, the body.
  app.hotReads.route(new RegExp(`^/api/services/(${UUID})/full$`), (req, { actor, tenantId }, [id]): HotAnswer | undefined => {
    const found = access.peek(serviceAccessKey(tenantId, id!, actor));
    if (!found) return undefined;
    const entry = cache.peek(variantOf(tenantId, grantService(actor, tenantId, found, 'catalog.view')).key);
    if (!entry) return undefined;
    const lists = hotHeadersOf(entry);
    if (etagMatches(req.headers['if-none-match'], entry.etag)) return { status: 304, headers: lists.notModified };
    const gzip = acceptsGzip(req.headers['accept-encoding']);
    const body = gzip ? entry.gzipped : entry.json;
    if (!body) return undefined;
    return { status: 200, headers: gzip ? lists.gzip : lists.plain, body };
  });
}

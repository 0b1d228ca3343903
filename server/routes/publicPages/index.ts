import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { compareCatalogs } from '../../../common/catalogDiff';
import {
  findPublicTenant,
  findPublishedService,
  listEditions,
  listPublishedServices,
  loadEditionData,
  type EditionSummary,
  type PublicTenant,
} from '../../db/queries/publishing';
import { tenantScope, withScope } from '../../db/scope';
import { StampedCache } from '../../db/writeStamps';
import { renderAtom, type FeedEntry } from '../../presenters/atom';
import { PUBLIC_STYLE_HASH, renderEdition, renderNotFound, renderTenantIndex, renderTooManyRequests } from '../../presenters/publicPages';

/**
 * The public pages (docs/decisions/0120-public-pages.md) and their feeds (0121): server-rendered,
 * no sign-in, outside /api. Every address that shows nothing answers the same 404 page.
 */

const SLUG = /^[a-z0-9-]{1,100}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Editions a page lists, and entries a feed carries. */
const EDITIONS_LISTED = 1000;
const FEED_ENTRIES = 50;
/** The tables every public answer is read from: a write to any makes every held answer stale, in every process (change stream). */
const TABLES = ['tenants', 'services', 'snapshots'];

interface Answer {
  body: string;
  type: string;
  etag: string;
  lastModified: Date;
  frameAncestors: string[];
}

const NOT_FOUND_PAGE = renderNotFound();
const TOO_MANY_PAGE = renderTooManyRequests();

function cspOf(frameAncestors: string[]): string {
  const ancestors = frameAncestors.length ? frameAncestors.join(' ') : "'none'";
  return [
    "default-src 'none'",
    `style-src ${PUBLIC_STYLE_HASH}`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${ancestors}`,
  ].join('; ');
}

function answer(body: string, type: string, lastModified: Date, frameAncestors: string[]): Answer {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
  return { body, type, etag, lastModified, frameAncestors };
}

export default async function publicPageRoutes(app: FastifyInstance) {
  const db = () => app.database.db;
  const base = app.config.publicUrl;
  const cache = new StampedCache<Answer | null>(TABLES, app.config.CACHE_MAX_AGE_MS, 2000);
  const config = { public: true, tenant: false };

  const notFound = (reply: FastifyReply) =>
    reply.status(404).header('content-security-policy', cspOf([])).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(NOT_FOUND_PAGE);

  /** Rate limit, cache, conditional answers and headers, around a loader that answers null for "not found". */
  const serve = async (req: FastifyRequest, reply: FastifyReply, key: string | null, load: () => Promise<Answer | null>) => {
    if (app.publicLimit) {
      const admit = await app.publicLimit(`p:${req.ip}`);
      if (!admit.admitted) {
        return reply
          .status(429)
          .header('retry-after', String(admit.retryAfterSeconds))
          .header('content-security-policy', cspOf([]))
          .type('text/html; charset=utf-8')
          .send(TOO_MANY_PAGE);
      }
    }
    if (key === null) return notFound(reply);
    const found = await cache.get(key, load);
    if (!found) return notFound(reply);
    reply.header('content-security-policy', cspOf(found.frameAncestors));
    // X-Frame-Options cannot name origins: with a list, frame-ancestors alone decides.
    if (found.frameAncestors.length) reply.removeHeader('x-frame-options');
    reply.header('cache-control', 'no-cache');
    reply.header('etag', found.etag);
    reply.header('last-modified', found.lastModified.toUTCString());
    const ifNoneMatch = req.headers['if-none-match'];
    const ifModifiedSince = req.headers['if-modified-since'];
    const fresh =
      ifNoneMatch !== undefined
        ? ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === found.etag)
        : ifModifiedSince !== undefined && Math.floor(found.lastModified.getTime() / 1000) <= Math.floor(Date.parse(ifModifiedSince) / 1000);
    if (fresh) return reply.status(304).send();
    return reply.type(found.type).send(found.body);
  };

  /** Runs `fn` with the tenant of a public address, in that tenant's row-level security scope. */
  const inTenant = async <T>(slug: string, fn: (tenant: PublicTenant) => Promise<T | null>): Promise<T | null> => {
    const tenant = await findPublicTenant(db(), slug);
    if (!tenant) return null;
    return withScope(tenantScope(tenant.id), () => fn(tenant));
  };

  /** A published service with its public editions, newest first; null when there is none to show. */
  const editionsOf = (tenant: PublicTenant, serviceSlug: string) =>
    findPublishedService(db(), tenant.id, serviceSlug).then(async (service) => {
      if (!service) return null;
      const editions = await listEditions(db(), tenant.id, [service.id], EDITIONS_LISTED);
      return editions.length ? { service, editions } : null;
    });

  const editionPage = (tenantSlug: string, serviceSlug: string, editionId: string | null) =>
    inTenant(tenantSlug, async (tenant) => {
      const found = await editionsOf(tenant, serviceSlug);
      if (!found) return null;
      const { editions } = found;
      const index = editionId === null ? 0 : editions.findIndex((e) => e.id === editionId);
      // The latest edition lives at the service's own address only.
      if (index < 0 || (editionId !== null && index === 0)) return null;
      const edition = editions[index]!;
      const prior = editions[index + 1];
      const data = await loadEditionData(db(), tenant.id, prior ? [edition.id, prior.id] : [edition.id]);
      const current = data.get(edition.id);
      if (!current) return null;
      const priorData = prior ? data.get(prior.id) : undefined;
      const html = renderEdition({
        tenant,
        slug: serviceSlug,
        edition,
        data: current,
        previous: prior && priorData ? { edition: prior, diff: compareCatalogs(priorData, current) } : null,
        editions,
        latest: index === 0,
        base,
      });
      return answer(html, 'text/html; charset=utf-8', edition.createdAt, tenant.embedOrigins);
    });

  /** Feed entries for editions, each compared with the edition of the same service before it. */
  const entriesOf = async (tenant: PublicTenant, editions: EditionSummary[], slugOf: (serviceId: string) => string) => {
    const shown = editions.slice(0, FEED_ENTRIES);
    const priorOf = new Map<string, EditionSummary>();
    for (const e of shown) {
      const prior = editions.slice(editions.indexOf(e) + 1).find((p) => p.serviceId === e.serviceId);
      if (prior) priorOf.set(e.id, prior);
    }
    const data = await loadEditionData(db(), tenant.id, [...new Set([...shown.map((e) => e.id), ...[...priorOf.values()].map((p) => p.id)])]);
    const entries: FeedEntry[] = [];
    for (const e of shown) {
      const current = data.get(e.id);
      if (!current) continue;
      const prior = priorOf.get(e.id);
      const priorData = prior ? data.get(prior.id) : undefined;
      const path = `/p/${tenant.slug}/${slugOf(e.serviceId)}`;
      const latestOfService = editions.find((x) => x.serviceId === e.serviceId)?.id === e.id;
      entries.push({
        edition: e,
        serviceName: current.service.name,
        href: base + (latestOfService ? path : `${path}/editions/${e.id}`),
        diff: priorData ? compareCatalogs(priorData, current) : null,
      });
    }
    return entries;
  };

  app.get<{ Params: { tenant: string } }>('/p/:tenant', { config }, (req, reply) => {
    const { tenant: t } = req.params;
    return serve(req, reply, SLUG.test(t) ? `index|${t}` : null, () =>
      inTenant(t, async (tenant) => {
        const list = await listPublishedServices(db(), tenant.id);
        if (!list.length) return null;
        const last = new Date(Math.max(...list.map((s) => s.editionAt.getTime())));
        return answer(renderTenantIndex(tenant, list, base), 'text/html; charset=utf-8', last, tenant.embedOrigins);
      }),
    );
  });

  app.get<{ Params: { tenant: string } }>('/p/:tenant/feed.atom', { config }, (req, reply) => {
    const { tenant: t } = req.params;
    return serve(req, reply, SLUG.test(t) ? `tenant-feed|${t}` : null, () =>
      inTenant(t, async (tenant) => {
        const list = await listPublishedServices(db(), tenant.id);
        if (!list.length) return null;
        const slugs = new Map(list.map((s) => [s.id, s.slug]));
        const editions = await listEditions(db(), tenant.id, [...slugs.keys()], EDITIONS_LISTED);
        const entries = await entriesOf(tenant, editions, (id) => slugs.get(id)!);
        const body = renderAtom({
          id: `urn:uuid:${tenant.id}`,
          title: `${tenant.name}: new editions`,
          author: tenant.name,
          self: `${base}/p/${tenant.slug}/feed.atom`,
          alternate: `${base}/p/${tenant.slug}`,
          entries,
        });
        return answer(body, 'application/atom+xml; charset=utf-8', editions[0]!.createdAt, []);
      }),
    );
  });

  app.get<{ Params: { tenant: string; service: string } }>('/p/:tenant/:service', { config }, (req, reply) => {
    const { tenant: t, service: s } = req.params;
    return serve(req, reply, SLUG.test(t) && SLUG.test(s) ? `service|${t}|${s}` : null, () => editionPage(t, s, null));
  });

  app.get<{ Params: { tenant: string; service: string; id: string } }>('/p/:tenant/:service/editions/:id', { config }, (req, reply) => {
    const { tenant: t, service: s, id } = req.params;
    return serve(req, reply, SLUG.test(t) && SLUG.test(s) && UUID.test(id) ? `edition|${t}|${s}|${id.toLowerCase()}` : null, () =>
      editionPage(t, s, id.toLowerCase()),
    );
  });

  app.get<{ Params: { tenant: string; service: string } }>('/p/:tenant/:service/feed.atom', { config }, (req, reply) => {
    const { tenant: t, service: s } = req.params;
    return serve(req, reply, SLUG.test(t) && SLUG.test(s) ? `service-feed|${t}|${s}` : null, () =>
      inTenant(t, async (tenant) => {
        const found = await editionsOf(tenant, s);
        if (!found) return null;
        const entries = await entriesOf(tenant, found.editions, () => s);
        const name = entries[0]?.serviceName ?? found.service.name;
        const body = renderAtom({
          id: `urn:uuid:${found.service.id}`,
          title: `${name}: new editions`,
          author: tenant.name,
          self: `${base}/p/${tenant.slug}/${s}/feed.atom`,
          alternate: `${base}/p/${tenant.slug}/${s}`,
          entries,
        });
        return answer(body, 'application/atom+xml; charset=utf-8', found.editions[0]!.createdAt, []);
      }),
    );
  });

  // Anything else under /p is the same 404, never the web app.
  const nothing = (req: FastifyRequest, reply: FastifyReply) => serve(req, reply, null, async () => null);
  app.get('/p', { config }, nothing);
  app.get('/p/*', { config }, nothing);
}

import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { M } from '../../common/messages';
import { forbidden } from '../errors';
import { findTenantById, findTenantBySlug, type TenantRow } from '../db/queries/users';
import { tenantScope, withScope } from '../db/scope';
import { StampedCache } from '../db/writeStamps';
import { actorIn, type Actor } from './context';
import { belongsTo } from '../policies';

export const TENANT_HEADER = 'x-tenant-slug';

/**
 * Resolves X-Tenant-Slug to the tenant a request works in and checks that the caller belongs to it
 * (a super admin belongs to every active tenant). Without the header the user's primary tenant is
 * used; while impersonating, the impersonation's tenant. Unknown and foreign slugs answer the same
 * 403, so a slug's existence does not leak. Members of an archived tenant cannot work in it.
 * Session and tenant resolution read across tenants (the system scope); the handler does not.
 */
export const tenantPlugin = fp(async (app) => {
  // Tenants are read again as soon as this process writes the tenants table.
  const cache = new StampedCache<TenantRow | undefined>(['tenants'], app.config.CACHE_MAX_AGE_MS);
  app.decorateRequest('tenant', null);
  app.addHook('onRequest', async (req) => {
    if (!req.actor || req.routeOptions.config?.tenant === false) return;
    req.tenant = await resolveTenant(req, req.actor, cache);
    // From here on the actor holds the role of their membership in this tenant.
    req.actor = actorIn(req.actor, req.tenant.id);
  });
  // Hot reads take only a tenant already read; a refusal is left to the full route to answer.
  app.hotReads.tenantOf = (req, actor) => {
    const tenant = cache.peek(tenantWanted(req.headers, actor).key);
    return tenant ? checkTenant(actor, tenant) : undefined;
  };
  // The handler of a tenant-scoped request, and everything it starts, works under the database's
  // row-level security for that tenant: a query that forgets its tenant filter finds nothing else.
  app.addHook('preHandler', (req, _reply, done) => {
    if (req.tenant) withScope(tenantScope(req.tenant.id), done);
    else done();
  });
});

/** Which tenant a request names: its X-Tenant-Slug, or else the caller's own (or impersonated) tenant. */
function tenantWanted(headers: IncomingHttpHeaders, actor: Actor): { slug: string; id: string; key: string } {
  const raw = headers[TENANT_HEADER];
  const slug = typeof raw === 'string' ? raw.trim() : '';
  const id = actor.impersonationTenantId ?? actor.user.tenantId;
  return { slug, id, key: slug ? `slug:${slug}` : `id:${id}` };
}

/** The caller may work in the tenant: a member (or a super admin) of a tenant that is not archived. */
function checkTenant(actor: Actor, tenant: TenantRow | undefined): TenantRow {
  if (!tenant || !belongsTo(actor, tenant.id)) throw forbidden(M.noTenantAccess);
  if (tenant.archived) throw forbidden(M.tenantArchived);
  return tenant;
}

export async function resolveTenant(req: FastifyRequest, actor: Actor, cache?: StampedCache<TenantRow | undefined>): Promise<TenantRow> {
  const db = req.server.database.db;
  const { slug, id, key } = tenantWanted(req.headers, actor);
  const load = () => (slug ? findTenantBySlug(db, slug) : findTenantById(db, id));
  return checkTenant(actor, cache ? await cache.get(key, load) : await load());
}

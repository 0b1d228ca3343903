import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { M } from '../../common/messages';
import { unauthenticated } from '../errors';
import { loadSessionUser, loadUserWithTenants } from '../db/queries/users';
import { StampedCache } from '../db/writeStamps';
import type { Actor } from './context';
import { bearerToken } from './hotReads';

const SESSION_TABLES = ['users', 'tenant_memberships', 'tenants', 'revoked_tokens', 'impersonations'];

/** The bearer token of a request: null without one, '' when the header is malformed. */
function bearer(req: FastifyRequest): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  return bearerToken(header) ?? '';
}

/** The cache key of a session: the token's id and everything else the actor is built from. */
function sessionKey(claims: Claims): string {
  return `${claims.jti}|${claims.sub}|${claims.imp ?? ''}|${claims.tid ?? ''}|${claims.sid ?? ''}`;
}

/**
 * Resolves the bearer token of every /api request (except public routes) to an Actor. The token's
 * signature and expiry are checked on every request; the user, their memberships and the token's
 * revocation are read from the database, and reused only until this process writes any of the
 * tables they come from (server/db/writeStamps.ts), so a demotion, a removal, a deletion or a
 * logout takes effect at once.
 */
export const sessionPlugin = fp(async (app) => {
  const cache = new StampedCache<Actor | null>(SESSION_TABLES, app.config.CACHE_MAX_AGE_MS);
  app.decorateRequest('actor', null);
  app.addHook('onRequest', async (req) => {
    if (!req.url.startsWith('/api/') || req.routeOptions.config?.public || !req.routeOptions.url) return;
    req.actor = await resolveActor(req, cache);
  });
  // Hot reads find the caller only among tokens and sessions this process already checked.
  app.hotReads.actorOf = (token) => {
    const claims = app.tokens.peek(token);
    return claims ? (cache.peek(sessionKey(claims)) ?? undefined) : undefined;
  };
});

export async function resolveActor(req: FastifyRequest, cache?: StampedCache<Actor | null>): Promise<Actor> {
  const token = bearer(req);
  if (token === null) throw unauthenticated(M.signInRequired);
  const claims = token ? await req.server.tokens.verify(token) : null;
  if (!claims) throw unauthenticated(M.sessionExpired);
  const load = () => loadActor(req, claims);
  const actor = cache ? await cache.get(sessionKey(claims), load) : await load();
  if (!actor) throw unauthenticated(M.sessionExpired);
  return actor;
}

type Claims = NonNullable<Awaited<ReturnType<FastifyRequest['server']['tokens']['verify']>>>;

async function loadActor(req: FastifyRequest, claims: Claims): Promise<Actor | null> {
  const db = req.server.database.db;
  // An impersonation token lives only as long as the super admin's session it was started from:
  // one that names no session is refused.
  if (claims.imp && !claims.sid) return null;
  const loaded = await loadSessionUser(db, claims.sub, claims.jti, claims.sid);
  if (!loaded || loaded.revoked) return null;
  let impersonator = null;
  if (claims.imp) {
    impersonator = (await loadUserWithTenants(db, claims.imp)) ?? null;
    // The super admin behind an impersonation must still exist and still be a super admin.
    if (!impersonator || !impersonator.superAdmin) return null;
  }
  const user = loaded.user;
  return {
    user,
    userId: user.id,
    role: user.role,
    superAdmin: user.superAdmin && !impersonator,
    impersonator,
    impersonationTenantId: claims.imp ? (claims.tid ?? user.tenantId) : null,
    jti: claims.jti,
    exp: claims.exp,
  };
}

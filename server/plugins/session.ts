import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { M } from '../../common/messages';
import { unauthenticated } from '../errors';
import { loadSessionUser, loadUserWithTenants } from '../db/queries/users';
import type { Actor } from './context';

function bearer(req: FastifyRequest): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const m = /^Bearer\s+([A-Za-z0-9._~+/=-]+)$/i.exec(header);
  return m ? m[1] : '';
}

/**
 * Resolves the bearer token of every /api request (except public routes) to an Actor. The user
 * is read from the database on every request, so a demotion, a removal or a deletion takes effect
 * at once, and a revoked token stops working at once.
 */
export const sessionPlugin = fp(async (app) => {
  app.decorateRequest('actor', null);
  app.addHook('onRequest', async (req) => {
    if (!req.url.startsWith('/api/') || req.routeOptions.config?.public || !req.routeOptions.url) return;
    req.actor = await resolveActor(req);
  });
});

export async function resolveActor(req: FastifyRequest): Promise<Actor> {
  const token = bearer(req);
  if (token === null) throw unauthenticated(M.signInRequired);
  const claims = token ? await req.server.tokens.verify(token) : null;
  if (!claims) throw unauthenticated(M.sessionExpired);
  const db = req.server.database.db;
  const loaded = await loadSessionUser(db, claims.sub, claims.jti);
  if (!loaded || loaded.revoked) throw unauthenticated(M.sessionExpired);
  let impersonator = null;
  if (claims.imp) {
    impersonator = (await loadUserWithTenants(db, claims.imp)) ?? null;
    // The super admin behind an impersonation must still exist and still be a super admin.
    if (!impersonator || !impersonator.superAdmin) throw unauthenticated(M.sessionExpired);
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

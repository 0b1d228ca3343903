import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { M } from '../../common/messages';
import { unauthenticated } from '../errors';
import { loadSessionUser, loadUserWithTenants, roleIn, type UserWithTenants } from '../db/queries/users';
import { StampedCache } from '../db/writeStamps';
import type { Actor } from './context';
import { bearerToken } from './hotReads';
import { hashApiTokenSecret, isApiTokenSecret, isWellFormedApiTokenSecret } from '../auth/apiTokens';
import { findLiveApiToken, touchApiToken } from '../db/queries/integrations';
import { tokenSuspension } from '../policies';

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
  const apiTokens = new ApiTokenActors(app.config.CACHE_MAX_AGE_MS);
  app.decorateRequest('actor', null);
  app.addHook('onRequest', async (req) => {
    if (!req.url.startsWith('/api/') || req.routeOptions.config?.public || !req.routeOptions.url) return;
    const token = bearer(req);
    req.actor = token && isApiTokenSecret(token) ? await apiTokens.resolve(req, token) : await resolveActor(req, cache);
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
  const impersonationTenantId = claims.imp ? (claims.tid ?? user.tenantId) : null;
  return {
    user,
    userId: user.id,
    // The role in the tenant the session starts in; the tenant plugin gives the one of the tenant a request works in.
    role: impersonationTenantId ? roleIn(user, impersonationTenantId) : user.role,
    superAdmin: user.superAdmin && !impersonator,
    impersonator,
    impersonationTenantId,
    jti: claims.jti,
    exp: claims.exp,
    apiToken: null,
  };
}

/** The tables an API token's caller is built from: revoking, expiring or archiving is heard at once by every process. */
const API_TOKEN_TABLES = ['api_tokens', 'tenants', 'users', 'tenant_memberships'];
/** The expiry of a token without one (9999-12-31T23:59:59Z): a date every consumer can still write. */
const NEVER = 253_402_300_799;
/** A token's last use is written at most this often by one process. */
const TOUCH_EVERY_MS = 60_000;

/**
 * API tokens (docs/decisions/0130-api-tokens.md): the secret's hash finds the token, which acts as
 * a member of its one tenant with its role, limited to its services when it is. Hot reads never
 * know these callers (their token is no session), so API tokens always take the full route.
 */
class ApiTokenActors {
  /** The token's caller, or why it is suspended, or null for no live token. */
  private readonly cache: StampedCache<Actor | string | null>;
  private readonly touched = new Map<string, number>();

  constructor(maxAgeMs: number) {
    this.cache = new StampedCache<Actor | string | null>(API_TOKEN_TABLES, maxAgeMs);
  }

  async resolve(req: FastifyRequest, secret: string): Promise<Actor> {
    const actor = await resolveApiToken(req, secret, this.cache);
    this.touch(req, actor.apiToken!.id);
    return actor;
  }

  /** Records the token's use for its list, without holding up the call. */
  private touch(req: FastifyRequest, id: string): void {
    const now = Date.now();
    if (now - (this.touched.get(id) ?? 0) < TOUCH_EVERY_MS) return;
    if (this.touched.size >= 10_000) this.touched.clear();
    this.touched.set(id, now);
    touchApiToken(req.server.database.db, id).catch((err: unknown) => req.log.warn({ err }, 'could not record an API token use'));
  }
}

/** The caller an API token is, or 401 when it is unknown, revoked, expired or of an archived tenant. */
async function resolveApiToken(req: FastifyRequest, secret: string, cache?: StampedCache<Actor | string | null>): Promise<Actor> {
  if (!isWellFormedApiTokenSecret(secret)) throw unauthenticated(M.sessionExpired);
  const hash = hashApiTokenSecret(secret);
  const db = req.server.database.db;
  const load = async () => {
    const token = await findLiveApiToken(db, hash);
    if (!token || token.tenantArchived) return null;
    // Capped by its creator's current rights: suspended (with why) once they no longer cover its role.
    return tokenSuspension(token.role, token.creator) ?? apiTokenActor(token);
  };
  const actor = cache ? await cache.get(hash, load) : await load();
  if (typeof actor === 'string') throw unauthenticated(actor);
  // An expiry passes without a write: checked on every call.
  if (!actor || actor.exp * 1000 <= Date.now()) throw unauthenticated(M.sessionExpired);
  return actor;
}

/**
 * The caller of a request read again from the database, whichever credential it carries (a
 * session or an API token): how an open event stream checks that its caller may still follow.
 */
export async function resolveCaller(req: FastifyRequest): Promise<Actor> {
  const token = bearer(req);
  return token && isApiTokenSecret(token) ? resolveApiToken(req, token) : resolveActor(req);
}

/** The caller an API token is: a member of its tenant only, never a super admin, named after the token. */
function apiTokenActor(token: NonNullable<Awaited<ReturnType<typeof findLiveApiToken>>>): Actor {
  const label = `API token: ${token.name}`;
  const user: UserWithTenants = {
    id: token.id,
    email: label,
    name: label,
    role: token.role,
    roles: { [token.tenantId]: token.role },
    superAdmin: false,
    tenantId: token.tenantId,
    userGroup: 'manual',
    authProvider: 'local',
    passwordHash: null,
    entraTid: null,
    entraOid: null,
    createdAt: token.createdAt,
    tenantIds: [token.tenantId],
  };
  return {
    user,
    userId: token.id,
    role: token.role,
    superAdmin: false,
    serviceIds: token.serviceIds,
    impersonator: null,
    impersonationTenantId: null,
    jti: token.id,
    exp: token.expiresAt ? Math.floor(token.expiresAt.getTime() / 1000) : NEVER,
    apiToken: { id: token.id, name: token.name, tenantId: token.tenantId, serviceIds: token.serviceIds },
  };
}

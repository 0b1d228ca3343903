import type { Role } from '../../common/roles';
import type { Database } from '../db';
import type { TenantRow, UserWithTenants } from '../db/queries/users';
import type { Config } from '../config';
import type { TokenService } from '../auth/tokens';
import { loadService, type PolicyActor, type ServiceCapability } from '../policies';
import type { LoginThrottle } from '../auth/loginLimiter';

/** The caller of a request, resolved from its bearer token. */
export interface Actor extends PolicyActor {
  user: UserWithTenants;
  /** The super admin behind an impersonation token. */
  impersonator: UserWithTenants | null;
  /** The tenant the impersonation was started in. */
  impersonationTenantId: string | null;
  jti: string;
  /** Token expiry, seconds since the epoch. */
  exp: number;
  role: Role;
  /** The API token the caller is (docs/decisions/0130-api-tokens.md); null for a person's session. */
  apiToken: ApiTokenIdentity | null;
}

export interface ApiTokenIdentity {
  id: string;
  name: string;
  tenantId: string;
  serviceIds: readonly string[] | null;
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    database: Database;
    tokens: TokenService;
    loginLimiter: LoginThrottle;
  }
  interface FastifyRequest {
    actor: Actor | null;
    tenant: TenantRow | null;
  }
  interface FastifyContextConfig {
    /** Reachable without a session. */
    public?: boolean;
    /** false: the route works across tenants and ignores X-Tenant-Slug. */
    tenant?: boolean;
  }
}

import type { FastifyRequest } from 'fastify';
import { unauthenticated, forbidden } from '../errors';
import { roleIn } from '../db/queries/users';

/** Each actor's twins per tenant: the same object for every request of one session in one tenant. */
const actorsByTenant = new WeakMap<Actor, Map<string, Actor>>();

/**
 * The actor as it works in a tenant: roles are held per membership (CONTRACT section 4), so a
 * person's `role` is the one they hold there. An API token holds its own role in its one tenant.
 * A super admin who is not a member keeps their primary tenant's role, which nothing of theirs reads.
 */
export function actorIn(actor: Actor, tenantId: string): Actor {
  if (actor.apiToken) return actor;
  const role = actor.user.tenantIds.includes(tenantId) ? roleIn(actor.user, tenantId) : actor.user.role;
  if (role === actor.role) return actor;
  let twins = actorsByTenant.get(actor);
  if (!twins) actorsByTenant.set(actor, (twins = new Map()));
  let twin = twins.get(tenantId);
  if (!twin) twins.set(tenantId, (twin = Object.freeze({ ...actor, role })));
  return twin;
}

export function requireActor(req: FastifyRequest): Actor {
  if (!req.actor) throw unauthenticated();
  return req.actor;
}

/** The tenant a tenant-scoped request works in (403 when it names none the caller may work in). */
export function tenantOf(req: FastifyRequest): TenantRow {
  if (!req.tenant) throw forbidden();
  return req.tenant;
}

/** Actor and tenant of a tenant-scoped route, with the tenant id policies compare records against. */
export function scope(req: FastifyRequest): { actor: Actor; tenant: TenantRow; tenantId: string } {
  const actor = requireActor(req);
  const tenant = tenantOf(req);
  return { actor, tenant, tenantId: tenant.id };
}

/**
 * The service a tenant-scoped request names, loaded through the access layer with the caller's
 * rights on it (404 when it is not the tenant's, 403 without the capability).
 */
export async function serviceOf(req: FastifyRequest, serviceId: string, capability: ServiceCapability) {
  const { actor, tenantId } = scope(req);
  const grant = await loadService(req.server.database.db, actor, tenantId, serviceId, capability);
  return { ...grant, actor, tenantId };
}

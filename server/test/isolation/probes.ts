import { higherRole } from '../../../common/roles';
import { PERMISSIONS } from '../../policies';
import type { RegisteredRoute } from '../../routeDoc';
import { PEOPLE_ROUTES, type RouteRule } from './routeTable';
import type { ActorName, IsolationWorld } from './world';

export type Target = 'own' | 'foreign' | 'missing' | 'none';
export type HeaderKind = 'own' | 'other' | 'missing' | 'unknown';
export const HEADERS: HeaderKind[] = ['own', 'other', 'missing', 'unknown'];
/**
 * The headers an API token is probed with: its own tenant and another. A missing or unknown slug
 * is resolved by the same tenant check as for a session, which the people actors probe.
 */
export const TOKEN_HEADERS: HeaderKind[] = ['own', 'other'];

/** What a cell must answer: success (2xx), or a refusal with one of these statuses. */
export type Expectation = { ok: true } | { ok: false; statuses: number[] };

const OK: Expectation = { ok: true };
const refuse = (...statuses: number[]): Expectation => ({ ok: false, statuses });

export interface Cell {
  actor: ActorName;
  target: Target;
  header: HeaderKind;
}

/**
 * The rules of CONTRACT sections 2 and 4, as a function of the route's requirement, the actor and
 * the target: signed out -> 401; a tenant header the actor does not belong to (or that names no
 * tenant) -> 403; another tenant's record or a missing one -> 404 (or 403 when the actor lacks the
 * capability anyway, which confirms nothing); a capability the actor lacks -> 403; super admin
 * routes -> 403 for everyone else, impersonation tokens included.
 */
export function expectation(route: RegisteredRoute, rule: Exclude<RouteRule, 'public'>, world: IsolationWorld, cell: Cell): Expectation {
  const actor = world.actors[cell.actor];
  if (!actor.token) return refuse(401);
  const key = `${route.method} ${route.url}`;
  // People and access are never an API token's, whatever the record or the header.
  if (actor.apiToken && PEOPLE_ROUTES.has(key)) return refuse(403);
  const home = actor.home;
  const away = home === 'A' ? 'B' : 'A';
  const targetTenant = cell.target === 'own' ? home : cell.target === 'foreign' ? away : cell.target === 'missing' ? null : undefined;
  // An assignment raises the actor's role for capabilities of the service it names, the one their
  // own target belongs to, and for nothing else (CONTRACT section 4).
  const raised =
    actor.assigned && targetTenant === home && cell.header !== 'other' && rule !== 'member' && rule !== 'self' && PERMISSIONS[rule].scope === 'service';
  const rung = actor.superAdmin ? 'superAdmin' : raised ? higherRole(actor.role, actor.assigned) : actor.role;
  // A token limited to some services holds no tenant-wide right, nor the tenant's live updates.
  const limited = actor.apiToken?.limited === true;
  const holds =
    rule === 'member' || rule === 'self'
      ? !(limited && key === 'GET /api/events')
      : PERMISSIONS[rule][rung] && !(limited && PERMISSIONS[rule].scope !== 'service');

  if (route.config.tenant === false) {
    // An invitation is addressed to one person, none of the actors here: to everyone else it does
    // not exist, in any tenant (the invitee's own answers: server/routes/invitations).
    if (route.url.startsWith('/api/invitations/')) return refuse(404);
    // Only an impersonation, or a super admin with impersonations running, has anything to stop.
    if (key === 'POST /api/impersonation/stop' && !actor.superAdmin && cell.actor !== 'impersonation') return refuse(409);
    if (!holds) return refuse(403);
    if (targetTenant === null) return refuse(404);
    return OK;
  }

  if (cell.header === 'unknown') return refuse(403);
  if (cell.header === 'other' && !actor.superAdmin) return refuse(403);
  const context = cell.header === 'other' ? away : home;
  if (targetTenant === undefined) return holds ? OK : refuse(403);
  if (targetTenant !== context) return holds ? refuse(404) : refuse(403, 404);
  if (!holds) return refuse(403);
  // Moving a service needs membership of the target tenant, which only a super admin has here.
  if (key === 'PATCH /api/services/:id/move-tenant' && !actor.superAdmin) return refuse(403);
  return OK;
}

/** The header a cell sends. */
export function headerFor(world: IsolationWorld, actor: ActorName, header: HeaderKind): string | null {
  const home = world.actors[actor].home;
  const own = home === 'A' ? world.tenantA.slug : world.tenantB.slug;
  const other = home === 'A' ? world.tenantB.slug : world.tenantA.slug;
  if (header === 'own') return own;
  if (header === 'other') return other;
  if (header === 'unknown') return 'no-such-tenant-anywhere';
  return null;
}

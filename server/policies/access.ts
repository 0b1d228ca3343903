import { higherRole, type Role } from '../../common/roles';
import type { ServicePermissions } from '../../common/permissions';
import { M } from '../../common/messages';
import type { Executor } from '../db';
import { findAspectWithRole, findCategoryWithRole } from '../db/queries/catalog';
import { findServiceWithRole, type ServiceRow } from '../db/queries/services';
import type { TokenCreator } from '../db/queries/integrations';
import type { StampedCache } from '../db/writeStamps';
import { forbidden, invalid, notFound } from '../errors';
import { SETTINGS_MESSAGES } from '../../common/schemas/settings';
import { INTEGRATION_MESSAGES } from '../../common/schemas/integrations';
import { authorize, can, reachesService, servicePermissions, type PolicyActor } from './decide';
import type { ServiceCapability, TenantCapability } from './permissions';
import { seesAspect } from './visibility';
import { noteCheck } from './checks';

/** The tables a service and its caller's service role are read from. */
export const SERVICE_ACCESS_TABLES = ['services', 'service_role_assignments'];

/** A service of the request's tenant with the caller's service role assignment on it. */
export interface ServiceAccess {
  service: ServiceRow;
  /** The caller's service role assignment, which raises their role on this service only. */
  serviceRole: Role | null;
}

/** A service the caller was let into, with everything they may do there. */
export interface ServiceGrant extends ServiceAccess {
  permissions: ServicePermissions;
}

export type ServiceAccessCache = StampedCache<ServiceAccess | undefined>;

/** The cache key of a caller's access to a service. */
export function serviceAccessKey(tenantId: string, serviceId: string, actor: PolicyActor): string {
  return `${tenantId}|${serviceId}|${actor.userId}`;
}

/** Permission objects by rung pair: the same few objects for every request. */
const permissionsMemo = new Map<string, ServicePermissions>();

function permissionsOf(actor: PolicyActor, serviceRole: Role | null): ServicePermissions {
  const key = `${actor.superAdmin ? 's' : actor.role}|${serviceRole ?? ''}`;
  let permissions = permissionsMemo.get(key);
  if (!permissions) {
    permissions = Object.freeze(servicePermissions(actor, serviceRole));
    permissionsMemo.set(key, permissions);
  }
  return permissions;
}

/**
 * Decides on a service already loaded: 404 when it is another tenant's, 403 without the
 * capability (the caller's assignment on this service counted), else the grant.
 */
export function grantService(actor: PolicyActor, tenantId: string, access: ServiceAccess, capability: ServiceCapability): ServiceGrant {
  const { service, serviceRole } = access;
  if (!reachesService(actor, service.id)) throw notFound();
  authorize(actor, capability, { tenantId, recordTenantId: service.tenantId, serviceRole });
  return { service, serviceRole, permissions: permissionsOf(actor, serviceRole) };
}

export interface LoadOptions {
  notFoundMessage?: string;
  /** Outside a transaction only: reuses the service and role read by an earlier request. */
  cache?: ServiceAccessCache;
}

/** Loads a service of the tenant with the caller's assignment (one statement) and decides on it. */
export async function loadService(
  db: Executor,
  actor: PolicyActor,
  tenantId: string,
  serviceId: string,
  capability: ServiceCapability,
  opts: LoadOptions = {},
): Promise<ServiceGrant> {
  const load = () => findServiceWithRole(db, tenantId, serviceId, actor.userId);
  const found = opts.cache ? await opts.cache.get(serviceAccessKey(tenantId, serviceId, actor), load) : await load();
  if (!found) throw notFound(opts.notFoundMessage ?? M.serviceNotFound);
  return grantService(actor, tenantId, found, capability);
}

/** The record a loader found, with what the caller may do on its service. */
interface OwnedGrant<R> {
  row: R;
  serviceRole: Role | null;
  permissions: ServicePermissions;
}

/** Decides on a record of a service found with the caller's assignment: 404 when missing or another tenant's, 403 without the capability. */
function grantOwned<R extends { tenantId: string; serviceId: string }>(
  actor: PolicyActor,
  tenantId: string,
  found: { row: R; serviceRole: Role | null } | undefined,
  capability: ServiceCapability,
  visible: (row: R, permissions: ServicePermissions) => boolean = () => true,
): OwnedGrant<R> {
  if (!found || !reachesService(actor, found.row.serviceId)) throw notFound();
  const { row, serviceRole } = found;
  authorize(actor, 'catalog.view', { tenantId, recordTenantId: row.tenantId, serviceRole });
  const permissions = permissionsOf(actor, serviceRole);
  if (!visible(row, permissions)) throw notFound();
  authorize(actor, capability, { tenantId, serviceRole });
  return { row, serviceRole, permissions };
}

/**
 * Loads an aspect with the caller's assignment on its service (one statement) and decides on it.
 * A private aspect does not exist for those who may not see private aspects: 404.
 */
export async function loadAspect(db: Executor, actor: PolicyActor, tenantId: string, aspectId: string, capability: ServiceCapability) {
  const found = await findAspectWithRole(db, tenantId, aspectId, actor.userId);
  const { row, ...grant } = grantOwned(actor, tenantId, found, capability, (aspect, p) => seesAspect(p, aspect));
  return { aspect: row, ...grant };
}

/** Loads a category with the caller's assignment on its service (one statement) and decides on it. */
export async function loadCategory(db: Executor, actor: PolicyActor, tenantId: string, categoryId: string, capability: ServiceCapability) {
  const { row, ...grant } = grantOwned(actor, tenantId, await findCategoryWithRole(db, tenantId, categoryId, actor.userId), capability);
  return { category: row, ...grant };
}

/** Throws unless the caller holds a right over the whole tenant they work in (no assignment counts). */
export function requireTenant(actor: PolicyActor, capability: TenantCapability): void {
  authorize(actor, capability);
}

/** Throws unless the caller reaches every service of the tenant (an API token limited to some does not): tenant-wide feeds. */
export function requireWholeTenant(actor: PolicyActor): void {
  if (actor.serviceIds) throw forbidden(M.forbidden);
}

/** A caller that may be an API token (docs/decisions/0130-api-tokens.md). */
export type CredentialActor = PolicyActor & { apiToken?: { id: string } | null };

/**
 * Whether the caller may manage people and access at all: users, invitations, memberships, service
 * role assignments, embedding origins, API tokens and webhooks are managed by a signed-in person,
 * never by an API token of any role, so that a leaked token cannot make itself a person, another
 * credential or a way to send data out.
 */
export function managesAccess(actor: CredentialActor): boolean {
  return !actor.apiToken;
}

/** Throws 403 for an API token: asked by every route that manages people or access, before anything is read. */
export function requirePerson(actor: CredentialActor): void {
  if (!managesAccess(actor)) throw forbidden(INTEGRATION_MESSAGES.peopleOnly);
}

/** A signed-in person holding a right over people or access of the whole tenant (users, publishing). */
export function requireAccessManager(actor: CredentialActor, capability: TenantCapability = 'tenant.users'): void {
  requirePerson(actor);
  authorize(actor, capability);
}

/** API tokens and webhooks: a signed-in person with the tenant's user rights. */
export function requireIntegrationManager(actor: CredentialActor): void {
  requireAccessManager(actor, 'tenant.users');
}

/**
 * Throws 403 while impersonating (never 401, which would sign the page out): an API token, a
 * webhook, a new user or a new webhook destination would outlast the impersonation and keep
 * working after it ends, in the name of the person impersonated.
 */
export function requireActingAsSelf(actor: PolicyActor & { impersonator?: { id: string } | null }): void {
  if (actor.impersonator) throw forbidden(M.notWhileImpersonating);
}

/** Throws unless the caller is a super admin acting as themself (the Super Admin Panel's calls). */
export function requirePlatform(actor: PolicyActor): void {
  authorize(actor, 'platform.manage');
}

/** What the caller may do on each service of a list: `default`, and the services their assignments raise above it. */
export interface ServiceListPermissions {
  default: ServicePermissions;
  services: Record<string, ServicePermissions>;
}

export function serviceListPermissions(actor: PolicyActor, assignments: readonly { serviceId: string; role: Role }[]): ServiceListPermissions {
  const base = permissionsOf(actor, null);
  const raised: Record<string, ServicePermissions> = {};
  for (const { serviceId, role } of assignments) {
    const permissions = permissionsOf(actor, role);
    if (permissions !== base) raised[serviceId] = permissions;
  }
  return { default: base, services: raised };
}

/**
 * Whether the caller holds a service capability on every service of the tenant by their tenant
 * role alone, so that a write needs no read of the record's service first.
 */
export function holdsOnEveryService(actor: PolicyActor, capability: ServiceCapability): boolean {
  noteCheck(capability);
  return !actor.serviceIds && can(actor, capability);
}

/** A caller with the tenants they are a member of. */
export interface MemberActor extends PolicyActor {
  user: { tenantIds: readonly string[] };
}

/** Whether the caller may work in a tenant: a member of it, or a super admin (who belongs to every tenant). */
export function belongsTo(actor: MemberActor, tenantId: string): boolean {
  return actor.superAdmin || actor.user.tenantIds.includes(tenantId);
}

/**
 * Moving a service: the tenant right to manage services here, and membership of the target
 * tenant (there the caller's tenant role holds too); no service assignment counts.
 */
export function requireMoveTo(actor: MemberActor, targetTenantId: string): void {
  requireTenant(actor, 'tenant.services');
  if (!belongsTo(actor, targetTenantId)) throw forbidden(SETTINGS_MESSAGES.targetNotAllowed);
}

/**
 * A token's rights are its role capped by its creator's current rights in its tenant: once the
 * creator is gone, has left the tenant or holds less than the token's role, the token is suspended
 * (answers why; null while it works). A super admin's rights cover every role in every tenant.
 */
export function tokenSuspension(tokenRole: Role, creator: TokenCreator): string | null {
  if (!creator.exists) return INTEGRATION_MESSAGES.tokenSuspendedCreatorGone;
  if (creator.superAdmin) return null;
  if (!creator.role) return INTEGRATION_MESSAGES.tokenSuspendedCreatorLeft;
  return higherRole(creator.role, tokenRole) === creator.role ? null : INTEGRATION_MESSAGES.tokenSuspendedCreatorDemoted;
}

/**
 * Who may change a member's role in the tenant (PATCH /api/users/{id}): a tenant admin, never on
 * their own role (400) nor on a super admin's (403). Called with the id alone before the user is
 * read, and again with the user.
 */
export function requireMayChangeRole(actor: CredentialActor, target: { id: string; superAdmin?: boolean }): void {
  requireAccessManager(actor);
  if (target.id === actor.userId) throw invalid(M.cannotChangeOwnRole);
  if (target.superAdmin) throw forbidden(M.cannotChangeSuperAdminRole);
}

/**
 * Who may remove a user: nobody removes their own account (400); from a tenant page a super admin
 * is never removed (403). Called with the id alone before the user is read, and again with the user.
 */
export function requireMayRemoveUser(actor: PolicyActor, target: { id: string; superAdmin?: boolean }, from: 'tenant' | 'platform'): void {
  if (target.id === actor.userId) throw invalid(M.cannotDeleteOwnAccount);
  if (from === 'tenant' && target.superAdmin) throw forbidden(M.cannotDeleteSuperAdmin);
}

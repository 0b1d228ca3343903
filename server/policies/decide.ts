import { higherRole, type Role } from '../../common/roles';
import type { ServicePermissions, TenantPermissions } from '../../common/permissions';
import { M } from '../../common/messages';
import { forbidden, notFound } from '../errors';
import { PERMISSIONS, type Capability, type Rung } from './permissions';
import { noteCheck } from './checks';

/** The signed-in caller as policies see it. */
export interface PolicyActor {
  userId: string;
  role: Role;
  /** True only for a super admin acting as themself (never through an impersonation token). */
  superAdmin: boolean;
  /**
   * An API token limited to some services (docs/decisions/0130-api-tokens.md): its role holds on
   * those services only, other services do not exist for it, and it holds no tenant-wide right.
   * Undefined or null: not limited.
   */
  serviceIds?: readonly string[] | null;
}

/** Whether the caller reaches a service: every service unless it is an API token limited to others. */
export function reachesService(actor: PolicyActor, serviceId: string): boolean {
  return !actor.serviceIds || actor.serviceIds.includes(serviceId);
}

/**
 * The services a list may hold for the caller, for the list's statement to read only those (before
 * paging, so that a page is full): undefined when the caller reaches every service.
 */
export function reachableServices(actor: PolicyActor): readonly string[] | undefined {
  return actor.serviceIds ?? undefined;
}

export interface PolicyContext {
  /** The tenant the request works in. */
  tenantId: string;
  /** The record's tenant: anything else is answered as not found. */
  recordTenantId?: string;
  /**
   * The caller's service role assignment on the service concerned. It raises their role for
   * capabilities of that service only; tenant and platform capabilities ignore it.
   */
  serviceRole?: Role | null;
}

export function rungOf(actor: PolicyActor, serviceRole?: Role | null): Rung {
  if (actor.superAdmin) return 'superAdmin';
  return higherRole(actor.role, serviceRole);
}

/** Whether the actor holds the capability, an assignment counting only where the capability is a service's. */
export function can(actor: PolicyActor, capability: Capability, ctx?: PolicyContext): boolean {
  if (ctx?.recordTenantId !== undefined && ctx.recordTenantId !== ctx.tenantId) return false;
  const row = PERMISSIONS[capability];
  // A token limited to some services holds no right over the whole tenant.
  if (actor.serviceIds && row.scope !== 'service') return false;
  return row[rungOf(actor, row.scope === 'service' ? ctx?.serviceRole : null)];
}

/**
 * Throws unless the actor holds the capability. A record of another tenant is a 404, so that its
 * existence does not leak; a missing right is a 403.
 */
export function authorize(actor: PolicyActor, capability: Capability, ctx?: PolicyContext): void {
  noteCheck(capability);
  if (ctx?.recordTenantId !== undefined && ctx.recordTenantId !== ctx.tenantId) throw notFound();
  if (!can(actor, capability, ctx)) throw forbidden(M.forbidden);
}

/** What the caller may do on one service, as the web app is told it (with /full, the service list, settings-data). */
export function servicePermissions(actor: PolicyActor, serviceRole: Role | null): ServicePermissions {
  const ctx = { tenantId: '', serviceRole };
  return {
    canView: can(actor, 'catalog.view', ctx),
    canViewPrivate: can(actor, 'catalog.viewPrivate', ctx),
    canEdit: can(actor, 'catalog.edit', ctx),
    canManageSettings: can(actor, 'service.settings', ctx),
    canAdmin: can(actor, 'service.admin', ctx),
    canHardDelete: can(actor, 'services.hardDelete', ctx),
    canManageUsers: can(actor, 'tenant.users', ctx),
    canMove: can(actor, 'tenant.services', ctx),
  };
}

/** What the caller may do in the tenant they work in (with the session: login, /auth/me). */
export function tenantPermissions(actor: PolicyActor): TenantPermissions {
  return {
    canCreateServices: can(actor, 'tenant.services'),
    canShowArchived: can(actor, 'services.showArchived'),
    canManageUsers: can(actor, 'tenant.users'),
    canOpenTenantSettings: can(actor, 'tenantSettings.page'),
    canManagePlatform: can(actor, 'platform.manage'),
  };
}

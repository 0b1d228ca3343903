import { higherRole, type Role } from '../../common/roles';
import { M } from '../../common/messages';
import { forbidden, notFound } from '../errors';
import { PERMISSIONS, type Capability, type Rung } from './permissions';

export { PERMISSIONS, RUNGS, type Capability, type Rung } from './permissions';

/** The signed-in caller as policies see it. */
export interface PolicyActor {
  userId: string;
  role: Role;
  /** True only for a super admin acting as themself (never through an impersonation token). */
  superAdmin: boolean;
}

export interface PolicyContext {
  /** The tenant the request works in. */
  tenantId: string;
  /** The record's tenant: anything else is answered as not found. */
  recordTenantId?: string;
  /** The caller's service role assignment on the service concerned, which raises their role there. */
  serviceRole?: Role | null;
}

export function rungOf(actor: PolicyActor, serviceRole?: Role | null): Rung {
  if (actor.superAdmin) return 'superAdmin';
  return higherRole(actor.role, serviceRole);
}

export function can(actor: PolicyActor, capability: Capability, ctx?: PolicyContext): boolean {
  if (ctx?.recordTenantId !== undefined && ctx.recordTenantId !== ctx.tenantId) return false;
  return PERMISSIONS[capability][rungOf(actor, ctx?.serviceRole)];
}

/**
 * Throws unless the actor holds the capability. A record of another tenant is a 404, so that its
 * existence does not leak; a missing right is a 403.
 */
export function authorize(actor: PolicyActor, capability: Capability, ctx?: PolicyContext): void {
  if (ctx?.recordTenantId !== undefined && ctx.recordTenantId !== ctx.tenantId) throw notFound();
  if (!PERMISSIONS[capability][rungOf(actor, ctx?.serviceRole)]) throw forbidden(M.forbidden);
}

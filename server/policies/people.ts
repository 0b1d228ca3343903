import { M } from '../../common/messages';
import { ADMIN_MESSAGES } from '../../common/schemas/users';
import { conflict, forbidden, invalid, notFound } from '../errors';
import { authorize, can, type PolicyActor } from './decide';

/**
 * Which accounts the creator of a user may learn about (docs/decisions/0110-user-creation-without-enumeration.md):
 * - `installation`: every account (a super admin, who sees every tenant in the panel anyway);
 * - `tenant`: only the members of the tenant they work in.
 */
export type CreatorScope = 'installation' | 'tenant';

export function decideCreatorScope(actor: PolicyActor): CreatorScope {
  return can(actor, 'platform.manage') ? 'installation' : 'tenant';
}

/**
 * Whether creating a user at an address that has an account may say so (409): always within the
 * installation, and within a tenant only when the account is already a member of it or invited to
 * it (asked only then). Otherwise the account is invited, and the creator learns nothing.
 */
export async function mayLearnOfAccount(scope: CreatorScope, isMemberOrInvited: () => Promise<boolean>): Promise<boolean> {
  return scope === 'installation' || (await isMemberOrInvited());
}

/** A caller that may be impersonating someone (the super admin behind the token). */
type ImpersonatingActor = PolicyActor & { impersonator?: { id: string } | null };

/** Starting an impersonation: a super admin acting as themself; an impersonation token never starts another. */
export function requireMayStartImpersonation(actor: ImpersonatingActor): void {
  if (actor.impersonator) throw forbidden(ADMIN_MESSAGES.nestedImpersonation);
  authorize(actor, 'platform.manage');
}

/** Whom a super admin may act as: never themself (400), asked with the id before anything is read. */
export function requireMayImpersonate(actor: PolicyActor, targetId: string): void {
  if (targetId === actor.userId) throw invalid(ADMIN_MESSAGES.cannotImpersonateSelf, 'userId');
}

/**
 * Then, with the user and tenant read: a user who exists (404), is no super admin (403) and is a
 * member of the tenant (400), which exists (404) and is not archived (409). Answers both, found.
 */
export function requireImpersonable<U extends { superAdmin: boolean; tenantIds: readonly string[] }, T extends { id: string; archived: boolean }>(
  target: U | undefined,
  tenant: T | undefined,
): { target: U; tenant: T } {
  if (!target) throw notFound(ADMIN_MESSAGES.userNotFound);
  if (!tenant) throw notFound(ADMIN_MESSAGES.tenantNotFound);
  if (target.superAdmin) throw forbidden(ADMIN_MESSAGES.cannotImpersonateSuperAdmin);
  if (!target.tenantIds.includes(tenant.id)) throw invalid(ADMIN_MESSAGES.notTenantMember, 'tenantId');
  if (tenant.archived) throw conflict(M.tenantArchived);
  return { target, tenant };
}

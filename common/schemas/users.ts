import { z } from 'zod';
import { M } from '../messages';
import { MAX_EMAIL_LENGTH } from '../limits';
import { ROLES } from '../roles';
import { EMAIL_PATTERN, acceptSnakeCase, optionalPasswordField, requiredString } from './fields';

const email = (required: string) =>
  requiredString(required, MAX_EMAIL_LENGTH)
    .transform((v) => v.toLowerCase())
    .refine((v) => EMAIL_PATTERN.test(v), M.invalidEmail);

/** Tenant admin, '+ Add User': the user joins the current tenant; no password means Microsoft sign-in. */
export const createTenantUserSchema = z.object({
  email: email(M.emailNameRoleRequired),
  name: requiredString(M.emailNameRoleRequired),
  role: z.enum(ROLES, { error: M.emailNameRoleRequired }),
  password: optionalPasswordField.optional(),
});
export type CreateTenantUserInput = z.infer<typeof createTenantUserSchema>;

/** Super admin, Create User: the same fields plus the user's primary tenant (tenant_id or tenantId). */
export const createAdminUserSchema = acceptSnakeCase(
  z.object({
    email: email(M.emailNameRoleTenantRequired),
    name: requiredString(M.emailNameRoleTenantRequired),
    role: z.enum(ROLES, { error: M.emailNameRoleTenantRequired }),
    tenantId: z.uuid({ error: M.emailNameRoleTenantRequired }),
    password: optionalPasswordField.optional(),
  }),
  { tenant_id: 'tenantId' },
);
export type CreateAdminUserInput = z.infer<typeof createAdminUserSchema>;

/** Manage Tenant Memberships: at least one tenant; the primary tenant is checked against the user. */
export const membershipsSchema = z.object({
  tenantIds: z
    .array(z.uuid({ error: 'Each tenant id must be a valid id' }), { error: M.membershipAtLeastOne })
    .min(1, M.membershipAtLeastOne)
    .transform((ids) => [...new Set(ids)]),
});
export type MembershipsInput = z.infer<typeof membershipsSchema>;

export const roleChangeSchema = z.object({ role: z.enum(ROLES, { error: M.selectRole }) });

/** The longest reason a super admin may give for an impersonation. */
export const MAX_IMPERSONATION_REASON_LENGTH = 200;

/** Messages of the administration calls that the specification leaves to the product. */
export const ADMIN_MESSAGES = {
  impersonationTargetRequired: 'A user and a tenant are required',
  cannotImpersonateSelf: 'You cannot impersonate yourself',
  cannotImpersonateSuperAdmin: 'A super admin cannot be impersonated',
  notTenantMember: 'The user is not a member of this tenant',
  nestedImpersonation: 'Stop the current impersonation before starting another',
  notImpersonating: 'No impersonation is active',
  tenantNotArchived: 'Only an archived tenant can be deleted; archive it first',
  cannotDeleteOwnTenant: 'You cannot delete your own primary tenant',
  unknownTenant: 'One of the tenants does not exist',
  userNotFound: 'User not found',
  tenantNotFound: 'Tenant not found',
  impersonationReasonText: 'Reason must be text',
  impersonationReasonTooLong: `Reason must be at most ${MAX_IMPERSONATION_REASON_LENGTH} characters`,
} as const;
const IMPERSONATION_TARGET_REQUIRED = ADMIN_MESSAGES.impersonationTargetRequired;

/** Why a super admin impersonates someone: optional, trimmed; blank, null and missing mean none. */
export const impersonationReasonField = z
  .string({ error: ADMIN_MESSAGES.impersonationReasonText })
  .trim()
  .max(MAX_IMPERSONATION_REASON_LENGTH, ADMIN_MESSAGES.impersonationReasonTooLong)
  .nullish()
  .transform((v) => v || undefined);

export const startImpersonationSchema = acceptSnakeCase(
  z.object({
    userId: z.uuid({ error: IMPERSONATION_TARGET_REQUIRED }),
    tenantId: z.uuid({ error: IMPERSONATION_TARGET_REQUIRED }),
    reason: impersonationReasonField,
  }),
  { user_id: 'userId', tenant_id: 'tenantId' },
);
export type StartImpersonationInput = z.infer<typeof startImpersonationSchema>;

/** Path ids: anything that is not a uuid is answered as not found. */
export const idParamSchema = z.object({ id: z.uuid() });

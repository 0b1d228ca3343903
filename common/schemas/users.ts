import { z } from 'zod';
import { M } from '../messages';
import { MAX_EMAIL_LENGTH } from '../limits';
import { AUTH_PROVIDERS, ROLES, USER_GROUPS, type Role } from '../roles';
import { isoDateTime } from './api';
import { tenantViewSchema } from './tenants';
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
const tenantIdSchema = z.uuid({ error: 'Each tenant id must be a valid id' });

/**
 * A person's tenant memberships, as the spec's `{tenantIds}` (a new membership takes the role held
 * in the primary tenant, one kept keeps its role) or as `{memberships: [{tenantId, role}]}`, each
 * with its role. Either way: the tenants once each, with the role chosen where one was.
 */
export const membershipsSchema = z
  .object({
    tenantIds: z.array(tenantIdSchema, { error: M.membershipAtLeastOne }).optional(),
    memberships: z.array(z.object({ tenantId: tenantIdSchema, role: z.enum(ROLES, { error: M.selectRole }) }), { error: M.membershipAtLeastOne }).optional(),
  })
  .transform((input, ctx) => {
    const given = input.memberships ?? input.tenantIds?.map((tenantId) => ({ tenantId, role: undefined })) ?? [];
    if (given.length === 0) {
      ctx.addIssue({ code: 'custom', message: M.membershipAtLeastOne, path: [input.memberships ? 'memberships' : 'tenantIds'] });
      return z.NEVER;
    }
    const byTenant = new Map(given.map((m) => [m.tenantId, m.role as Role | undefined]));
    return { memberships: [...byTenant].map(([tenantId, role]) => ({ tenantId, ...(role ? { role } : {}) })), tenantIds: [...byTenant.keys()] };
  });
export type MembershipsInput = z.infer<typeof membershipsSchema>;

/** The super admin changes a person's role in one tenant of theirs (their primary tenant unless named). */
export const roleChangeSchema = z.object({
  role: z.enum(ROLES, { error: M.selectRole }),
  tenantId: z.uuid({ error: 'tenantId must be a valid id' }).optional(),
});

/** A tenant admin changes a member's role in their tenant (PATCH /api/users/{id}). */
export const memberRoleChangeSchema = z.object({ role: z.enum(ROLES, { error: M.selectRole }) });

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

/** The spec's user (section 3), as every answer names a user; never a password. */
export const userViewSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  email: z.string(),
  role: z.enum(ROLES),
  super_admin: z.boolean(),
  tenant_id: z.uuid().describe('The primary tenant'),
  tenant_ids: z.array(z.uuid()).describe('Every tenant the user is a member of'),
  tenant_name: z.string().nullable().describe("The primary tenant's name"),
  tenant_roles: z
    .record(z.string(), z.enum(ROLES))
    .optional()
    .describe(
      'The super admin panel only: the role held in each tenant of theirs (roles are held per membership; `role` is the one of the tenant the call works in, or in the panel of the primary tenant)',
    ),
  user_group: z.enum(USER_GROUPS),
  auth_provider: z.enum(AUTH_PROVIDERS),
  created_at: isoDateTime,
});
export const userAnswerSchema = z.object({ user: userViewSchema });

/** A row of the tenant's user list: a member, or a pending invitation (its id is the invitation's). */
export const tenantListUserSchema = userViewSchema.extend({ invitation: z.boolean().describe('A pending invitation, not yet a member') });

/** Someone named in passing: an impersonated user, an impersonator. */
export const personSchema = z.object({ id: z.uuid(), name: z.string(), email: z.string() });

const nextAfter = z.string().nullable().describe('The cursor of the next page (`after`), null on the last');
/** The answer of a paged list carries the next page's cursor; without paging parameters it is absent (docs/decisions/0114-paged-lists.md). */
const nextAfterWhenPaged = nextAfter.optional().describe('With paging parameters: the cursor of the next page (`after`), null on the last');

/** GET /api/users. */
export const tenantUserPageSchema = z.object({ users: z.array(tenantListUserSchema), next_after: nextAfterWhenPaged });
/** GET /api/admin/users. */
export const userPageSchema = z.object({ users: z.array(userViewSchema), next_after: nextAfterWhenPaged });
/** GET /api/admin/tenants: always a page. */
export const tenantPageSchema = z.object({ tenants: z.array(tenantViewSchema), next_after: nextAfter });

/** GET /api/admin/panel-data. */
export const panelDataSchema = z.object({
  tenants: z.array(tenantViewSchema),
  users: z.array(userViewSchema),
  next_tenants_after: nextAfterWhenPaged,
  next_users_after: nextAfterWhenPaged,
  is_impersonating: z.boolean(),
  impersonation: z
    .object({ id: z.uuid(), impersonated_user: personSchema, tenant: tenantViewSchema, started_at: isoDateTime, expires_at: isoDateTime })
    .nullable()
    .describe("The caller's impersonation still running, if any"),
});

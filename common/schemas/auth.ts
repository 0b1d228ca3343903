import { z } from 'zod';
import { M } from '../messages';
import { MAX_EMAIL_LENGTH, MAX_PASSWORD_LENGTH, SESSION_TENANTS_CAP } from '../limits';
import { EMAIL_PATTERN, requiredString } from './fields';
import { tenantPermissionsSchema } from '../permissions';
import { isoDateTime } from './api';
import { receivedInvitationSchema } from './invitations';
import { tenantViewSchema } from './tenants';
import { personSchema, userViewSchema } from './users';

export const loginSchema = z.object({
  email: requiredString(M.emailPasswordRequired, MAX_EMAIL_LENGTH)
    .transform((v) => v.toLowerCase())
    .refine((v) => EMAIL_PATTERN.test(v), M.invalidEmail),
  password: z.string({ error: M.emailPasswordRequired }).min(1, M.emailPasswordRequired).max(MAX_PASSWORD_LENGTH, M.invalidCredentials),
});
export type LoginInput = z.infer<typeof loginSchema>;

/** What the browser keeps for a session: the user, the tenant worked in, the tenants to switch to, and what the caller may do there. */
export const sessionSchema = z.object({
  user: userViewSchema,
  tenant: tenantViewSchema.nullable().describe('The tenant worked in; null for a super admin whose every tenant is archived'),
  availableTenants: z
    .array(tenantViewSchema)
    .describe(
      `The tenants to switch to, by name: a super admin's at most ${SESSION_TENANTS_CAP}, the tenant worked in and the user's own tenant always among them`,
    ),
  availableTenantsTotal: z.number().int().describe('How many tenants the user may switch to; more than availableTenants lists when it reached its cap'),
  permissions: tenantPermissionsSchema,
});

/** A session opened: the bearer token and the session (POST /api/auth/exchange, POST /api/impersonation/stop). */
export const openedSessionSchema = sessionSchema.extend({ token: z.string().describe('The bearer token') });

/** POST /api/auth/login: an opened session and the invitations waiting for the person. */
export const loginAnswerSchema = openedSessionSchema.extend({ invitations: z.array(receivedInvitationSchema) });

/** Present while the caller acts through an impersonation token. */
export const impersonatingSchema = z.object({
  isImpersonating: z.literal(true),
  impersonator: personSchema.describe('The super admin'),
  reason: z.string().nullable(),
});

/** GET /api/auth/me. */
export const meAnswerSchema = sessionSchema.extend({
  invitations: z.array(receivedInvitationSchema),
  impersonating: impersonatingSchema.optional(),
});

/** POST /api/impersonation/start: the impersonation token, the impersonation, and the impersonated user's session. */
export const impersonationStartSchema = sessionSchema.extend({
  token: z.string().describe('The impersonation token'),
  impersonation: z.object({
    id: z.uuid(),
    impersonated_user: userViewSchema,
    tenant: tenantViewSchema,
    reason: z.string().nullable(),
    started_at: isoDateTime,
    expires_at: isoDateTime,
  }),
  impersonating: impersonatingSchema,
});

/** GET /api/impersonation/active. */
export const impersonationStatusSchema = z.object({
  isImpersonating: z.boolean(),
  impersonatedUser: personSchema.nullable(),
  impersonator: personSchema.nullable(),
  reason: z.string().nullable(),
});

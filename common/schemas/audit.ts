import { z } from 'zod';
import { isoDateTime } from './api';

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 100;

const before = z
  .string()
  .regex(/^[1-9][0-9]{0,15}$/, { error: 'before must be an audit entry id' })
  .transform(Number)
  .optional();
const limit = z
  .string()
  .regex(/^[0-9]{1,3}$/, { error: `limit must be a number from 1 to ${AUDIT_PAGE_MAX}` })
  .transform(Number)
  .refine((n) => n >= 1 && n <= AUDIT_PAGE_MAX, { error: `limit must be a number from 1 to ${AUDIT_PAGE_MAX}` })
  .optional();

/** The kinds of change the audit log is filtered by, each a set of actions (by their prefix), in words. */
export const AUDIT_KINDS = {
  cells: { label: 'Cell edits', prefixes: ['availability.'] },
  catalog: { label: 'Categories, aspects, actor roles and templates', prefixes: ['category.', 'aspect.', 'actor_role.', 'quick_template.'] },
  services: { label: 'Services and snapshots', prefixes: ['service.', 'snapshot.'] },
  access: { label: 'People, roles and tokens', prefixes: ['user.', 'invitation.', 'service_role.', 'api_token.', 'impersonation.'] },
  sign_in: { label: 'Sign-ins', prefixes: ['auth.'] },
  settings: { label: 'Tenant settings and webhooks', prefixes: ['tenant.', 'webhook.'] },
} as const;

export type AuditKind = keyof typeof AUDIT_KINDS;
const kinds = Object.keys(AUDIT_KINDS) as [AuditKind, ...AuditKind[]];

/** What the audit log can be narrowed to: one service, one actor (a person's or a token's id), one kind of change. */
const filters = {
  serviceId: z.uuid({ error: 'serviceId must be a service id' }).optional(),
  actorId: z.uuid({ error: 'actorId must be the id of a person or an API token' }).optional(),
  kind: z.enum(kinds, { error: `kind must be one of ${kinds.join(', ')}` }).optional(),
};

/** GET /api/audit: a page of the current tenant's audit log, newest first, maybe narrowed. */
export const auditPageQuerySchema = z.object({ before, limit, ...filters });

/** GET /api/audit/export: the current tenant's audit log as CSV, narrowed as a page is. */
export const auditExportQuerySchema = z.object(filters);

/** GET /api/admin/audit: one tenant's audit log, or the platform rows (no tenant) without tenantId. */
export const adminAuditQuerySchema = z.object({
  before,
  limit,
  tenantId: z.uuid({ error: 'tenantId must be a tenant id' }).optional(),
  ...filters,
});

/** GET /api/admin/audit/export: as the admin page, as CSV. */
export const adminAuditExportQuerySchema = z.object({ tenantId: z.uuid({ error: 'tenantId must be a tenant id' }).optional(), ...filters });

export type AuditFilters = z.infer<typeof auditExportQuerySchema>;

/*
 * The answers' shapes (server/presenters/audit.ts), as documented in the OpenAPI document and
 * checked against real answers in the tests.
 */

/** An audit entry as recorded (ids and raw details) and in words (who, what, to what, what changed). */
export const auditEntrySchema = z.object({
  id: z.number().int(),
  tenant_id: z.uuid().nullable().describe('Null for platform entries'),
  actor_email: z.string().nullable(),
  impersonator_email: z.string().nullable().describe('The super admin behind an impersonation'),
  action: z.string().describe('Such as service.create or user.role_change'),
  target_type: z.string().nullable(),
  target_id: z.string().nullable(),
  details: z.record(z.string(), z.unknown()).nullable().describe('As recorded; its keys depend on the action'),
  created_at: isoDateTime,
  actor_kind: z.enum(['person', 'api_token', 'system']).describe('Who acted: a person (maybe impersonated), an API token or the system'),
  actor_name: z.string().nullable(),
  actor_label: z.string().describe('Who acted, in words: "Ann Lee", "Root impersonating Ann Lee", \'API token "CI"\', "System (Webhook delivery)"'),
  service_id: z.uuid().nullable().describe('The service the entry concerns'),
  request_id: z.uuid().nullable().describe("A cell write's request: GET /audit/{id}/cells gives its cells' history"),
  impersonator_name: z.string().nullable(),
  tenant_name: z.string().nullable(),
  action_label: z.string().describe('The action in words'),
  target_name: z.string().nullable().describe("The target's current name, else the one recorded"),
  service_name: z.string().nullable().describe('The service an aspect, a category or a role on it belongs to'),
  changes: z
    .array(z.object({ label: z.string(), from: z.string().nullable(), to: z.string().nullable() }))
    .describe('What changed, where the entry records it'),
});

/** GET /api/audit and /api/admin/audit: newest first. */
export const auditPageSchema = z.object({
  entries: z.array(auditEntrySchema),
  next_before: z.number().int().nullable().describe('The cursor of the next (older) page (`before`), null when this page is not full'),
});

/** An actor the tenant's log names, for the filter. */
export const auditActorSchema = z.object({
  id: z.uuid(),
  kind: z.enum(['person', 'api_token', 'system']),
  label: z.string(),
});

/** GET /api/audit/actors: everyone the tenant's log names as actor, by name. */
export const auditActorsSchema = z.object({ actors: z.array(auditActorSchema) });

/** One cell's history row written by the request of an audit entry. */
export const auditCellSchema = z.object({
  id: z.number().int(),
  aspect_id: z.uuid(),
  aspect_title: z.string().nullable().describe('Null when the aspect was deleted since'),
  time_bucket: z.string(),
  value: z.string(),
  changed_by: z.string(),
  changed_at: isoDateTime,
});

/** GET /api/audit/{id}/cells: the cells a cell write's entry changed, as their history recorded them. */
export const auditCellsSchema = z.object({
  entry_id: z.number().int(),
  service_id: z.uuid().nullable(),
  cells: z.array(auditCellSchema),
  truncated: z.boolean().describe('More cells than the answer holds (AUDIT_CELLS_MAX)'),
});

export const AUDIT_CELLS_MAX = 5000;
export const AUDIT_EXPORT_MAX = 50000;

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

/** GET /api/audit: a page of the current tenant's audit log, newest first. */
export const auditPageQuerySchema = z.object({ before, limit });

/** GET /api/admin/audit: one tenant's audit log, or the platform rows (no tenant) without tenantId. */
export const adminAuditQuerySchema = z.object({
  before,
  limit,
  tenantId: z.uuid({ error: 'tenantId must be a tenant id' }).optional(),
});

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
  actor_name: z.string().nullable(),
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

import { z } from 'zod';

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

import { and, desc, eq, isNull, lt, type SQL } from 'drizzle-orm';
import type { Executor } from '../client';
import { auditLog } from '../schema';

export type AuditRow = typeof auditLog.$inferSelect;

/** One page of a tenant's audit log (null: the platform rows), newest first, older than `before`. */
export async function listAudit(
  db: Executor,
  tenantId: string | null,
  page: { before?: number; limit: number },
): Promise<AuditRow[]> {
  const conditions: SQL[] = [tenantId === null ? isNull(auditLog.tenantId) : eq(auditLog.tenantId, tenantId)];
  if (page.before !== undefined) conditions.push(lt(auditLog.id, page.before));
  return db
    .select()
    .from(auditLog)
    .where(and(...conditions))
    .orderBy(desc(auditLog.id))
    .limit(page.limit);
}

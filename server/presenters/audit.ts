import type { AuditRow } from '../db/queries/audit';

export function presentAuditEntry(row: AuditRow) {
  return {
    id: row.id,
    tenant_id: row.tenantId,
    actor_email: row.actorEmail,
    impersonator_email: row.impersonatorEmail,
    action: row.action,
    target_type: row.targetType,
    target_id: row.targetId,
    details: row.details ?? null,
    created_at: row.createdAt.toISOString(),
  };
}

/** A page of entries and the cursor of the next (older) page, null on the last one. */
export function presentAuditPage(rows: AuditRow[], limit: number) {
  const last = rows.at(-1);
  return { entries: rows.map(presentAuditEntry), next_before: rows.length === limit && last ? last.id : null };
}

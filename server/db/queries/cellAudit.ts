import { sql, type SQL } from 'drizzle-orm';

/** The audit columns that name who acted (server/commands/audit.ts actorColumns fills them). */
export interface AuditActorColumns {
  actorKind: 'person' | 'api_token' | 'system';
  actorId: string | null;
  actorEmail: string | null;
  actorName: string | null;
  impersonatorId: string | null;
  impersonatorEmail: string | null;
}

/** The audit entry of one cell write of a request: its request's id, which its history row carries too. */
export interface CellAudit {
  request: string;
  actor: AuditActorColumns;
  details: Record<string, unknown>;
}

/** A cell write's audit entry as the statement that writes the cell reads it. */
export function cellAuditItem(audit: CellAudit | undefined) {
  if (!audit) return null;
  const a = audit.actor;
  return {
    request: audit.request,
    kind: a.actorKind,
    actor_id: a.actorId,
    actor_email: a.actorEmail,
    actor_name: a.actorName,
    impersonator_id: a.impersonatorId,
    impersonator_email: a.impersonatorEmail,
    details: audit.details,
  };
}

/**
 * The audit rows of cell writes, written by the statement that writes the cells
 * (docs/decisions/0105-availability-write-batches.md: no statement of its own): `w` is the writes'
 * results (ord, status, current_value, service_id), `items` the writes as sent, each with its
 * `audit` (cellAuditItem); one row for each write that was applied and carries one, with the text
 * the cell held before.
 */
export function cellAuditRows(tenantId: string, items: SQL): SQL {
  return sql`logged as (
    insert into audit_log (tenant_id, actor_kind, actor_id, actor_email, actor_name, impersonator_id, impersonator_email,
      service_id, request_id, action, target_type, target_id, details)
    select ${tenantId}::uuid, e.v -> 'audit' ->> 'kind', (e.v -> 'audit' ->> 'actor_id')::uuid, e.v -> 'audit' ->> 'actor_email',
      e.v -> 'audit' ->> 'actor_name', (e.v -> 'audit' ->> 'impersonator_id')::uuid, e.v -> 'audit' ->> 'impersonator_email',
      w.service_id, (e.v -> 'audit' ->> 'request')::uuid, 'availability.set', 'service', w.service_id::text,
      (e.v -> 'audit' -> 'details') || jsonb_build_object('from', w.current_value)
    from w join jsonb_array_elements(${items}) with ordinality as e(v, n) on e.n = w.ord
    where w.status = 'applied' and jsonb_typeof(e.v -> 'audit') = 'object')`;
}

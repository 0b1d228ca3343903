import { and, asc, desc, eq, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import { AUDIT_KINDS, type AuditFilters } from '../../../common/schemas/audit';
import type { Executor } from '../client';
import { aspects, auditLog, availabilityHistory } from '../schema';

export type AuditRow = typeof auditLog.$inferSelect;

/** One page of a tenant's audit log (null: the platform rows), newest first, older than `before`, narrowed by the filters. */
export async function listAudit(
  db: Executor,
  tenantId: string | null,
  page: { before?: number; limit: number },
  filters: AuditFilters = {},
): Promise<AuditRow[]> {
  const conditions: SQL[] = [tenantId === null ? isNull(auditLog.tenantId) : eq(auditLog.tenantId, tenantId)];
  if (page.before !== undefined) conditions.push(lt(auditLog.id, page.before));
  if (filters.serviceId) conditions.push(eq(auditLog.serviceId, filters.serviceId.toLowerCase()));
  if (filters.actorId) {
    const id = filters.actorId.toLowerCase();
    conditions.push(or(eq(auditLog.actorId, id), eq(auditLog.impersonatorId, id))!);
  }
  if (filters.kind) {
    conditions.push(or(...AUDIT_KINDS[filters.kind].prefixes.map((p) => sql`starts_with(${auditLog.action}, ${p})`))!);
  }
  return db
    .select()
    .from(auditLog)
    .where(and(...conditions))
    .orderBy(desc(auditLog.id))
    .limit(page.limit);
}

/** The ids an audit page names, by the table that holds them. */
export interface AuditNameIds {
  users: string[];
  tenants: string[];
  services: string[];
  categories: string[];
  aspects: string[];
}

export type AuditNameKind = keyof AuditNameIds;

/**
 * The current names of the records a page of audit entries names, in one statement: `kind:id` ->
 * name (a person by name, else email). Records since deleted, or out of the caller's tenant scope,
 * are simply absent; the entry's own details then carry what it knew.
 */
export async function auditNames(db: Executor, ids: AuditNameIds): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  if (Object.values(ids).every((list) => list.length === 0)) return names;
  // Each list goes as one array literal (a list in a sql template would expand into many
  // parameters); the ids are uuids, checked by the presenter, so they need no quoting.
  const list = (ids: string[]) => `{${ids.join(',')}}`;
  const res = await db.execute(sql`
    select 'users' as kind, id::text as id, coalesce(nullif(name, ''), email) as name from users where id = any(${list(ids.users)}::uuid[])
    union all select 'users', i.id::text, coalesce(nullif(i.name, ''), u.email) from tenant_invitations i join users u on u.id = i.user_id
      where i.id = any(${list(ids.users)}::uuid[])
    union all select 'tenants', id::text, name from tenants where id = any(${list(ids.tenants)}::uuid[])
    union all select 'services', id::text, name from services where id = any(${list(ids.services)}::uuid[])
    union all select 'categories', id::text, name from categories where id = any(${list(ids.categories)}::uuid[])
    union all select 'aspects', id::text, title from aspects where id = any(${list(ids.aspects)}::uuid[])`);
  for (const row of (res as unknown as { rows: { kind: string; id: string; name: string }[] }).rows) names.set(`${row.kind}:${row.id}`, row.name);
  return names;
}

/** One entry of the tenant's log (null: of the platform; undefined: of any), by id. */
export async function findAuditEntry(db: Executor, tenantId: string | null | undefined, id: number): Promise<AuditRow | undefined> {
  const where = [eq(auditLog.id, id)];
  if (tenantId !== undefined) where.push(tenantId === null ? isNull(auditLog.tenantId) : eq(auditLog.tenantId, tenantId));
  const [row] = await db
    .select()
    .from(auditLog)
    .where(and(...where))
    .limit(1);
  return row;
}

/** Everyone a tenant's log names as actor (people, tokens), each once, with the name they last acted under. */
export async function listAuditActors(db: Executor, tenantId: string) {
  const res = await db.execute(sql`
    select distinct on (a.actor_id) a.actor_id::text as id, a.actor_kind as kind,
      coalesce(nullif(u.name, ''), u.email, a.actor_name, a.actor_email) as name, a.actor_email as email
    from audit_log a left join users u on u.id = a.actor_id and a.actor_kind = 'person'
    where a.tenant_id = ${tenantId}::uuid and a.actor_id is not null
    order by a.actor_id, a.id desc`);
  return (res as unknown as { rows: { id: string; kind: 'person' | 'api_token' | 'system'; name: string | null; email: string | null }[] }).rows;
}

/** The history rows a request wrote, in the order written, with their aspect's current title; at most `limit`. */
export async function historyOfRequest(db: Executor, tenantId: string, requestId: string, limit: number) {
  return db
    .select({
      id: availabilityHistory.id,
      aspectId: availabilityHistory.aspectId,
      aspectTitle: aspects.title,
      timeBucket: availabilityHistory.timeBucket,
      value: availabilityHistory.value,
      changedBy: availabilityHistory.changedBy,
      changedAt: availabilityHistory.changedAt,
    })
    .from(availabilityHistory)
    .leftJoin(aspects, and(eq(aspects.tenantId, availabilityHistory.tenantId), eq(aspects.id, availabilityHistory.aspectId)))
    .where(and(eq(availabilityHistory.tenantId, tenantId), eq(availabilityHistory.requestId, requestId)))
    .orderBy(asc(availabilityHistory.id))
    .limit(limit);
}

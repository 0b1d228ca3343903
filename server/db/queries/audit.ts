import { and, desc, eq, isNull, lt, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../client';
import { auditLog } from '../schema';

export type AuditRow = typeof auditLog.$inferSelect;

/** One page of a tenant's audit log (null: the platform rows), newest first, older than `before`. */
export async function listAudit(db: Executor, tenantId: string | null, page: { before?: number; limit: number }): Promise<AuditRow[]> {
  const conditions: SQL[] = [tenantId === null ? isNull(auditLog.tenantId) : eq(auditLog.tenantId, tenantId)];
  if (page.before !== undefined) conditions.push(lt(auditLog.id, page.before));
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
    union all select 'tenants', id::text, name from tenants where id = any(${list(ids.tenants)}::uuid[])
    union all select 'services', id::text, name from services where id = any(${list(ids.services)}::uuid[])
    union all select 'categories', id::text, name from categories where id = any(${list(ids.categories)}::uuid[])
    union all select 'aspects', id::text, title from aspects where id = any(${list(ids.aspects)}::uuid[])`);
  for (const row of (res as unknown as { rows: { kind: string; id: string; name: string }[] }).rows) names.set(`${row.kind}:${row.id}`, row.name);
  return names;
}

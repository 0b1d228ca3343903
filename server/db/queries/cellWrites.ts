import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../client';
import { AVAILABILITY_VERSIONS, CHANGE_CHANNEL } from '../changes';
import { aspects, availabilities } from '../schema';
import { cellAuditItem, cellAuditRows, type CellAudit } from './cellAudit';

/** Writes of availability cells: one, several at once, and many of one service, each with its audit entry and its announcement. */
export interface AvailabilityKey {
  tenantId: string;
  aspectId: string;
  timeBucket: string;
}

/**
 * What a write came to: `applied`; `conflict` (the stored text is not `expected`); `archived` (the
 * service is read-only); `not_found` (no such aspect in the tenant); `outside` (the quarter is not
 * in the service's timeline). Only `applied` wrote anything.
 */
export type AvailabilityWriteStatus = 'applied' | 'conflict' | 'archived' | 'not_found' | 'outside';

/**
 * Whether the quarter is in the timeline of the aspect's service (true for no such aspect and for an
 * archived service, which the write answers `not_found` and `archived`). A write outside is handed to the write function without its
 * aspect, so that it finds none and writes nothing.
 */
function inTimeline(tenantId: string, aspectId: SQL, bucket: SQL): SQL {
  return sql`coalesce((select s.archived or s.timeline @> jsonb_build_array(${bucket}) from aspects a
      join services s on s.tenant_id = a.tenant_id and s.id = a.service_id
     where a.tenant_id = ${tenantId}::uuid and a.id = ${aspectId}), true)`;
}

/**
 * The select-list item that announces, in the write's own statement (so with its commit, and only
 * then), the service version an applied write `w` made and the aspect it wrote: every process then
 * makes its next /full from the body it holds (server/db/changes.ts, decision 0107).
 */
function announceVersion(tenantId: string, aspectId: SQL): SQL {
  return sql`case when w.status = 'applied' then pg_notify(${CHANGE_CHANNEL}, json_build_object(
      't', ${AVAILABILITY_VERSIONS}::text, 'tn', json_build_array(${tenantId}::text), 'sv', json_build_array(w.service_id),
      'us', '[]'::json, 'jt', '[]'::json, 'av', json_build_array(json_build_array(w.service_id, w.service_version, ${aspectId})))::text) end as announced`;
}

/**
 * Sets or clears (empty `value`) one aspect's text for one quarter, in one statement that is its
 * own transaction: the database function catalog_write_availability (migration 0002) finds the
 * aspect, locks its service (writes to one service run one at a time), compares the stored text
 * with `expected` (when given), and only if it matches writes the text, appends the history row
 * and marks the service changed (version and last_updated). Answers the text stored before and,
 * when it wrote, the service's version after the write (migration 0004).
 * It decides no right: the caller has authorized the write. The request caches learn what a call
 * writes from server/db/writeStamps.ts, since its text names no table.
 */
export async function writeAvailability(
  db: Executor,
  key: AvailabilityKey,
  value: string,
  changedBy: string,
  expected?: string | null,
  audit?: CellAudit,
): Promise<{ status: AvailabilityWriteStatus; current: string | null; serviceId: string | null; serviceVersion: number | null }> {
  const { tenantId, aspectId, timeBucket } = key;
  type Row = { status: AvailabilityWriteStatus; current_value: string | null; service_id: string | null; service_version: number | null };
  const items = JSON.stringify([{ audit: cellAuditItem(audit) }]);
  const res = await db.execute<Row>(sql`
    with w as materialized (
      select 1 as ord, case when g.inside then f.status else 'outside' end as status, f.current_value, f.service_id, f.service_version
      from (select ${inTimeline(tenantId, sql`${aspectId}::uuid`, sql`${timeBucket}::text`)} as inside) g
      cross join lateral catalog_write_availability(
        ${tenantId}::uuid, case when g.inside then ${aspectId}::uuid end, ${timeBucket}::text, ${value}::text, ${changedBy}::text,
        ${expected !== undefined}::boolean, ${expected ?? null}::text, ${audit?.request ?? null}::uuid) f),
    ${cellAuditRows(tenantId, sql`${items}::jsonb`)}
    select w.status, w.current_value, w.service_id, w.service_version, ${announceVersion(tenantId, sql`${aspectId}::uuid`)} from w`);
  const row = (res as unknown as { rows: Row[] }).rows[0]!;
  return { status: row.status, current: row.current_value ?? null, serviceId: row.service_id ?? null, serviceVersion: row.service_version ?? null };
}

/** One availability write of a batch: what writeAvailability takes. */
export interface AvailabilityWrite {
  key: AvailabilityKey;
  value: string;
  changedBy: string;
  expected?: string | null;
  /** The write's audit entry, written in the same statement (none: the caller records it otherwise). */
  audit?: CellAudit;
}

export type AvailabilityWriteResult = Awaited<ReturnType<typeof writeAvailability>>;

/**
 * Several writes of one tenant in one statement, each exactly as writeAvailability would make it,
 * in the order given (catalog_write_availabilities, migration 0003): one write's conflict or
 * missing aspect does not stop the others. Answers one result per write, in the same order.
 */
export async function writeAvailabilities(db: Executor, tenantId: string, writes: readonly AvailabilityWrite[]): Promise<AvailabilityWriteResult[]> {
  type Row = { ord: number; status: AvailabilityWriteStatus; current_value: string | null; service_id: string | null; service_version: number | null };
  const items = writes.map((w) => ({
    aspect: w.key.aspectId,
    bucket: w.key.timeBucket,
    value: w.value,
    changed_by: w.changedBy,
    check: w.expected !== undefined,
    expected: w.expected ?? null,
    request: w.audit?.request ?? null,
    audit: cellAuditItem(w.audit),
  }));
  const json = JSON.stringify(items);
  const res = await db.execute<Row>(sql`
    with i as (
      select e.ord, e.item, ${inTimeline(tenantId, sql`(e.item ->> 'aspect')::uuid`, sql`e.item ->> 'bucket'`)} as inside
        from jsonb_array_elements(${json}::jsonb) with ordinality e(item, ord)),
    g as (select jsonb_agg(case when i.inside then i.item else jsonb_set(i.item, '{aspect}', 'null') end order by i.ord) as items from i),
    w as materialized (
      select f.ord, case when i.inside then f.status else 'outside' end as status, f.current_value, f.service_id, f.service_version, i.item
      from g cross join lateral catalog_write_availabilities(${tenantId}::uuid, g.items) f join i on i.ord = f.ord),
    ${cellAuditRows(tenantId, sql`${json}::jsonb`)}
    select w.ord, w.status, w.current_value, w.service_id, w.service_version,
      ${announceVersion(tenantId, sql`(w.item ->> 'aspect')::uuid`)}
    from w`);
  const results: AvailabilityWriteResult[] = [];
  for (const row of (res as unknown as { rows: Row[] }).rows) {
    results[row.ord - 1] = {
      status: row.status,
      current: row.current_value ?? null,
      serviceId: row.service_id ?? null,
      serviceVersion: row.service_version ?? null,
    };
  }
  if (results.length !== writes.length || results.includes(undefined as never))
    throw new Error('catalog_write_availabilities did not answer one result per write');
  return results;
}

/** One cell of a service as a batch writes it: the text to store (empty clears it) for one aspect and quarter. */
export interface CellWrite {
  aspectId: string;
  timeBucket: string;
  value: string;
}

/** Which of `aspectIds` are aspects of the tenant, with the service each belongs to. */
export async function servicesOfAspects(db: Executor, tenantId: string, aspectIds: readonly string[]): Promise<Map<string, string>> {
  if (!aspectIds.length) return new Map();
  const rows = await db
    .select({ id: aspects.id, serviceId: aspects.serviceId })
    .from(aspects)
    .where(and(eq(aspects.tenantId, tenantId), inArray(aspects.id, [...aspectIds])));
  return new Map(rows.map((r) => [r.id, r.serviceId]));
}

/** The stored texts of a service's aspects, keyed `aspectId|timeBucket`. */
export async function cellTexts(db: Executor, tenantId: string, serviceId: string, aspectIds: readonly string[]): Promise<Map<string, string>> {
  if (!aspectIds.length) return new Map();
  const rows = await db
    .select({ aspectId: availabilities.aspectId, timeBucket: availabilities.timeBucket, value: availabilities.value })
    .from(availabilities)
    .where(and(eq(availabilities.tenantId, tenantId), eq(availabilities.serviceId, serviceId), inArray(availabilities.aspectId, [...aspectIds])));
  return new Map(rows.map((r) => [`${r.aspectId}|${r.timeBucket}`, r.value]));
}

/**
 * Writes many cells of one service in one statement, exactly as catalog_write_availability writes
 * one: a text is inserted or replaced (its version raised), an empty one deleted, each cell gets
 * its history row, and the service's version goes up and its last_updated moves (once for the
 * whole set). The caller holds the service's lock, has checked the service is not archived, that
 * every aspect is the service's and that no cell conflicts, and passes only cells whose text
 * changes. Answers the service's version after the write.
 */
export async function writeCellsOfService(
  db: Executor,
  tenantId: string,
  serviceId: string,
  cells: readonly CellWrite[],
  changedBy: string,
  /** The request whose audit entry names these cells, carried by their history rows. */
  requestId: string | null = null,
): Promise<number> {
  const items = JSON.stringify(cells.map((c) => ({ a: c.aspectId, b: c.timeBucket, v: c.value })));
  type Row = { version: number };
  const res = await db.execute<Row>(sql`
    with x as materialized (select * from jsonb_to_recordset(${items}::jsonb) as x(a uuid, b text, v text)),
    cleared as (
      delete from availabilities av using x
      where x.v = '' and av.tenant_id = ${tenantId}::uuid and av.aspect_id = x.a and av.time_bucket = x.b),
    stored as (
      insert into availabilities as av (tenant_id, service_id, aspect_id, time_bucket, value)
      select ${tenantId}::uuid, ${serviceId}::uuid, x.a, x.b, x.v from x where x.v <> ''
      on conflict (aspect_id, time_bucket) do update set value = excluded.value, version = av.version + 1, updated_at = now()),
    history as (
      insert into availability_history (tenant_id, service_id, aspect_id, time_bucket, value, changed_by, request_id)
      select ${tenantId}::uuid, ${serviceId}::uuid, x.a, x.b, x.v, ${changedBy}::text, ${requestId}::uuid from x)
    update services s set version = s.version + 1, last_updated = now()
    where s.tenant_id = ${tenantId}::uuid and s.id = ${serviceId}::uuid returning s.version`);
  return (res as unknown as { rows: Row[] }).rows[0]!.version;
}

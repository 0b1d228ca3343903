import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db';
import { aspects, availabilities, categories, snapshots } from '../db/schema';
import { findServices, type ServiceRow } from '../db/queries/services';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../db/queries/integrations';
import { servicePermissions } from '../policies';
import { presentService } from '../presenters/services';

type Data = Record<string, unknown>;
const list = (v: unknown): Data[] => (Array.isArray(v) ? (v as Data[]) : []);
const ids = (v: Iterable<string>) => sql.param([...new Set(v)]);

/** A delivery about to be sent, with its endpoint. */
export interface ContentRequest {
  endpoint: WebhookEndpointRow;
  delivery: WebhookDeliveryRow;
}

/** What a tenant's deliveries of one round refer to, read at once. */
interface TenantRecords {
  services: Map<string, ServiceRow>;
  /** Each aspect named by a cell or a change: whether it is public, and its title. */
  aspects: Map<string, { isPublic: boolean; title: string }>;
  /** The values of the cells named, by `aspect|quarter`. */
  values: Map<string, string>;
  categories: Map<string, string>;
  /** Each snapshot named, and its visibility. */
  snapshots: Map<string, string>;
}

/**
 * The `data` of a round's deliveries, each as its endpoint's role may see it (contentOf); null for
 * a delivery with nothing visible in it. The records are read for the whole round in a few statements per
 * tenant, not per delivery: the database the writes wait on reads them once (decision 0132).
 */
export async function eventContents(db: Executor, requests: readonly ContentRequest[]): Promise<(Data | null)[]> {
  const byTenant = new Map<string, ContentRequest[]>();
  for (const r of requests) byTenant.set(r.endpoint.tenantId, [...(byTenant.get(r.endpoint.tenantId) ?? []), r]);
  const records = new Map<string, TenantRecords>();
  for (const [tenantId, tenantRequests] of byTenant) records.set(tenantId, await readRecords(db, tenantId, tenantRequests));
  return requests.map((r) => contentOf(r, records.get(r.endpoint.tenantId)!));
}

async function readRecords(db: Executor, tenantId: string, requests: readonly ContentRequest[]): Promise<TenantRecords> {
  const serviceIds = new Set<string>();
  const aspectIds = new Set<string>();
  const buckets = new Set<string>();
  const categoryIds = new Set<string>();
  const snapshotIds = new Set<string>();
  for (const { delivery } of requests) {
    const data = delivery.data as Data;
    if (typeof data.service_id === 'string') serviceIds.add(data.service_id);
    if (delivery.eventType === 'availability.changed') {
      for (const c of list(data.cells)) {
        aspectIds.add(String(c.aspect_id));
        buckets.add(String(c.time_bucket));
      }
    } else if (delivery.eventType === 'catalog.changed') {
      for (const c of list(data.changes)) {
        if (c.kind === 'aspect') aspectIds.add(String(c.aspect_id));
        if (c.kind === 'category') categoryIds.add(String(c.category_id));
      }
    } else if (delivery.eventType === 'snapshot.taken' && typeof data.snapshot_id === 'string') {
      snapshotIds.add(data.snapshot_id);
    }
  }
  // One after the other: on the embedded database a request's statement then waits for one of
  // them at most, not for all of them queued at once.
  const serviceRows = await findServices(db, tenantId, [...serviceIds]);
  const aspectRows = aspectIds.size
    ? await db
        .select({ id: aspects.id, isPublic: aspects.isPublic, title: aspects.title })
        .from(aspects)
        .where(and(eq(aspects.tenantId, tenantId), sql`${aspects.id} = any(${ids(aspectIds)}::uuid[])`))
    : [];
  const valueRows = buckets.size
    ? await db
        .select({ aspectId: availabilities.aspectId, timeBucket: availabilities.timeBucket, value: availabilities.value })
        .from(availabilities)
        .where(
          and(
            eq(availabilities.tenantId, tenantId),
            sql`${availabilities.aspectId} = any(${ids(aspectIds)}::uuid[])`,
            sql`${availabilities.timeBucket} = any(${ids(buckets)}::text[])`,
          ),
        )
    : [];
  const categoryRows = categoryIds.size
    ? await db
        .select({ id: categories.id, name: categories.name })
        .from(categories)
        .where(and(eq(categories.tenantId, tenantId), sql`${categories.id} = any(${ids(categoryIds)}::uuid[])`))
    : [];
  const snapshotRows = snapshotIds.size
    ? await db
        .select({ id: snapshots.id, visibility: snapshots.visibility })
        .from(snapshots)
        .where(and(eq(snapshots.tenantId, tenantId), sql`${snapshots.id} = any(${ids(snapshotIds)}::uuid[])`))
    : [];
  return {
    services: new Map(serviceRows.map((s) => [s.id, s])),
    aspects: new Map(aspectRows.map((a) => [a.id, a])),
    values: new Map(valueRows.map((v) => [`${v.aspectId}|${v.timeBucket}`, v.value])),
    categories: new Map(categoryRows.map((c) => [c.id, c.name])),
    snapshots: new Map(snapshotRows.map((s) => [s.id, s.visibility])),
  };
}

/**
 * The one place a webhook's `data` is shaped, field by field, for each type of event. The
 * database's triggers record only the facts of a change, which cannot be read later: ids, the
 * versions written, whether a row was deleted, how many rows (and at most 100 of them), a move's
 * two tenants, a snapshot's label and visibility as taken (server/db/functions/catalog_webhook_enqueue.sql
 * and catalog_webhook_enqueue_cells.sql). Here they become the payload, with the content read now
 * as the endpoint's role may see it: the service's details, the values of changed cells and the
 * names of changed records, leaving out private aspects and internal snapshots for a role that may
 * not see them. Null when nothing in it is visible to the role.
 */
function contentOf({ endpoint, delivery }: ContentRequest, records: TenantRecords): Data | null {
  const facts = delivery.data as Data;
  const permissions = servicePermissions({ userId: endpoint.id, role: endpoint.role, superAdmin: false }, null);
  const service = typeof facts.service_id === 'string' ? records.services.get(facts.service_id) : undefined;
  const serviceVersion = service ? { service_version: service.version } : {};
  const type = delivery.eventType;

  if (type === 'availability.changed') {
    const cells = list(facts.cells).flatMap((c) => {
      const aspect = records.aspects.get(String(c.aspect_id));
      if (!aspect || !(aspect.isPublic || permissions.canViewPrivate)) return [];
      const value = records.values.get(`${String(c.aspect_id)}|${String(c.time_bucket)}`) ?? null;
      return [{ aspect_id: c.aspect_id, time_bucket: c.time_bucket, version: c.version, deleted: c.deleted, aspect_title: aspect.title, value }];
    });
    if (cells.length === 0) return null;
    return { service_id: facts.service_id, cells, count: facts.count, ...serviceVersion };
  }
  if (type === 'catalog.changed') {
    const changes = list(facts.changes).flatMap((c): Data[] => {
      if (c.kind === 'category')
        return [{ kind: c.kind, category_id: c.category_id, deleted: c.deleted, name: records.categories.get(String(c.category_id)) ?? null }];
      const change = { kind: c.kind, aspect_id: c.aspect_id, category_id: c.category_id, version: c.version, deleted: c.deleted };
      const aspect = records.aspects.get(String(c.aspect_id));
      // A deleted aspect's privacy is no longer known: its id goes only to roles that see private aspects.
      if (!aspect) return permissions.canViewPrivate ? [change] : [];
      if (!aspect.isPublic && !permissions.canViewPrivate) return [];
      return [{ ...change, title: aspect.title, is_public: aspect.isPublic }];
    });
    if (changes.length === 0) return null;
    return { service_id: facts.service_id, changes, count: facts.count, ...serviceVersion };
  }
  if (type === 'snapshot.taken') {
    const visibility = records.snapshots.get(String(facts.snapshot_id)) ?? facts.visibility;
    if (visibility === 'internal' && !permissions.canViewPrivate) return null;
    return { service_id: facts.service_id, snapshot_id: facts.snapshot_id, label: facts.label, visibility: facts.visibility, ...serviceVersion };
  }
  // The service's own events (service.created, .updated, .moved, ...).
  const moved = type === 'service.moved' ? { from_tenant_id: facts.from_tenant_id, to_tenant_id: facts.to_tenant_id } : {};
  return { service_id: facts.service_id, version: facts.version, ...moved, ...(service ? { service: presentService(service) } : {}), ...serviceVersion };
}

/**
 * A payload too large to send, without the content read for it (the service's details, the
 * cells' values and the records' names and titles): what changed, as the role may see it, and
 * `truncated`, for the receiver to read the rest through the API.
 */
export function withoutContent(data: Data): Data {
  const { service: _service, ...rest } = data;
  const strip = (items: unknown) => list(items).map(({ aspect_title: _t, value: _v, title: _ti, name: _n, is_public: _p, ...ids }) => ids);
  return {
    ...rest,
    ...(data.cells ? { cells: strip(data.cells) } : {}),
    ...(data.changes ? { changes: strip(data.changes) } : {}),
    truncated: true,
  };
}

import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../db';
import { aspects, availabilities, categories, snapshots } from '../db/schema';
import { findService } from '../db/queries/services';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../db/queries/integrations';
import { servicePermissions } from '../policies';
import { presentService } from '../presenters/services';

type Data = Record<string, unknown>;
const list = (v: unknown): Data[] => (Array.isArray(v) ? (v as Data[]) : []);

/**
 * The event's content as the endpoint's role may see it, read now: the service's details, the
 * values of changed cells and the names of changed records, leaving out private aspects and
 * internal snapshots for a role that may not see them. Null when nothing in the event is visible.
 */
export async function eventContent(db: Executor, endpoint: WebhookEndpointRow, delivery: WebhookDeliveryRow): Promise<Data | null> {
  const data: Data = { ...delivery.data };
  const serviceId = typeof data.service_id === 'string' ? data.service_id : null;
  const permissions = servicePermissions({ userId: endpoint.id, role: endpoint.role, superAdmin: false }, null);
  const tenantId = endpoint.tenantId;
  const service = serviceId ? await findService(db, tenantId, serviceId) : undefined;
  if (service && delivery.eventType.startsWith('service.')) data.service = presentService(service);
  if (service) data.service_version = service.version;

  if (delivery.eventType === 'availability.changed') {
    const cells = list(data.cells);
    const ids = [...new Set(cells.map((c) => String(c.aspect_id)))];
    const buckets = [...new Set(cells.map((c) => String(c.time_bucket)))];
    // The changed cells' aspects and their values now, in one statement.
    const rows = ids.length
      ? await db
          .select({ id: aspects.id, isPublic: aspects.isPublic, title: aspects.title, timeBucket: availabilities.timeBucket, value: availabilities.value })
          .from(aspects)
          .leftJoin(
            availabilities,
            and(eq(availabilities.tenantId, aspects.tenantId), eq(availabilities.aspectId, aspects.id), inArray(availabilities.timeBucket, buckets)),
          )
          .where(and(eq(aspects.tenantId, tenantId), inArray(aspects.id, ids)))
      : [];
    const visible = new Map(rows.filter((a) => a.isPublic || permissions.canViewPrivate).map((a) => [a.id, a]));
    const valueOf = new Map(rows.filter((v) => v.timeBucket !== null).map((v) => [`${v.id}|${v.timeBucket}`, v.value]));
    const shown = cells
      .filter((c) => visible.has(String(c.aspect_id)))
      .map((c) => ({
        ...c,
        aspect_title: visible.get(String(c.aspect_id))!.title,
        value: valueOf.get(`${String(c.aspect_id)}|${String(c.time_bucket)}`) ?? null,
      }));
    if (shown.length === 0) return null;
    data.cells = shown;
  } else if (delivery.eventType === 'catalog.changed') {
    const changes = list(data.changes);
    const aspectIds = changes.filter((c) => c.kind === 'aspect').map((c) => String(c.aspect_id));
    const categoryIds = changes.filter((c) => c.kind === 'category').map((c) => String(c.category_id));
    const aspectRows = aspectIds.length
      ? await db
          .select()
          .from(aspects)
          .where(and(eq(aspects.tenantId, tenantId), inArray(aspects.id, aspectIds)))
      : [];
    const categoryRows = categoryIds.length
      ? await db
          .select()
          .from(categories)
          .where(and(eq(categories.tenantId, tenantId), inArray(categories.id, categoryIds)))
      : [];
    const aspectOf = new Map(aspectRows.map((a) => [a.id, a]));
    const categoryOf = new Map(categoryRows.map((c) => [c.id, c]));
    const shown = changes.flatMap((c) => {
      if (c.kind === 'category') return [{ ...c, name: categoryOf.get(String(c.category_id))?.name ?? null }];
      const aspect = aspectOf.get(String(c.aspect_id));
      // A deleted aspect's privacy is no longer known: its id goes only to roles that see private aspects.
      if (!aspect) return permissions.canViewPrivate ? [c] : [];
      if (!aspect.isPublic && !permissions.canViewPrivate) return [];
      return [{ ...c, title: aspect.title, is_public: aspect.isPublic }];
    });
    if (shown.length === 0) return null;
    data.changes = shown;
  } else if (delivery.eventType === 'snapshot.taken') {
    const [snapshot] = await db
      .select({ visibility: snapshots.visibility })
      .from(snapshots)
      .where(and(eq(snapshots.tenantId, tenantId), eq(snapshots.id, String(data.snapshot_id))));
    if ((snapshot?.visibility ?? data.visibility) === 'internal' && !permissions.canViewPrivate) return null;
  }
  return data;
}

import type { AspectRow, AvailabilityRow, CategoryRow, HistoryRow } from '../db/queries/catalog';

export function presentCategory(c: CategoryRow) {
  return { id: c.id, name: c.name, position: c.position, serviceId: c.serviceId, service_id: c.serviceId };
}

/** Availability texts of one aspect by quarter: {"2025-Q1": "text"}. */
export type AvailabilityMap = Record<string, string>;

export function presentAspect(a: AspectRow, availabilities?: AvailabilityMap) {
  return {
    id: a.id,
    title: a.title,
    description: a.description,
    is_public: a.isPublic,
    category_id: a.categoryId,
    service_id: a.serviceId,
    position: a.position,
    version: a.version,
    ...(availabilities ? { availabilities } : {}),
  };
}
export type PresentedAspect = ReturnType<typeof presentAspect>;

/**
 * Groups availability rows by aspect; with a timeline, only the quarters it covers (texts outside
 * it are kept in the database and reappear when the timeline covers them again).
 */
export function availabilityMaps(rows: AvailabilityRow[], timeline?: string[]): Map<string, AvailabilityMap> {
  const inTimeline = timeline ? new Set(timeline) : null;
  const maps = new Map<string, AvailabilityMap>();
  for (const row of rows) {
    if (inTimeline && !inTimeline.has(row.timeBucket)) continue;
    let map = maps.get(row.aspectId);
    if (!map) maps.set(row.aspectId, (map = {}));
    map[row.timeBucket] = row.value;
  }
  return maps;
}

/** Aspects with their availability maps, in the order given. */
export function presentAspects(rows: AspectRow[], availabilities: AvailabilityRow[], timeline?: string[]) {
  const maps = availabilityMaps(availabilities, timeline);
  return rows.map((a) => presentAspect(a, maps.get(a.id) ?? {}));
}

export function presentAvailability(a: { aspectId: string; timeBucket: string; value: string }) {
  return { aspect_id: a.aspectId, time_bucket: a.timeBucket, value: a.value };
}

export function presentHistory(h: HistoryRow) {
  return { time_bucket: h.timeBucket, value: h.value, changed_by: h.changedBy, changed_at: h.changedAt.toISOString() };
}

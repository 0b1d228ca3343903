import type { SnapshotVisibility } from '../../common/roles';
import type { Executor } from '../db';
import type { ServiceRow } from '../db/queries/services';
import { loadServiceContent } from '../db/queries/settings';
import { snapshots } from '../db/schema';
import { presentService } from '../presenters/services';
import { writeAudit, type AuditActor } from './audit';

/**
 * The frozen catalog of a service, shaped like the full service answer: service, categories and
 * resolved_data {aspects with their availabilities, timeline}. A public snapshot holds public aspects only, and the
 * categories that hold them.
 */
export async function freezeCatalog(db: Executor, service: ServiceRow, visibility: SnapshotVisibility) {
  const content = await loadServiceContent(db, service.tenantId, service.id);
  const byAspect = new Map<string, Record<string, string>>();
  for (const a of content.availabilities) {
    const map = byAspect.get(a.aspectId) ?? {};
    map[a.timeBucket] = a.value;
    byAspect.set(a.aspectId, map);
  }
  const aspects = content.aspects
    .filter((a) => visibility === 'internal' || a.isPublic)
    .map((a) => ({
      id: a.id,
      title: a.title,
      description: a.description,
      is_public: a.isPublic,
      category_id: a.categoryId,
      position: a.position,
      availabilities: byAspect.get(a.id) ?? {},
    }));
  return {
    service: presentService(service),
    // A public snapshot names only the categories that hold a public aspect.
    categories: content.categories
      .filter((c) => visibility === 'internal' || aspects.some((a) => a.category_id === c.id))
      .map((c) => ({ id: c.id, name: c.name, position: c.position })),
    resolved_data: { aspects, timeline: service.timeline },
    taken_at: new Date().toISOString(),
  };
}

export interface TakeSnapshotInput {
  label: string;
  visibility: SnapshotVisibility;
  note: string;
  createdBy: string;
}

/** Stores a frozen copy of the service's catalog, with its audit row when an actor took it; it never changes afterwards. */
export async function takeSnapshot(db: Executor, service: ServiceRow, input: TakeSnapshotInput, actor?: AuditActor) {
  return db.transaction(async (tx) => {
    const data = await freezeCatalog(tx, service, input.visibility);
    const [row] = await tx
      .insert(snapshots)
      .values({ tenantId: service.tenantId, serviceId: service.id, ...input, data })
      .returning();
    if (actor !== undefined) {
      await writeAudit(tx, actor, {
        tenantId: service.tenantId,
        action: 'snapshot.create',
        targetType: 'service',
        targetId: service.id,
        details: { snapshotId: row!.id, label: row!.label, visibility: row!.visibility },
      });
    }
    return row;
  });
}

import { AVAILABILITY_VERSIONS, type Change } from '../../db/changes';
import { ASPECT_SEPARATOR, type ServiceContentJson } from '../../db/queries/catalogJson';

/**
 * The lists of a held /full body, kept apart so that the next version can be made from them when
 * only some aspects' availability texts changed (docs/decisions/0107-full-after-availability-writes.md):
 * each aspect's JSON object in display order, where each aspect id sits, and the other lists as
 * the database built them.
 */
export interface FullParts {
  /** The timeline the aspects' texts were read over, as JSON. */
  timeline: string;
  categories: string;
  aspects: readonly string[];
  /** Each aspect id's place in `aspects`. */
  index: ReadonlyMap<string, number>;
  roles: string;
  templates: string;
}

/** The parts of a body from the content statement's answer. */
export function partsOf(content: ServiceContentJson, timeline: string[]): FullParts {
  const aspects = content.aspects ? content.aspects.split(ASPECT_SEPARATOR) : [];
  const ids = content.aspectIds ? content.aspectIds.split(',') : [];
  if (ids.length !== aspects.length) throw new Error('the content statement answered as many aspect ids as aspects');
  return {
    timeline: JSON.stringify(timeline),
    categories: content.categories,
    aspects,
    index: new Map(ids.map((id, i) => [id, i])),
    roles: content.roles,
    templates: content.templates,
  };
}

/**
 * The parts with some aspects' JSON replaced; undefined when one of them has no place in the
 * parts (then the body must be built whole).
 */
export function withAspects(parts: FullParts, replaced: readonly { id: string; json: string }[]): FullParts | undefined {
  const aspects = parts.aspects.slice();
  for (const { id, json } of replaced) {
    const at = parts.index.get(id);
    if (at === undefined) return undefined;
    aspects[at] = json;
  }
  return { ...parts, aspects };
}

/** About how many bytes the parts hold (their text, counted once; the index is small beside it). */
export function partsBytes(parts: FullParts): number {
  let total = parts.timeline.length + parts.categories.length + parts.roles.length + parts.templates.length;
  for (const aspect of parts.aspects) total += aspect.length;
  return total + parts.index.size * 64;
}

/** Each service's versions most recently made by availability writes (of any process, as announced). */
const VERSIONS_PER_SERVICE = 256;

/**
 * The availability writes made, by service: which aspect each version of the service came from.
 * This process records its own writes once committed, and every process records the writes the
 * change stream announces (`hear`), its own and other processes'. A version that a write of any
 * other kind made, or one not yet heard of, is not here; a body can then only be built whole.
 */
export class AvailabilityChanges {
  private readonly services = new Map<string, Map<number, string>>();

  constructor(private readonly maxServices = 1_000) {}

  /**
   * Records the versions an announcement of availability writes names (server/db/changes.ts):
   * another process's writes, or this process's own heard once more.
   */
  hear(change: Change): void {
    if (change.table !== AVAILABILITY_VERSIONS || !change.availabilityVersions || change.tenants?.length !== 1) return;
    const tenantId = change.tenants[0]!;
    for (const v of change.availabilityVersions) this.record(tenantId, v.serviceId, v.version, v.aspectId);
  }

  /** Records that the service's `version` was made by a write to `aspectId`'s texts. */
  record(tenantId: string, serviceId: string, version: number, aspectId: string): void {
    const key = `${tenantId}:${serviceId}`;
    let versions = this.services.get(key);
    if (versions) this.services.delete(key);
    else versions = new Map();
    // Most recently written last; the service written longest ago goes first.
    this.services.set(key, versions);
    if (this.services.size > this.maxServices) this.services.delete(this.services.keys().next().value!);
    versions.set(version, aspectId);
    if (versions.size > VERSIONS_PER_SERVICE) versions.delete(versions.keys().next().value!);
  }

  /**
   * The aspects whose texts the versions after `from`, up to `to`, changed, when availability
   * writes made every one of those versions; undefined otherwise.
   */
  between(tenantId: string, serviceId: string, from: number, to: number): Set<string> | undefined {
    if (to <= from || to - from > VERSIONS_PER_SERVICE) return undefined;
    const versions = this.services.get(`${tenantId}:${serviceId}`);
    if (!versions) return undefined;
    const changed = new Set<string>();
    for (let v = from + 1; v <= to; v++) {
      const aspectId = versions.get(v);
      if (aspectId === undefined) return undefined;
      changed.add(aspectId);
    }
    return changed;
  }
}

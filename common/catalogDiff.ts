import { compareQuarters, isQuarter, quarterOf } from './quarters';

/**
 * What changed between two frozen catalogs (two snapshots, or a snapshot and the live catalog):
 * the one comparison behind the public pages' "what changed", the Atom feeds and
 * `GET /api/snapshots/compare` (docs/decisions/0122-comparing-snapshots.md). Aspects are matched
 * by id, so a renamed or moved aspect is one aspect, not one removed and one added.
 */

/** One aspect as a snapshot freezes it (server/commands/takeSnapshot.ts). */
export interface FrozenAspect {
  id: string;
  title: string;
  description: string;
  is_public: boolean;
  category_id: string;
  position: number;
  availabilities: Record<string, string>;
}

/** The part of a snapshot's `data` (or of the live catalog) a comparison reads. */
export interface FrozenCatalog {
  categories: { id: string; name: string; position: number }[];
  resolved_data: { aspects: FrozenAspect[]; timeline: string[] };
}

/**
 * The public aspects of a frozen catalog and the categories that hold any of them: what a public
 * snapshot of it would hold (a category of private aspects only is not named). An aspect of old
 * snapshot data without the flag counts as public, as it always did.
 */
export function publicPart<T extends FrozenCatalog>(catalog: T): T {
  if (!catalog.resolved_data?.aspects) return catalog;
  const aspects = catalog.resolved_data.aspects.filter((a) => a.is_public !== false);
  const held = new Set(aspects.map((a) => a.category_id));
  const categories = Array.isArray(catalog.categories) ? catalog.categories.filter((c) => held.has(c.id)) : catalog.categories;
  return { ...catalog, categories, resolved_data: { ...catalog.resolved_data, aspects } };
}

export interface DiffAspect {
  id: string;
  title: string;
  category: string;
}

export interface CellChange {
  aspect_id: string;
  title: string;
  category: string;
  quarter: string;
  /** '' when the cell was empty. */
  from: string;
  to: string;
  /** The quarter had begun when the comparison was made (the commitment could be checked). */
  started: boolean;
}

export interface CatalogDiff {
  counts: { added: number; removed: number; renamed: number; moved: number; cells: number; descriptions: number; total: number };
  added: DiffAspect[];
  removed: DiffAspect[];
  renamed: (DiffAspect & { from_title: string })[];
  moved: (DiffAspect & { from_category: string })[];
  descriptions: (DiffAspect & { from: string; to: string })[];
  cells: CellChange[];
  /** Quarters of either timeline that had begun when compared, oldest first. */
  started_quarters: string[];
  /** Cells of started quarters in aspects on both sides: as planned (held) or not (slipped). */
  commitments: { held: number; slipped: number };
}

function categoryNames(c: FrozenCatalog): Map<string, string> {
  return new Map(c.categories.map((x) => [x.id, x.name]));
}

/** The difference from `from` to `to`, in the order of `to`'s catalog (removed aspects in `from`'s). */
/** A frozen catalog as stored, whatever its age: missing parts read as empty. */
function normalise(c: Partial<FrozenCatalog> | null | undefined): FrozenCatalog {
  return {
    categories: Array.isArray(c?.categories) ? c.categories : [],
    resolved_data: {
      aspects: Array.isArray(c?.resolved_data?.aspects) ? c.resolved_data.aspects.map((a) => ({ ...a, availabilities: a.availabilities ?? {} })) : [],
      timeline: Array.isArray(c?.resolved_data?.timeline) ? c.resolved_data.timeline.filter(isQuarter) : [],
    },
  };
}

export function compareCatalogs(fromData: FrozenCatalog, toData: FrozenCatalog, now: Date = new Date()): CatalogDiff {
  const from = normalise(fromData);
  const to = normalise(toData);
  const fromCats = categoryNames(from);
  const toCats = categoryNames(to);
  const before = new Map(from.resolved_data.aspects.map((a) => [a.id, a]));
  const after = new Map(to.resolved_data.aspects.map((a) => [a.id, a]));
  const quarters = [...new Set([...from.resolved_data.timeline, ...to.resolved_data.timeline])].sort(compareQuarters);
  const thisQuarter = quarterOf(now);
  const started = new Set(quarters.filter((q) => compareQuarters(q, thisQuarter) <= 0));
  const ordered = (c: FrozenCatalog) => {
    const pos = new Map(c.categories.map((x) => [x.id, x.position]));
    return [...c.resolved_data.aspects].sort((a, b) => (pos.get(a.category_id) ?? 0) - (pos.get(b.category_id) ?? 0) || a.position - b.position);
  };

  const diff: CatalogDiff = {
    counts: { added: 0, removed: 0, renamed: 0, moved: 0, cells: 0, descriptions: 0, total: 0 },
    added: [],
    removed: [],
    renamed: [],
    moved: [],
    descriptions: [],
    cells: [],
    started_quarters: [...started],
    commitments: { held: 0, slipped: 0 },
  };
  for (const a of ordered(to)) {
    const category = toCats.get(a.category_id) ?? '';
    const base = { id: a.id, title: a.title, category };
    const old = before.get(a.id);
    if (!old) {
      diff.added.push(base);
      continue;
    }
    if (old.title !== a.title) diff.renamed.push({ ...base, from_title: old.title });
    const oldCategory = fromCats.get(old.category_id) ?? '';
    if (old.category_id !== a.category_id) diff.moved.push({ ...base, from_category: oldCategory });
    if (old.description !== a.description) diff.descriptions.push({ ...base, from: old.description, to: a.description });
    for (const quarter of quarters) {
      const was = old.availabilities[quarter] ?? '';
      const is = a.availabilities[quarter] ?? '';
      const begun = started.has(quarter);
      if (begun && was !== '') {
        if (was === is) diff.commitments.held++;
        else diff.commitments.slipped++;
      }
      if (was !== is) diff.cells.push({ aspect_id: a.id, title: a.title, category, quarter, from: was, to: is, started: begun });
    }
  }
  for (const a of ordered(from)) {
    if (!after.has(a.id)) diff.removed.push({ id: a.id, title: a.title, category: fromCats.get(a.category_id) ?? '' });
  }
  const c = diff.counts;
  c.added = diff.added.length;
  c.removed = diff.removed.length;
  c.renamed = diff.renamed.length;
  c.moved = diff.moved.length;
  c.cells = diff.cells.length;
  c.descriptions = diff.descriptions.length;
  c.total = c.added + c.removed + c.renamed + c.moved + c.cells + c.descriptions;
  return diff;
}

/** One line that sums a difference up ("2 aspects added, 1 removed, 3 cells changed"), or that nothing changed. */
export function summarizeDiff(diff: CatalogDiff): string {
  const c = diff.counts;
  const parts: string[] = [];
  const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  if (c.added) parts.push(`${n(c.added, 'aspect', 'aspects')} added`);
  if (c.removed) parts.push(`${n(c.removed, 'aspect', 'aspects')} removed`);
  if (c.renamed) parts.push(`${n(c.renamed, 'aspect', 'aspects')} renamed`);
  if (c.moved) parts.push(`${n(c.moved, 'aspect', 'aspects')} moved`);
  if (c.cells) parts.push(`${n(c.cells, 'availability', 'availabilities')} changed`);
  if (c.descriptions) parts.push(`${n(c.descriptions, 'description', 'descriptions')} changed`);
  return parts.length ? parts.join(', ') : 'No changes';
}

import { htmlToText } from '../../../common/richText';
import type { Aspect, CatalogGroup, Category } from '../../api/catalog';

export interface SearchableCatalog {
  groups: CatalogGroup[];
  /** Lowercased search text of each aspect (title and plain description), computed once per load. */
  text: Map<string, string>;
  /**
   * Lowercased availability texts of each aspect, by quarter of the timeline, computed once per
   * load: a search matches them only for the quarters the view shows.
   */
  availability: Map<string, Record<string, string>>;
}

const byPosition = <T extends { position: number }>(a: T, b: T) => a.position - b.position;

/** Categories in order, each with its aspects in order. */
export function groupCatalog(categories: Category[], aspects: Aspect[], timeline: readonly string[] = []): SearchableCatalog {
  const byCategory = new Map<string, Aspect[]>();
  const text = new Map<string, string>();
  const availability = new Map<string, Record<string, string>>();
  for (const aspect of aspects) {
    const list = byCategory.get(aspect.category_id) ?? [];
    list.push(aspect);
    byCategory.set(aspect.category_id, list);
    text.set(aspect.id, `${aspect.title}\n${htmlToText(aspect.description)}`.toLowerCase());
    const values: Record<string, string> = {};
    for (const quarter of timeline) {
      const value = aspect.availabilities[quarter];
      if (value) values[quarter] = value.toLowerCase();
    }
    availability.set(aspect.id, values);
  }
  const groups = [...categories].sort(byPosition).map((category) => ({
    category,
    aspects: (byCategory.get(category.id) ?? []).sort(byPosition),
  }));
  return { groups, text, availability };
}

/**
 * Search: a category whose name matches keeps all its aspects; otherwise only the aspects whose
 * title, description or availability text in one of `quarters` (the quarters the view shows)
 * match remain, and a category left without any is hidden.
 */
export function filterCatalog(catalog: SearchableCatalog, query: string, quarters: readonly string[] = []): CatalogGroup[] {
  const q = query.trim().toLowerCase();
  if (!q) return catalog.groups;
  const matches = (a: Aspect) => {
    if (catalog.text.get(a.id)?.includes(q)) return true;
    const values = catalog.availability.get(a.id);
    return values !== undefined && quarters.some((quarter) => values[quarter]?.includes(q));
  };
  const out: CatalogGroup[] = [];
  for (const group of catalog.groups) {
    if (group.category.name.toLowerCase().includes(q)) {
      out.push(group);
      continue;
    }
    const aspects = group.aspects.filter(matches);
    if (aspects.length) out.push({ category: group.category, aspects });
  }
  return out;
}

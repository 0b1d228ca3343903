import { describe, expect, it } from 'vitest';
import type { Aspect, Category } from '../../api/catalog';
import { filterCatalog, groupCatalog } from './catalogGroups';

const category: Category = { id: 'c1', name: 'Core', position: 0 };
const aspect = (id: string, title: string, availabilities: Record<string, string>): Aspect => ({
  id,
  title,
  description: '<p>About it</p>',
  is_public: true,
  category_id: category.id,
  position: Number(id.slice(1)),
  version: 1,
  availabilities,
});

const timeline = ['2026-Q1', '2026-Q2', '2026-Q3'];
const catalog = groupCatalog(
  [category],
  [
    aspect('a1', 'Mobile app', { '2026-Q1': 'Beta', '2026-Q3': 'Pilot for staff' }),
    aspect('a2', 'Web portal', { '2026-Q2': 'Available', '2024-Q1': 'Pilot long ago' }),
  ],
  timeline,
);
const titles = (query: string, quarters: string[]) => filterCatalog(catalog, query, quarters).flatMap((g) => g.aspects.map((a) => a.title));

describe('filterCatalog', () => {
  it('finds an availability text in any quarter of the timeline (the roadmap)', () => {
    expect(titles('PILOT', timeline)).toEqual(['Mobile app']);
    expect(titles('available', timeline)).toEqual(['Web portal']);
  });

  it('finds an availability text only in the quarter shown (the current view)', () => {
    expect(titles('pilot', ['2026-Q1'])).toEqual([]);
    expect(titles('pilot', ['2026-Q3'])).toEqual(['Mobile app']);
  });

  it('ignores texts of quarters outside the timeline, and still matches titles and descriptions', () => {
    expect(titles('long ago', timeline)).toEqual([]);
    expect(titles('web', ['2026-Q1'])).toEqual(['Web portal']);
    expect(titles('about it', [])).toEqual(['Mobile app', 'Web portal']);
  });
});

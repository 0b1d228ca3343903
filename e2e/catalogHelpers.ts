import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { expect, ADMIN, apiAs, signIn } from './fixtures';

/** Seeding and lookups shared by the catalog journeys. */
export const unique = () => `${Date.now()}${Math.floor(Math.random() * 1000)}`;

export type Api = Awaited<ReturnType<typeof apiAs>>;

export interface Seeded {
  serviceId: string;
  categoryId: string;
  aspectIds: string[];
}

/** A service with one category holding the given aspects (title, public?), seeded through the API. */
export async function seedService(api: Api, name: string, aspects: { title: string; isPublic?: boolean; description?: string }[]): Promise<Seeded> {
  const { service } = await api.send('POST', '/services', { name, slug: `svc-${unique()}` });
  const { category } = await api.send('POST', '/categories', { serviceId: service.id, name: `Group of ${name}`, position: 0 });
  const aspectIds: string[] = [];
  for (const a of aspects) {
    const { aspect } = await api.send('POST', '/aspects', {
      serviceId: service.id,
      categoryId: category.id,
      title: a.title,
      description: a.description ?? `<p>About ${a.title}</p>`,
      isPublic: a.isPublic ?? true,
    });
    aspectIds.push(aspect.id);
  }
  return { serviceId: service.id, categoryId: category.id, aspectIds };
}

export async function adminApi(request: APIRequestContext) {
  return apiAs(request, ADMIN.email, ADMIN.password);
}

export async function openCatalog(page: Page, serviceId: string, email = ADMIN.email, password = ADMIN.password) {
  await signIn(page, email, password, `/catalog/${serviceId}`);
  await expect(page.getByTestId('roadmap-table')).toBeVisible();
}

export function rowTitles(page: Page): Promise<string[]> {
  return page
    .getByTestId('aspect-row')
    .locator('th')
    .evaluateAll((cells) => cells.map((c) => c.querySelector('.roadmap-title-button, .roadmap-title')?.textContent ?? ''));
}

export function row(page: Page, title: string): Locator {
  return page.getByTestId('aspect-row').filter({ has: page.getByText(title, { exact: true }) });
}

/**
 * What a table's panel shows: the empty gaps and the aspect rows in view below its headings (rows
 * far from the view are not in the page: the window puts them in as the panel scrolls to them), a
 * step that scrolls the rows in view most of the way out, and how far the panel scrolls.
 */
export function panelView(page: Page, region: string) {
  return page.getByRole('region', { name: region, exact: true }).evaluate((el) => {
    const box = el.getBoundingClientRect();
    // The headings stick to the panel's top (their cells do; the thead's own box scrolls away).
    const top = el.querySelector('thead th')?.getBoundingClientRect().bottom ?? box.top;
    const bottom = Math.min(box.bottom, innerHeight);
    const visible = (row: Element) => {
      const r = row.getBoundingClientRect();
      return r.bottom > top && r.top < bottom;
    };
    const rows = [...el.querySelectorAll('tr[data-testid="aspect-row"], tr[data-testid="current-row"]')].filter(visible);
    return {
      gaps: [...el.querySelectorAll('tr.roadmap-gap')].filter(visible).length,
      rows: rows.map((row) => ({
        index: row.getAttribute('aria-rowindex')!,
        title: row.querySelector('.roadmap-title-button, .roadmap-title')?.textContent ?? '',
      })),
      step: Math.max(80, Math.floor((bottom - top) * 0.6)),
      end: el.scrollHeight - el.clientHeight,
    };
  });
}

/** Each aspect row in a table panel's page, by aria-rowindex: its top within the table, fractions of a pixel included. */
export function rowOffsets(page: Page, region: string): Promise<Record<string, number>> {
  return page.getByRole('region', { name: region, exact: true }).evaluate((el) => {
    const top = el.querySelector('table')!.getBoundingClientRect().top;
    const rows = [...el.querySelectorAll('tr[data-testid="aspect-row"], tr[data-testid="current-row"]')];
    return Object.fromEntries(rows.map((row) => [row.getAttribute('aria-rowindex')!, row.getBoundingClientRect().top - top]));
  });
}

/** The panel's view once the window has followed its scrolling: no empty gap is left in view. */
export async function settledView(page: Page, region: string) {
  await expect.poll(async () => (await panelView(page, region)).gaps).toBe(0);
  return panelView(page, region);
}

/**
 * Scrolls a table's panel from its top to its end, most of a view at a time, and calls `atEachStop`
 * at each position once the window has followed (no gap left in view).
 */
export async function scrollThrough(page: Page, region: string, atEachStop: (view: Awaited<ReturnType<typeof panelView>>) => Promise<void>): Promise<void> {
  const panel = page.getByRole('region', { name: region, exact: true });
  await panel.evaluate((el) => el.scrollIntoView({ block: 'start' }));
  for (let top = 0; ;) {
    await panel.evaluate((el, y) => (el.scrollTop = y), top);
    const view = await settledView(page, region);
    await atEachStop(view);
    if (top >= view.end) return;
    top = Math.min(view.end, top + view.step);
  }
}

/**
 * Scrolls a table's panel from its top to its end and hands every aspect row to `visit` once, while
 * it is in view. Returns how many rows it visited.
 */
export async function visitEveryRow(page: Page, region: string, visit: (row: Locator) => Promise<void>): Promise<number> {
  const panel = page.getByRole('region', { name: region, exact: true });
  const visited = new Set<string>();
  await scrollThrough(page, region, async ({ rows }) => {
    for (const { index } of rows.filter((r) => !visited.has(r.index))) {
      visited.add(index);
      await visit(panel.locator(`tr[aria-rowindex="${index}"]`));
    }
  });
  return visited.size;
}

/** A service like seedService's whose timeline runs `quarters` quarters from 2030-Q1, each aspect with a value in every quarter. */
export async function seedTimelineService(api: Api, name: string, quarters: number, titles: string[]): Promise<Seeded & { timeline: string[] }> {
  const seeded = await seedService(
    api,
    name,
    titles.map((title) => ({ title, description: `<p>What ${title} offers to the people who use it every day.</p>` })),
  );
  const last = `${2030 + Math.floor((quarters - 1) / 4)}-Q${((quarters - 1) % 4) + 1}`;
  const { service } = await api.send('PUT', `/services/${seeded.serviceId}`, { name, timeline: { first: '2030-Q1', last } });
  const timeline = service.timeline as string[];
  expect(timeline).toHaveLength(quarters);
  for (const aspectId of seeded.aspectIds) {
    for (const q of timeline) await api.send('POST', '/availabilities', { aspectId, timeBucket: q, value: `Ready in ${q}` });
  }
  return { ...seeded, timeline };
}

/**
 * Where the roadmap's panel stands sideways: the quarters fully in view (between the Aspect column,
 * which stays in place, and the panel's right edge), how many are not, and where the Aspect heading
 * and the first row's Aspect cell sit within the panel.
 */
export function quarterView(page: Page) {
  return page.getByRole('region', { name: 'Roadmap', exact: true }).evaluate((el) => {
    const box = el.getBoundingClientRect();
    const aspect = el.querySelector('thead .roadmap-aspect-col')!.getBoundingClientRect();
    const right = box.left + el.clientLeft + el.clientWidth;
    const quarters = [...el.querySelectorAll('thead .roadmap-bucket-col')].map((th) => {
      const r = th.getBoundingClientRect();
      return { label: th.textContent ?? '', inView: r.left >= aspect.right - 1 && r.right <= right + 1 };
    });
    const cell = el.querySelector('tr[data-testid="aspect-row"] .roadmap-aspect-cell')!.getBoundingClientRect();
    return {
      inView: quarters.filter((q) => q.inView).map((q) => q.label),
      hidden: quarters.filter((q) => !q.inView).length,
      scrollLeft: el.scrollLeft,
      maxScroll: el.scrollWidth - el.clientWidth,
      // Within the panel: the page around it may move as the bar above it wraps differently.
      heading: { x: aspect.x - box.x, y: aspect.y - box.y },
      cell: { x: cell.x - box.x, y: cell.y - box.y },
    };
  });
}

/**
 * Moves the row `title` one place down with the keyboard: Space picks it up, the arrow moves it,
 * Space drops it. Each key waits until the page took the one before: the handle shows it is picked
 * up, then the announcement names the position it is over (`position` of `of` in its category).
 */
export async function moveDownByKeyboard(page: Page, title: string, over: { position: number; of: number }) {
  const handle = page.getByRole('button', { name: `Reorder ${title}` });
  await handle.focus();
  await page.keyboard.press('Space');
  await expect(handle).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('ArrowDown');
  await expect(page.locator('[id^="DndLiveRegion"]').filter({ hasText: `${title} is over position ${over.position} of ${over.of}.` })).toHaveCount(1);
  await page.keyboard.press('Space');
}

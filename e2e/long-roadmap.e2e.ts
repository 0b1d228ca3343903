import { gzipSync } from 'node:zlib';
import type { Page } from '@playwright/test';
import { ADMIN, apiAs, expect, expectAccessible, test } from './fixtures';
import { moveDownByKeyboard, openCatalog, rowOffsets, rowTitles, scrollThrough, settledView, unique } from './catalogHelpers';

/**
 * A long roadmap has only the rows near the viewport in the page (the others are empty gaps as tall
 * as they are); these journeys check that a person never notices: the table counts every row, rows
 * scrolled or tabbed to show their cells, and the order stays the catalog's.
 */
const ASPECTS = 300;
/** The heading row, then each of the 10 categories' rows and its aspects' rows. */
const ARIA_ROWS = 1 + 10 + ASPECTS;
const TIMELINE = ['2030-Q1', '2030-Q2', '2030-Q3', '2030-Q4'];

/** A service of ASPECTS aspects in 10 categories, imported through the API as a .catalog file. */
async function importLongService(page: Page): Promise<{ id: string; titles: string[] }> {
  const { session } = await apiAs(page.request, ADMIN.email, ADMIN.password);
  const stamp = unique();
  const categories = Array.from({ length: 10 }, (_, i) => ({ id: `c${i}`, name: `Area ${i}`, position: i }));
  const aspects = Array.from({ length: ASPECTS }, (_, i) => ({
    id: `a${i}`,
    category_id: `c${Math.floor(i / 30)}`,
    title: `Capability ${String(i).padStart(3, '0')}`,
    description: `<p>What capability ${i} offers, with <strong>details</strong>.</p><ul><li>First point</li><li>Second point</li></ul>`,
    is_public: true,
    position: i % 30,
  }));
  const doc = {
    format: 'service-catalog',
    version: 1,
    service: {
      name: `Long ${stamp}`,
      slug: `long-${stamp}`,
      description: '<p>Many aspects</p>',
      service_owner: 'Owner',
      subscription_model: 'Included',
      icon_url: null,
      timeline: TIMELINE,
    },
    categories,
    aspects,
    availabilities: aspects.flatMap((a, i) => TIMELINE.map((q) => ({ aspect_id: a.id, time_bucket: q, value: `Level ${i} in ${q}` }))),
    roles: [],
    templates: [],
  };
  const res = await page.request.post('/api/services/import', {
    headers: { authorization: `Bearer ${session.token}` },
    multipart: { file: { name: 'long.catalog', mimeType: 'application/octet-stream', buffer: gzipSync(Buffer.from(JSON.stringify(doc))) } },
  });
  expect(res.status(), await res.text()).toBe(201);
  const { service } = await res.json();
  return { id: service.id, titles: aspects.map((a) => a.title) };
}

/** The titles of the rows in view, once the window has followed the scrolling (no gap left in view). */
async function rowsInView(page: Page): Promise<string[]> {
  return (await settledView(page, 'Roadmap')).rows.map((row) => row.title);
}

/**
 * Every row in the page says where it sits among all the table's rows: one more than the row
 * before, or further after a gap. The rows are read in one pass, once the window has stopped
 * following the scrolling (it may add rows between two reads).
 */
async function expectRowIndices(page: Page) {
  const read = () =>
    page.locator('table').evaluateAll((tables) => {
      const rows = tables.flatMap((t) => [...t.querySelectorAll('tr:not([aria-hidden])')]);
      const indices = rows.map((r) => Number(r.getAttribute('aria-rowindex')));
      return {
        first: indices[0],
        increasing: indices.every((n, i) => i === 0 || n > indices[i - 1]!),
        withoutIndex: indices.filter((n) => !(n > 0)).length,
      };
    });
  await expect.poll(read).toEqual({ first: 1, increasing: true, withoutIndex: 0 });
}

test.describe('A long roadmap', () => {
  test.describe.configure({ timeout: 120_000 });

  test('counts every row and shows the cells of the rows scrolled to', async ({ page }) => {
    const { id, titles } = await importLongService(page);
    await openCatalog(page, id);
    const table = page.getByTestId('roadmap-table');
    await expect(table).toHaveAttribute('aria-rowcount', String(ARIA_ROWS));
    await expect(page.getByRole('button', { name: `Capability 000, ${TIMELINE[0]}: Level 0 in ${TIMELINE[0]}` })).toBeVisible();
    // The rows in the page are the first ones, in order, and fewer than all of them.
    const first = await rowTitles(page);
    expect(first.length).toBeLessThan(ASPECTS);
    expect(first).toEqual(titles.slice(0, first.length));
    await expectRowIndices(page);

    // A search that leaves nothing, then cleared: every row comes back, those in view with their cells.
    const search = page.getByPlaceholder('Search aspects...');
    await search.fill('no capability is called this');
    await expect(page.getByText('No matching aspects found')).toBeVisible();
    await search.fill('');
    await expect(table).toHaveAttribute('aria-rowcount', String(ARIA_ROWS));
    await expect(page.getByRole('button', { name: `Capability 010, ${TIMELINE[3]}: Level 10 in ${TIMELINE[3]}` })).toBeVisible();

    // The table scrolls in its own panel. Scrolled to its end, then back up to its middle, the
    // rows in view are in full, in order, with their cells; no gap is left in view.
    const panel = page.getByRole('region', { name: 'Roadmap' });
    await panel.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    let middle = 0;
    for (const part of [1, 0.5]) {
      await panel.evaluate((el, p) => (el.scrollTop = (el.scrollHeight - el.clientHeight) * p), part);
      const shown = await rowsInView(page);
      expect(shown.length).toBeGreaterThan(0);
      const at = titles.indexOf(shown[0]!);
      expect(shown).toEqual(titles.slice(at, at + shown.length));
      if (part === 1) expect(shown.at(-1)).toBe(titles[ASPECTS - 1]);
      else {
        expect(at).toBeGreaterThan(ASPECTS / 4);
        middle = at;
      }
      const title = shown[0]!;
      await expect(page.getByRole('button', { name: `${title}, ${TIMELINE[3]}: Level ${at} in ${TIMELINE[3]}` })).toBeVisible();
      await expect(page.getByRole('button', { name: `Reorder ${title}` })).toBeVisible();
      await expectRowIndices(page);
    }
    await expectAccessible(page, 'long roadmap, scrolled');

    // A row scrolled to, far down the table, moves with the keyboard like any other: Space picks
    // it up, the arrow moves it, Space drops it (within its category of 30).
    const pick = middle % 30 === 29 ? middle + 1 : middle;
    await moveDownByKeyboard(page, titles[pick]!, { position: (pick % 30) + 2, of: 30 });
    await expect
      .poll(async () => (await rowsInView(page)).filter((t) => t === titles[pick] || t === titles[pick + 1]))
      .toEqual([titles[pick + 1], titles[pick]]);

    // Scrolled to its last row, the panel still shows its column headings at its top, and the
    // page's end shows the whole panel.
    await panel.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await expect(page.getByText(titles[ASPECTS - 1]!, { exact: true })).toBeInViewport();
    const heading = panel.getByRole('columnheader', { name: 'Aspect', exact: true });
    await expect(heading).toBeInViewport();
    const [panelBox, headingBox] = [await panel.boundingBox(), await heading.boundingBox()];
    expect(Math.abs(headingBox!.y - panelBox!.y)).toBeLessThanOrEqual(2);
    await page.evaluate(() => window.scrollTo(0, document.scrollingElement!.scrollHeight));
    await expect(heading).toBeInViewport();
    await expect(page.getByTestId('footer-tenant')).toBeInViewport();

    // The current view counts every row too, and shows the last one at its end.
    await page.locator('label', { hasText: /^Current$/ }).click();
    await expect(page.getByTestId('current-table')).toHaveAttribute('aria-rowcount', String(ARIA_ROWS));
    // The panel scrolled to its end, and the page to the panel's end (the first-steps hint above
    // the table may leave its end below the screen): the last row is in view.
    await page.getByRole('region', { name: 'Current availability' }).evaluate((el) => (el.scrollTop = el.scrollHeight));
    await page.evaluate(() => window.scrollTo(0, document.scrollingElement!.scrollHeight));
    await expect(page.getByText(titles[ASPECTS - 1]!, { exact: true })).toBeInViewport();
    await expect(page.getByTestId('current-row').last()).toContainText(`Availability:`);
    await expectRowIndices(page);
  });

  test('rows stay where they are while the rows around them leave and enter the page', async ({ page }) => {
    // A row that leaves the page becomes part of a gap exactly as tall as it was, to the fraction
    // of a pixel: the rows after it do not move, so nothing in view jumps and the browser does not
    // paint what is in view again at every step of the window.
    const { id } = await importLongService(page);
    await openCatalog(page, id);
    for (const [view, region] of [
      ['Roadmap', 'Roadmap'],
      ['Current', 'Current availability'],
    ] as const) {
      await page.locator('label', { hasText: new RegExp(`^${view}$`) }).click();
      const first = new Map<string, number>();
      let compared = 0;
      await scrollThrough(page, region, async () => {
        for (const [index, offset] of Object.entries(await rowOffsets(page, region))) {
          const before = first.get(index);
          if (before === undefined) first.set(index, offset);
          else {
            expect(offset, `${view}: the row at aria-rowindex ${index} moved`).toBeCloseTo(before, 2);
            compared++;
          }
        }
      });
      expect(first.size).toBe(ASPECTS);
      expect(compared).toBeGreaterThan(ASPECTS);
    }
  });

  test('the keyboard walks the rows in order, far beyond the first screen', async ({ page }) => {
    const { id, titles } = await importLongService(page);
    await openCatalog(page, id);
    // The roadmap is a grid with one tab stop: the arrow keys walk its rows, the windowed ones too.
    await page.getByRole('button', { name: `Capability 000, ${TIMELINE[0]}: Level 0 in ${TIMELINE[0]}` }).focus();
    const seen: string[] = [];
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('ArrowDown');
      const title = await page.evaluate(
        () => document.activeElement?.closest('[data-testid="aspect-row"]')?.querySelector('.roadmap-title-button')?.textContent ?? null,
      );
      if (title && seen.at(-1) !== title) seen.push(title);
    }
    expect(seen.length).toBeGreaterThan(55);
    expect(seen).toEqual(titles.slice(1, seen.length + 1));
    // Far below, the focused cell is in view and the tab stop is still one.
    await expect(page.locator(':focus')).toBeInViewport();
    expect(await page.getByTestId('roadmap-table').locator('[tabindex="0"]').count()).toBe(1);
    // Ctrl+End reaches the last row through the gaps; Ctrl+Home comes back to the top.
    await page.keyboard.press('Control+End');
    await expect(page.getByRole('button', { name: new RegExp(`^${titles[ASPECTS - 1]}, ${TIMELINE.at(-1)}:`) })).toBeFocused();
    await page.keyboard.press('Control+Home');
    await expect(page.locator(':focus')).toHaveAttribute('data-cell', /^category:/);

    // A selected block and the focus stay when their rows scroll out of the page and back.
    await page.getByRole('button', { name: `Capability 002, ${TIMELINE[1]}: Level 2 in ${TIMELINE[1]}` }).focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+ArrowRight');
    await expect(page.locator('td.roadmap-selected')).toHaveCount(8);
    const panel = page.getByRole('region', { name: 'Roadmap', exact: true });
    await panel.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await expect(page.getByText(titles[ASPECTS - 1]!, { exact: true })).toBeInViewport();
    await panel.evaluate((el) => (el.scrollTop = 0));
    await expect(page.locator('td.roadmap-selected')).toHaveCount(8);
    await expect(page.getByRole('button', { name: `Capability 005, ${TIMELINE[2]}: Level 5 in ${TIMELINE[2]}` })).toBeFocused();
  });
});

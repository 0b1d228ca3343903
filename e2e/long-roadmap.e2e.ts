import { gzipSync } from 'node:zlib';
import type { Page } from '@playwright/test';
import { ADMIN, apiAs, expect, expectAccessible, test } from './fixtures';
import { openCatalog, rowTitles, unique } from './catalogHelpers';

/**
 * A long roadmap renders only the rows near the viewport in full (the others show their title);
 * these journeys check that a person never notices: every row is in the page, rows scrolled or
 * tabbed to show their cells, and the order stays the catalog's.
 */
const ASPECTS = 300;
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
    service: { name: `Long ${stamp}`, slug: `long-${stamp}`, description: '<p>Many aspects</p>', service_owner: 'Owner', subscription_model: 'Included', icon_url: null, timeline: TIMELINE },
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

test.describe('A long roadmap', () => {
  test.describe.configure({ timeout: 120_000 });

  test('keeps every row in the page and shows the cells of the rows scrolled to', async ({ page }) => {
    const { id, titles } = await importLongService(page);
    await openCatalog(page, id);
    await expect(page.getByTestId('aspect-row')).toHaveCount(ASPECTS);
    expect(await rowTitles(page)).toEqual(titles);
    await expect(page.getByRole('button', { name: `Capability 000, ${TIMELINE[0]}: Level 0 in ${TIMELINE[0]}` })).toBeVisible();

    // A search that leaves nothing, then cleared: every row comes back, those in view with their cells.
    const search = page.getByPlaceholder('Search aspects...');
    await search.fill('no capability is called this');
    await expect(page.getByText('No matching aspects found')).toBeVisible();
    await search.fill('');
    await expect(page.getByTestId('aspect-row')).toHaveCount(ASPECTS);
    await expect(page.getByRole('button', { name: `Capability 010, ${TIMELINE[3]}: Level 10 in ${TIMELINE[3]}` })).toBeVisible();

    // The last row, scrolled to, shows its cells; so does one in the middle, scrolled back up to.
    for (const i of [ASPECTS - 1, ASPECTS / 2]) {
      const title = titles[i]!;
      await page.getByText(title, { exact: true }).scrollIntoViewIfNeeded();
      await expect(page.getByRole('button', { name: `${title}, ${TIMELINE[3]}: Level ${i} in ${TIMELINE[3]}` })).toBeVisible();
      await expect(page.getByRole('button', { name: `Reorder ${title}` })).toBeVisible();
    }
    await expectAccessible(page, 'long roadmap, scrolled');

    // The table scrolls in its own panel, shorter than the window: scrolled to its last row, the
    // panel still shows its column headings at its top, and the page's end shows the whole panel.
    const panel = page.getByRole('region', { name: 'Roadmap' });
    await panel.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await panel.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await expect(page.getByText(titles[ASPECTS - 1]!, { exact: true })).toBeInViewport();
    const heading = panel.getByRole('columnheader', { name: 'Aspect', exact: true });
    await expect(heading).toBeInViewport();
    const [panelBox, headingBox] = [await panel.boundingBox(), await heading.boundingBox()];
    expect(Math.abs(headingBox!.y - panelBox!.y)).toBeLessThanOrEqual(2);
    await page.evaluate(() => window.scrollTo(0, document.scrollingElement!.scrollHeight));
    await expect(heading).toBeInViewport();
    await expect(page.getByTestId('footer-tenant')).toBeInViewport();

    // The current view keeps every row too.
    await page.locator('label', { hasText: /^Current$/ }).click();
    await expect(page.getByTestId('current-row')).toHaveCount(ASPECTS);
    await page.getByText(titles[ASPECTS - 1]!, { exact: true }).scrollIntoViewIfNeeded();
    await expect(page.getByTestId('current-row').last()).toContainText(`Availability:`);
  });

  test('the keyboard walks the rows in order, far beyond the first screen', async ({ page }) => {
    const { id, titles } = await importLongService(page);
    await openCatalog(page, id);
    await page.getByRole('button', { name: 'Capability 000', exact: true }).focus();
    // Each row holds its drag handle, its title and one button per quarter.
    const seen: string[] = [];
    for (let i = 0; i < 45 * (TIMELINE.length + 2); i++) {
      await page.keyboard.press('Tab');
      const title = await page.evaluate(() => document.activeElement?.closest('[data-testid="aspect-row"]')?.querySelector('.roadmap-title-button')?.textContent ?? null);
      if (title && seen.at(-1) !== title) seen.push(title);
    }
    expect(seen.length).toBeGreaterThan(40);
    expect(seen).toEqual(titles.slice(0, seen.length));
  });
});

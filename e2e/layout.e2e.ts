import { copyFileSync, mkdirSync } from 'node:fs';
import type { Locator, Page } from '@playwright/test';
import { ADMIN, FIRST_TENANT, apiAs, expect, expectAccessible, loginThroughPage, test } from './fixtures';
import { adminApi, openCatalog, quarterView, seedTimelineService, unique } from './catalogHelpers';

/**
 * The catalog's layout on a laptop and on a phone: the roadmap's quarters beyond the panel's edge
 * are announced and reachable every way, the header never clips a control, and the current view
 * reads as a list on a phone.
 */
const SCREENS = [
  { width: 1440, height: 900 },
  { width: 1280, height: 720 },
  { width: 390, height: 844 },
  { width: 320, height: 640 },
];
const PHONES = SCREENS.filter((s) => s.width < 400);

const sized = (s: { width: number; height: number }) => `${s.width}x${s.height}`;

/** A name of exactly 120 characters, words and one long unbroken run included. */
const longName = (start: string) => `${start} ${'Supercalifragilisticexpialidocious'} ${'with a very long descriptive name indeed '.repeat(4)}`.slice(0, 120);

async function demoServiceId(page: Page): Promise<string> {
  const api = await apiAs(page.request, ADMIN.email, ADMIN.password);
  const { services } = (await api.send('GET', '/services')) as { services: { id: string; name: string }[] };
  const demo = services.find((s) => s.name === 'Demo');
  expect(demo, 'the Demo service').toBeTruthy();
  return demo!.id;
}

/** The number in the status above the roadmap ('3 more quarters →'), 0 when it names none. */
async function cueCounts(page: Page) {
  const text = (await page.getByTestId('quarters-status').textContent()) ?? '';
  const more = /(\d+) more quarters? →/.exec(text);
  const earlier = /← (\d+) earlier quarters?/.exec(text);
  return { text, more: more ? Number(more[1]) : 0, earlier: earlier ? Number(earlier[1]) : 0 };
}

/** The status and the edge cues say as many quarters are out of view as the panel really hides. */
async function expectCueMatches(page: Page, context: string) {
  await expect
    .poll(
      async () => {
        const [view, cue] = [await quarterView(page), await cueCounts(page)];
        return cue.more + cue.earlier - view.hidden;
      },
      { message: `${context}: the status counts the quarters out of view` },
    )
    .toBe(0);
  const { more, earlier } = await cueCounts(page);
  const edge = page.getByTestId('quarters-more-cue');
  if (more > 0) await expect(edge, context).toHaveText(`${more} more →`);
  else await expect(edge, context).toHaveCount(0);
  const start = page.getByTestId('quarters-earlier-cue');
  if (earlier > 0) await expect(start, context).toHaveText(`← ${earlier} earlier`);
  else await expect(start, context).toHaveCount(0);
}

/**
 * Moves the roadmap sideways with `step` until nothing more lies to the right, and returns every
 * quarter seen fully in view on the way; the Aspect column and the heading row never move.
 */
async function walkQuarters(page: Page, context: string, step: () => Promise<void>): Promise<Set<string>> {
  const start = await quarterView(page);
  const seen = new Set(start.inView);
  for (let i = 0; i < 40; i++) {
    const before = await quarterView(page);
    if (before.scrollLeft >= before.maxScroll - 1) break;
    await step();
    await expect.poll(async () => (await quarterView(page)).scrollLeft, { message: `${context}: the panel moves sideways` }).toBeGreaterThan(before.scrollLeft);
    const after = await quarterView(page);
    after.inView.forEach((q) => seen.add(q));
    expect(after.heading, `${context}: the heading row and Aspect column stay in place`).toEqual(start.heading);
    expect(after.cell.x, `${context}: the Aspect column stays in place`).toBeCloseTo(start.cell.x, 0);
  }
  return seen;
}

async function backToStart(page: Page) {
  await page.getByRole('region', { name: 'Roadmap', exact: true }).evaluate((el) => (el.scrollLeft = 0));
  await expect.poll(async () => (await quarterView(page)).scrollLeft).toBe(0);
}

test.describe('The roadmap scrolls sideways', () => {
  test.describe.configure({ timeout: 240_000 });

  test('every quarter is reachable by the buttons, the keyboard and Shift with the wheel, and the cue counts those out of view', async ({ page }) => {
    const api = await adminApi(page.request);
    const twelve = await seedTimelineService(api, `Twelve quarters ${unique()}`, 12, ['Single sign-on', 'Reporting']);
    const services = [
      { id: await demoServiceId(page), quarters: 8 },
      { id: twelve.serviceId, quarters: 12 },
    ];
    await openCatalog(page, services[0]!.id);
    for (const screen of SCREENS) {
      await page.setViewportSize(screen);
      for (const service of services) {
        const context = `${service.quarters} quarters at ${sized(screen)}`;
        await page.goto(`/catalog/${service.id}`);
        const panel = page.getByRole('region', { name: 'Roadmap', exact: true });
        await expect(panel.getByTestId('aspect-row').first()).toBeVisible();
        await expect(panel.locator('thead .roadmap-bucket-col')).toHaveCount(service.quarters);
        const first = await quarterView(page);
        // None of these screens shows every quarter with its description at once.
        expect(first.hidden, context).toBeGreaterThan(0);
        // The description wraps rather than crowd out the quarters: no wider than two of them, and
        // a laptop shows at least five quarters beside it.
        const widths = await panel.evaluate((el) => ({
          description: el.querySelector('thead .roadmap-description-col')!.getBoundingClientRect().width,
          quarter: el.querySelector('thead .roadmap-bucket-col')!.getBoundingClientRect().width,
        }));
        expect(widths.description, `${context}: the description column's width`).toBeLessThanOrEqual(2 * widths.quarter + 1);
        if (screen.width >= 1280) expect(first.inView.length, `${context}: quarters in view`).toBeGreaterThanOrEqual(5);
        await expectCueMatches(page, context);
        await expect(page.getByTestId('quarters-more-cue')).toBeVisible();
        const previous = page.getByRole('button', { name: 'Previous quarter' });
        const next = page.getByRole('button', { name: 'Next quarter' });
        await expect(previous).toBeDisabled();
        await expectAccessible(page, `${context}, at the start`);

        // The visible control.
        const byButton = await walkQuarters(page, `${context}, Next quarter`, () => next.click());
        expect([...byButton].sort(), `${context}: Next quarter reaches every quarter`).toHaveLength(service.quarters);
        await expect(next).toBeDisabled();
        await expectCueMatches(page, `${context}, at the end`);
        expect((await cueCounts(page)).more).toBe(0);
        await expectAccessible(page, `${context}, at the end`);
        // Previous quarter walks back to the start, where it is disabled.
        for (let i = 0; i < 20; i++) {
          const at = (await quarterView(page)).scrollLeft;
          if (at === 0) break;
          await previous.click();
          await expect.poll(async () => (await quarterView(page)).scrollLeft).toBeLessThan(at);
        }
        expect((await quarterView(page)).scrollLeft).toBe(0);
        await expect(previous).toBeDisabled();

        // The keyboard: the panel takes the focus and the arrow keys move a quarter at a time.
        await panel.focus();
        await expect(panel).toBeFocused();
        const byKeys = await walkQuarters(page, `${context}, ArrowRight`, () => page.keyboard.press('ArrowRight'));
        expect(byKeys.size, `${context}: the arrow keys reach every quarter`).toBe(service.quarters);
        await page.keyboard.press('ArrowLeft');
        await expect.poll(async () => (await cueCounts(page)).more).toBeGreaterThan(0);
        await backToStart(page);

        // Shift with the mouse wheel over the panel.
        await panel.scrollIntoViewIfNeeded();
        const box = (await panel.boundingBox())!;
        await page.mouse.move(box.x + box.width / 2, box.y + Math.min(box.height, page.viewportSize()!.height - box.y) / 2);
        await page.keyboard.down('Shift');
        const byWheel = await walkQuarters(page, `${context}, Shift+wheel`, () => page.mouse.wheel(0, 50));
        await page.keyboard.up('Shift');
        expect(byWheel.size, `${context}: Shift with the wheel reaches every quarter`).toBe(service.quarters);
        await expectCueMatches(page, `${context}, after the wheel`);
      }
    }
  });
});

/** The element's box lies inside the viewport and its content is not cut off. */
async function expectWhole(locator: Locator, context: string) {
  await expect(locator, context).toBeVisible();
  const fits = await locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return {
      inside: r.left >= -0.5 && r.top >= -0.5 && r.right <= document.documentElement.clientWidth + 0.5,
      unclipped: el.scrollWidth <= el.clientWidth + 1,
      label: (el.textContent ?? '').trim(),
    };
  });
  expect(fits.inside, `${context}: '${fits.label}' lies inside the viewport`).toBe(true);
  expect(fits.unclipped, `${context}: '${fits.label}' is not clipped`).toBe(true);
}

test.describe('The page header', () => {
  test.describe.configure({ timeout: 180_000 });

  test('clips no control with 120-character names, from 320 pixels wide up', async ({ page }) => {
    const admin = await adminApi(page.request);
    const u = unique();
    const tenantName = longName(`Tenant ${u}`);
    const userName = longName(`Person ${u}`);
    const serviceName = longName(`Service ${u}`);
    expect([tenantName, userName, serviceName].map((n) => n.length)).toEqual([120, 120, 120]);
    const { tenant } = await admin.send('POST', '/tenants', { name: tenantName, slug: `long-${u}` });
    const email = `long-${u}@example.com`;
    const { user } = await admin.send('POST', '/admin/users', { email, name: userName, role: 'admin', tenant_id: tenant.id, password: 'secret-pass' });
    const owner = await apiAs(page.request, email, 'secret-pass');
    const { service } = await owner.send('POST', '/services', {
      name: serviceName,
      slug: `long-${u}`,
      description: `<p>${longName('Described')} ${longName('Again')}</p>`,
    });

    for (const tenants of ['one', 'two'] as const) {
      if (tenants === 'two') {
        // With a second tenant the name becomes a dropdown holding the long name.
        const { tenants: all } = (await admin.send('GET', '/tenants')) as { tenants: { id: string; slug: string }[] };
        const first = all.find((t) => t.slug === FIRST_TENANT.slug)!;
        await admin.send('PATCH', `/admin/users/${user.id}/tenants`, { tenantIds: [tenant.id, first.id] });
        await page.getByRole('button', { name: 'Log Out' }).click();
        await expect(page).toHaveURL(/\/login$/);
      }
      await page.setViewportSize(SCREENS[0]!);
      await loginThroughPage(page, email, 'secret-pass');
      await expect(page.getByRole('heading', { level: 1, name: tenantName })).toBeVisible();
      for (const screen of SCREENS) {
        await page.setViewportSize(screen);
        for (const [where, path] of [
          ['dashboard', '/'],
          ['catalog', `/catalog/${service.id}`],
        ] as const) {
          const context = `${where}, ${tenants} tenant(s), ${sized(screen)}`;
          await page.goto(path);
          const header = page.locator('header.page-header');
          await expect(header.getByRole('heading', { level: 1 })).toHaveText(where === 'catalog' ? serviceName : tenantName);
          if (where === 'catalog') await expectWhole(page.getByRole('link', { name: '← Back' }), context);
          await expectWhole(header.getByRole('button', { name: 'Log Out' }), context);
          await expectWhole(header.getByRole('heading', { level: 1 }), context);
          await expectWhole(header.getByTestId('user-name'), context);
          if (tenants === 'one') await expectWhole(header.getByTestId('tenant-name'), context);
          else {
            const select = header.getByRole('combobox', { name: 'Tenant' });
            await expect(select, context).toBeVisible();
            const box = (await select.boundingBox())!;
            expect(box.x, context).toBeGreaterThanOrEqual(0);
            expect(box.x + box.width, context).toBeLessThanOrEqual(screen.width);
            // Cut short in the closed select, the name is there in full.
            await expect(select).toHaveAttribute('title', tenantName);
          }
          // Nothing on the page runs past the window's right edge.
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          expect(overflow, `${context}: no sideways scroll of the page`).toBeLessThanOrEqual(0);
          await expectAccessible(page, context);
        }
      }
    }
  });
});

test.describe('The current view on a phone', () => {
  test.describe.configure({ timeout: 120_000 });

  test('reads as a list with availability and description, without sideways scrolling', async ({ page }) => {
    const id = await demoServiceId(page);
    await openCatalog(page, id);
    for (const screen of PHONES) {
      await page.setViewportSize(screen);
      await page.goto(`/catalog/${id}?view=current`);
      const panel = page.getByRole('region', { name: 'Current availability', exact: true });
      const rows = panel.getByTestId('current-row');
      await expect(rows.first()).toBeVisible();
      const layout = await panel.evaluate((el) => {
        const box = el.getBoundingClientRect();
        return {
          overflow: el.scrollWidth - el.clientWidth,
          page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
          rows: [...el.querySelectorAll('tr[data-testid="current-row"]')].map((row) => {
            const title = row.querySelector('.roadmap-title')!.getBoundingClientRect();
            const availability = row.querySelector('.current-availability')!.getBoundingClientRect();
            const description = row.querySelector('.roadmap-description-cell')!;
            const d = description.getBoundingClientRect();
            const within = (r: DOMRect) => r.width > 0 && r.left >= box.left - 0.5 && r.right <= box.right + 0.5;
            return {
              title: row.querySelector('.roadmap-title')!.textContent,
              availability: within(availability) && availability.top >= title.bottom - 0.5,
              description: within(d) && d.top >= availability.bottom - 0.5 && (description.textContent ?? '').trim().length > 0,
            };
          }),
        };
      });
      const context = `current view at ${sized(screen)}`;
      expect(layout.overflow, `${context}: the panel does not scroll sideways`).toBeLessThanOrEqual(0);
      expect(layout.page, `${context}: the page does not scroll sideways`).toBeLessThanOrEqual(0);
      expect(layout.rows.length).toBeGreaterThan(2);
      for (const r of layout.rows) expect({ ...r, context }).toEqual({ title: r.title, availability: true, description: true, context });
      await expectAccessible(page, context);
    }
  });
});

/**
 * The README's picture of the Demo service's current view (catalog.e2e.ts takes the roadmap's); with
 * UPDATE_SCREENSHOTS=1 it replaces the one in docs/screenshots.
 */
test('the Demo current view, for the screenshot', async ({ page }) => {
  const id = await demoServiceId(page);
  await openCatalog(page, id);
  await page.goto(`/catalog/${id}?view=current`);
  await expect(page.getByTestId('current-row').first()).toBeVisible();
  await expectAccessible(page, 'demo current view');
  mkdirSync('test-results/screenshots', { recursive: true });
  await page.screenshot({ path: 'test-results/screenshots/current.png', fullPage: true });
  if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync('test-results/screenshots/current.png', 'docs/screenshots/current.png');
});

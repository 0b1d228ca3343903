import type { APIRequestContext, Page } from '@playwright/test';
import { SEARCH_DEBOUNCE_MS } from '../common/limits';
import { ADMIN, apiAs, expect, expectAccessible, loginThroughPage, test } from './fixtures';

const COUNT = 300;
const name = (i: number) => `Service ${String(i).padStart(3, '0')}`;

/**
 * Counts the renders of service cards already in the page, through React's developer tools hook:
 * a card rendered again gives its element a new props object; a card left alone keeps its own.
 * Each render's time is kept, and each keystroke's, so that a test can tell a render a keystroke
 * caused from one the search's answer caused, however slow the machine.
 */
function countCardRenders() {
  const seen = new WeakMap<object, unknown>();
  const w = window as unknown as { __cardRenders: number; __renderTimes: number[]; __keyTimes: number[]; __REACT_DEVTOOLS_GLOBAL_HOOK__: unknown };
  w.__cardRenders = 0;
  w.__renderTimes = [];
  w.__keyTimes = [];
  window.addEventListener('keydown', () => w.__keyTimes.push(performance.now()), true);
  type Fiber = { tag: number; memoizedProps: Record<string, unknown> | null; stateNode: object; child: Fiber | null; sibling: Fiber | null };
  w.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    supportsFiber: true,
    isDisabled: false,
    renderers: new Map(),
    inject: () => 1,
    checkDCE: () => undefined,
    onScheduleFiberRoot: () => undefined,
    onCommitFiberUnmount: () => undefined,
    onPostCommitFiberRoot: () => undefined,
    onCommitFiberRoot: (_id: number, root: { current: Fiber }) => {
      const stack: Fiber[] = [root.current];
      while (stack.length) {
        const fiber = stack.pop()!;
        // A host element (tag 5): the card's own <div>.
        if (fiber.tag === 5 && fiber.memoizedProps?.['data-testid'] === 'service-card') {
          const before = seen.get(fiber.stateNode);
          if (before !== undefined && before !== fiber.memoizedProps) {
            w.__cardRenders++;
            w.__renderTimes.push(performance.now());
          }
          seen.set(fiber.stateNode, fiber.memoizedProps);
        }
        if (fiber.child) stack.push(fiber.child);
        if (fiber.sibling) stack.push(fiber.sibling);
      }
    },
  };
}

const cardRenders = (page: Page) => page.evaluate(() => (window as unknown as { __cardRenders: number }).__cardRenders);

/**
 * For each card render, how long after the keystroke that can have caused it (the shortest of
 * them): the last keystroke of a burst, one no other followed within the search's delay, as a
 * search starts only then. On a loaded machine two keystrokes can come further apart than the
 * delay, and the first one's answer then renders after the second.
 */
const shortestKeyToCardRender = (page: Page, delayMs: number) =>
  page.evaluate((delay) => {
    const w = window as unknown as { __renderTimes: number[]; __keyTimes: number[] };
    let shortest = Infinity;
    for (const at of w.__renderTimes) {
      const keys = w.__keyTimes.filter((k) => k <= at);
      const burstEnds = keys.filter((k, i) => i === keys.length - 1 || keys[i + 1]! - k >= delay);
      const gaps = burstEnds.map((k) => at - k);
      // The render is put down to the burst that gives it the longest wait: a render a keystroke
      // itself caused follows every burst too soon.
      if (gaps.length) shortest = Math.min(shortest, Math.max(...gaps.filter((g) => g >= delay), ...gaps.slice(-1)));
    }
    return shortest;
  }, delayMs);

/** Scrolls the page to its end until `target` is in the page (the next pages load on the way). */
async function scrollUntil(page: Page, target: ReturnType<Page['getByRole']>) {
  for (let i = 0; i < 60 && (await target.count()) === 0; i++) {
    await page.evaluate(() => window.scrollTo({ top: document.documentElement.scrollHeight }));
    // The next page's cards come in; the target may be among them (at most a short wait per scroll).
    await target.waitFor({ state: 'attached', timeout: 150 }).catch(() => {});
  }
  await target.scrollIntoViewIfNeeded();
  await expect(target).toBeInViewport();
}

/** A new tenant named `name` and its admin (password 'secret-pass'), signed in through the API. */
async function newTenant(request: APIRequestContext, name: string) {
  const u = `${Date.now()}`;
  const slug = `${name.toLowerCase().replace(/ /g, '-')}-${u}`;
  const superAdmin = await apiAs(request, ADMIN.email, ADMIN.password);
  const { tenant } = await superAdmin.send('POST', '/tenants', { name: `${name} ${u}`, slug });
  const adminEmail = `${slug}-admin@example.com`;
  await superAdmin.send('POST', '/admin/users', { email: adminEmail, name: `${name} Admin`, role: 'admin', tenant_id: tenant.id, password: 'secret-pass' });
  return { admin: await apiAs(request, adminEmail, 'secret-pass', tenant.slug), adminEmail };
}

/** Where the first gap (cards not in the page) starts, from the top of the viewport; Infinity without one. */
const firstGapTop = (page: Page) => page.evaluate(() => document.querySelector('.service-card-gap')?.getBoundingClientRect().top ?? Number.POSITIVE_INFINITY);

test.describe('dashboard with hundreds of services', () => {
  test('the screen below the first is in the page before it is scrolled to, whatever the cards’ heights', async ({ page, request }) => {
    test.setTimeout(120_000);
    const { admin, adminEmail } = await newTenant(request, 'Tall Cards');
    // Cards of three heights (no description, one line, three lines), so the measured rows differ
    // from the estimate the window starts from.
    const words = (i: number) => ['', '<p>One line of description</p>', `<p>${'A description that runs over three lines of the card. '.repeat(4)}</p>`][i % 3];
    for (let from = 0; from < 120; from += 10) {
      await Promise.all(
        Array.from({ length: 10 }, (_, k) => from + k).map((i) =>
          admin.send('POST', '/services', { name: name(i), slug: `tall-${String(i).padStart(3, '0')}`, description: words(i) }),
        ),
      );
    }

    await loginThroughPage(page, adminEmail, 'secret-pass');
    await expect(page.getByRole('link', { name: name(0), exact: true })).toBeVisible();
    const height = page.viewportSize()!.height;
    // With no scroll, the cards reach more than a screen below the viewport, and the last are not in the page.
    await expect.poll(() => firstGapTop(page), { message: 'the cards in the page end within two screens' }).toBeGreaterThan(2 * height);
    expect(await firstGapTop(page)).toBeLessThan(Number.POSITIVE_INFINITY);
    // So a screen scrolled at once shows cards, not an empty gap, in its first frame.
    const blank = await page.evaluate(
      (h) =>
        new Promise<number>((resolve) => {
          window.scrollTo({ top: h, behavior: 'instant' });
          requestAnimationFrame(() => {
            const gap = document.querySelector('.service-card-gap')?.getBoundingClientRect();
            resolve(gap && gap.top < h && gap.bottom > 0 ? Math.min(gap.bottom, h) - Math.max(gap.top, 0) : 0);
          });
        }),
      height,
    );
    expect(blank, 'pixels of an empty gap in view').toBe(0);
    await expectAccessible(page, 'dashboard of cards of several heights');
  });

  test('cards and list load page by page, stay few in the page, and reach the last service by scrolling, by keyboard and by search', async ({
    page,
    request,
  }) => {
    test.setTimeout(240_000);
    const { admin, adminEmail } = await newTenant(request, 'Many Services');
    for (let from = 0; from < COUNT; from += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, COUNT - from) }, (_, k) => from + k).map((i) =>
          admin.send('POST', '/services', {
            name: name(i),
            slug: `svc-${String(i).padStart(3, '0')}`,
            // One description far down the list holds a word found nowhere else.
            description: i === 250 ? '<p>Carries the <strong>zeppelin</strong> fleet</p>' : '',
          }),
        ),
      );
    }

    await page.addInitScript(countCardRenders);
    await loginThroughPage(page, adminEmail, 'secret-pass');
    await expect(page).toHaveURL(/\/$/);
    const cards = page.getByTestId('service-card');
    const search = page.getByRole('textbox', { name: 'Search services' });
    await expect(page.getByRole('link', { name: name(0), exact: true })).toBeVisible();
    // Only the cards near the viewport are in the page (a viewport's height and some more around it).
    expect(await cards.count()).toBeLessThan(100);
    await expectAccessible(page, 'dashboard with many services');

    // A keystroke renders the search box, not the cards in the page; the answer to the search does,
    // once typing has paused for the search's delay.
    expect(await cardRenders(page)).toBe(0);
    await search.press('S');
    await search.press('e');
    await expect.poll(() => cardRenders(page)).toBeGreaterThan(0);
    expect(await shortestKeyToCardRender(page, SEARCH_DEBOUNCE_MS)).toBeGreaterThanOrEqual(SEARCH_DEBOUNCE_MS);

    // The server's search finds a service far from the page by a word of its description.
    await expect(page.getByRole('link', { name: name(250), exact: true })).toHaveCount(0);
    await search.fill('ZEPPELIN');
    await expect(page.getByRole('link', { name: name(250), exact: true })).toBeVisible();
    await expect(cards).toHaveCount(1);
    await expectAccessible(page, 'dashboard searched');
    await search.fill('no-such-service-anywhere');
    await expect(page.getByText('No matching services found.')).toBeVisible();
    await search.fill('');
    await expect(page.getByRole('link', { name: name(0), exact: true })).toBeVisible();

    // Scrolling the cards to the end loads the following pages until the last service.
    const lastCardLink = page.getByRole('link', { name: name(COUNT - 1), exact: true });
    await scrollUntil(page, lastCardLink);
    expect(await cards.count()).toBeLessThan(150);
    await expect(page.getByRole('link', { name: name(0), exact: true })).toHaveCount(0);
    await expectAccessible(page, 'dashboard cards scrolled to the end');

    // The list view too.
    await page.evaluate(() => window.scrollTo({ top: 0 }));
    await page.locator('label', { hasText: /^List$/ }).click();
    const list = page.getByTestId('service-list');
    await expect(list.getByRole('link', { name: name(0), exact: true })).toBeVisible();
    expect(await list.getByRole('row').count()).toBeLessThan(150);
    await scrollUntil(page, list.getByRole('link', { name: name(COUNT - 1), exact: true }));
    await expect(list).toHaveAttribute('aria-rowcount', String(COUNT + 1));
    expect(await list.getByRole('row').count()).toBeLessThan(150);
    await expectAccessible(page, 'dashboard list scrolled to the end');

    // The keyboard walks the cards from the first to the last, the window and the pages following,
    // after a search: a list a search replaced starts with the cards in view only, and grows its
    // window once the focus enters it.
    await page.reload();
    await search.fill('ZEPPELIN');
    await expect(cards).toHaveCount(1);
    await search.fill('');
    await expect(page.getByRole('link', { name: name(0), exact: true })).toBeVisible();
    await page.getByRole('link', { name: name(0), exact: true }).focus();
    let reached = false;
    for (let i = 0; i < COUNT * 2 + 5; i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        return { inCard: Boolean(el?.closest('[data-testid="service-card"]')), text: el?.textContent ?? '', label: el?.getAttribute('aria-label') ?? '' };
      });
      expect(focused.inCard, `focus left the cards after ${i} steps (${focused.label || focused.text})`).toBe(true);
      if (focused.text === name(COUNT - 1)) {
        reached = true;
        break;
      }
    }
    expect(reached).toBe(true);
    await expect(lastCardLink).toBeInViewport();
    expect(await cards.count()).toBeLessThan(150);
  });
});

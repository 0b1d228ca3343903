import type { Page } from '@playwright/test';
import { expect, expectAccessible, test } from './fixtures';
import { adminApi, openCatalog, quarterView, seedTimelineService, unique } from './catalogHelpers';

/**
 * The cues at the edges of the roadmap's quarters ('2 more →' on the right, '← 1 earlier' on the
 * left) count what the panel really hides on their side, after every way of scrolling, and none
 * shows where nothing is hidden.
 */
const LAPTOPS = [
  { width: 1440, height: 900 },
  { width: 1280, height: 720 },
];

const panelOf = (page: Page) => page.getByRole('region', { name: 'Roadmap', exact: true });

/** The quarters the panel hides on each side, read from the columns themselves. */
function hiddenSides(page: Page) {
  return panelOf(page).evaluate((el) => {
    const box = el.getBoundingClientRect();
    const edge = el.querySelector('thead .roadmap-aspect-col')!.getBoundingClientRect().right;
    const right = box.left + el.clientLeft + el.clientWidth;
    const columns = [...el.querySelectorAll('thead .roadmap-bucket-col')].map((th) => th.getBoundingClientRect());
    return { before: columns.filter((c) => c.left < edge - 1).length, after: columns.filter((c) => c.right > right + 1).length };
  });
}

/** What the cues say, and what they should say for the columns as they stand. */
async function cuesAndTruth(page: Page) {
  const { before, after } = await hiddenSides(page);
  return {
    shown: {
      earlier: await page.getByTestId('quarters-earlier-cue').allTextContents(),
      more: await page.getByTestId('quarters-more-cue').allTextContents(),
    },
    truth: { earlier: before ? [`← ${before} earlier`] : [], more: after ? [`${after} more →`] : [] },
  };
}

async function expectTrueCues(page: Page, context: string) {
  await expect
    .poll(
      async () => {
        const { shown, truth } = await cuesAndTruth(page);
        return JSON.stringify(shown) === JSON.stringify(truth) ? 'true' : `shown ${JSON.stringify(shown)}, hidden ${JSON.stringify(truth)}`;
      },
      { message: `${context}: the cues count the quarters hidden on their side` },
    )
    .toBe('true');
  return hiddenSides(page);
}

test.describe('The cues at the edges of the quarters', () => {
  test.describe.configure({ timeout: 180_000 });

  test('count the quarters still hidden on each side after scrolling by hand, by keyboard and by the cue, and every quarter is reached', async ({ page }) => {
    const api = await adminApi(page.request);
    const eight = await seedTimelineService(api, `Eight quarters ${unique()}`, 8, ['Single sign-on', 'Reporting']);
    const twelve = await seedTimelineService(api, `Twelve quarters ${unique()}`, 12, ['Single sign-on', 'Reporting']);
    const three = await seedTimelineService(api, `Three quarters ${unique()}`, 3, ['Single sign-on']);
    await openCatalog(page, eight.serviceId);
    for (const screen of LAPTOPS) {
      for (const service of [eight, twelve]) {
        const count = service.timeline.length;
        const context = `${count} quarters at ${screen.width}x${screen.height}`;
        await page.setViewportSize(screen);
        await page.goto(`/catalog/${service.serviceId}`);
        const panel = panelOf(page);
        await expect(panel.locator('thead .roadmap-bucket-col')).toHaveCount(count);

        // At the start: more to the right, nothing earlier.
        const start = await expectTrueCues(page, `${context}, at the start`);
        expect(start).toMatchObject({ before: 0 });
        expect(start.after, `${context}: some quarters lie to the right`).toBeGreaterThan(0);

        // Scrolled by hand (a trackpad or the scrollbar) to the middle, then to the end.
        await panel.evaluate((el) => (el.scrollLeft = Math.round((el.scrollWidth - el.clientWidth) / 2)));
        await expectTrueCues(page, `${context}, in the middle`);
        await expectAccessible(page, `${context}, scrolled to the middle`);
        await panel.evaluate((el) => (el.scrollLeft = el.scrollWidth - el.clientWidth));
        const end = await expectTrueCues(page, `${context}, at the end`);
        const seen = new Set((await quarterView(page)).inView);
        expect(end.after, `${context}: nothing more to the right at the end`).toBe(0);
        await expect(page.getByTestId('quarters-more-cue')).toHaveCount(0);
        // Twelve quarters never fit a laptop: at the end the earlier ones are counted on the left,
        // and that cue moves back a quarter.
        if (count === 12) {
          expect(end.before, `${context}: quarters hidden on the left at the end`).toBeGreaterThan(0);
          await page.getByTestId('quarters-earlier-cue').getByText('earlier').click();
          await expect.poll(async () => (await hiddenSides(page)).before, { message: `${context}: the left cue scrolls back` }).toBeLessThan(end.before);
          await expectTrueCues(page, `${context}, after the left cue`);
        }

        // By keyboard, back to the start one quarter at a time: the cues follow every step, and
        // every quarter is seen fully in view on the way.
        (await quarterView(page)).inView.forEach((q) => seen.add(q));
        await panel.focus();
        for (let i = 0; i < 16 && (await quarterView(page)).scrollLeft > 0; i++) {
          const at = (await quarterView(page)).scrollLeft;
          await page.keyboard.press('ArrowLeft');
          await expect.poll(async () => (await quarterView(page)).scrollLeft, { message: `${context}: ArrowLeft scrolls` }).toBeLessThan(at);
          (await quarterView(page)).inView.forEach((q) => seen.add(q));
          await expectTrueCues(page, `${context}, after ArrowLeft ${i + 1}`);
        }
        expect((await quarterView(page)).scrollLeft).toBe(0);
        expect([...seen].sort(), `${context}: every quarter comes into view`).toEqual(service.timeline);
        await expect(page.getByTestId('quarters-earlier-cue')).toHaveCount(0);

        // The right cue moves a quarter at a time, and ArrowRight too.
        await page.getByTestId('quarters-more-cue').getByText('more →').click();
        await expect.poll(async () => (await hiddenSides(page)).after, { message: `${context}: the right cue scrolls on` }).toBe(start.after - 1);
        await expectTrueCues(page, `${context}, after the right cue`);
        await panel.focus();
        await page.keyboard.press('ArrowRight');
        await expectTrueCues(page, `${context}, after ArrowRight`);
      }
    }

    // Every quarter in view: neither cue shows.
    await page.setViewportSize(LAPTOPS[0]!);
    await page.goto(`/catalog/${three.serviceId}`);
    await expect(panelOf(page).locator('thead .roadmap-bucket-col')).toHaveCount(3);
    await expect(page.getByTestId('quarters-status')).toHaveText('All 3 quarters in view');
    expect(await expectTrueCues(page, '3 quarters at 1440')).toEqual({ before: 0, after: 0 });
    await expect(page.getByTestId('quarters-more-cue')).toHaveCount(0);
    await expect(page.getByTestId('quarters-earlier-cue')).toHaveCount(0);
  });
});

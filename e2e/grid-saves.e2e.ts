import { test, expect, expectAccessible } from './fixtures';
import { adminApi, openCatalog, seedService, unique } from './catalogHelpers';
import { cellButton, editor, expectFocus, texts, timelineOf } from './gridHelpers';

/** What a cell of the roadmap grid says about its save: saving, saved, not saved with a retry. */

test.describe('The roadmap grid saves each change at once', () => {
  test.describe.configure({ timeout: 120_000 });

  test('a cell says it is saving while the keyboard moves on; one the server never answers for keeps its text and is saved on retry', async ({
    page,
    request,
  }) => {
    const api = await adminApi(request);
    const id = unique();
    const { serviceId } = await seedService(api, `Offline ${id}`, [{ title: 'Delta' }, { title: 'Echo' }]);
    const q = await timelineOf(api, serviceId);
    await openCatalog(page, serviceId);
    // The single-cell write gets no answer at all: the connection drops.
    const offline = (glob: string) =>
      page.route(glob, (route) => (route.request().method() === 'POST' ? route.abort('internetdisconnected') : route.continue()));
    await offline('**/api/availabilities');
    await cellButton(page, 'Delta', q[0]!).focus();
    await page.keyboard.type('Planned for spring');
    await page.keyboard.press('Enter');
    const unreachable = 'The server could not be reached. Check your connection and try again.';
    const delta = page.getByRole('row').filter({ has: cellButton(page, 'Delta', q[0]!, 'Planned for spring') });
    await expect(delta.getByRole('alert')).toHaveText(`${unreachable} Retry`);
    expect((await texts(api, serviceId)).get('Delta')![q[0]!] ?? '').toBe('');
    await expectAccessible(page, 'a cell not saved');

    // The keyboard: back on the cell, Enter opens the editor on the text that was not saved.
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await expect(editor(page, 'Delta', q[0]!)).toHaveValue('Planned for spring');
    await page.keyboard.press('Escape');
    await expect(delta.getByRole('alert')).toContainText(unreachable);

    // The connection is back: Retry writes what was typed.
    await page.unroute('**/api/availabilities');
    await delta.getByRole('button', { name: 'Retry' }).click();
    await expect(cellButton(page, 'Delta', q[0]!, 'Planned for spring')).toBeVisible();
    await expect(delta.getByRole('alert')).toHaveCount(0);
    await expect.poll(async () => (await texts(api, serviceId)).get('Delta')![q[0]!]).toBe('Planned for spring');

    // Offline again on another cell; back online, Enter and Enter again save it from the keyboard.
    await offline('**/api/availabilities');
    await cellButton(page, 'Echo', q[1]!).focus();
    await page.keyboard.type('Beta');
    await page.keyboard.press('Enter');
    const echo = page.getByRole('row').filter({ has: cellButton(page, 'Echo', q[1]!, 'Beta') });
    await expect(echo.getByRole('alert')).toContainText(unreachable);
    await page.unroute('**/api/availabilities');
    await cellButton(page, 'Echo', q[1]!, 'Beta').focus();
    await page.keyboard.press('Enter');
    await expect(editor(page, 'Echo', q[1]!)).toHaveValue('Beta');
    await page.keyboard.press('Enter');
    await expect(echo.getByRole('alert')).toHaveCount(0);
    await expect.poll(async () => (await texts(api, serviceId)).get('Echo')![q[1]!]).toBe('Beta');

    // A write the server is slow to answer: the cell says it is saving, and the keyboard moves on meanwhile.
    let release: () => void = () => {};
    await page.route('**/api/availabilities', async (route) => {
      if (route.request().method() === 'POST') await new Promise<void>((resolve) => (release = resolve));
      await route.continue();
    });
    await cellButton(page, 'Delta', q[2]!).focus();
    await page.keyboard.type('Slow');
    await page.keyboard.press('Enter');
    const slow = page.getByRole('row').filter({ has: cellButton(page, 'Delta', q[2]!, 'Slow') });
    await expect(slow.locator('.roadmap-cell-saving')).toHaveText('Saving');
    await expectFocus(page, cellButton(page, 'Echo', q[2]!));
    await page.keyboard.press('ArrowRight');
    await expectFocus(page, cellButton(page, 'Echo', q[3]!));
    await page.keyboard.press('ArrowUp');
    await expectFocus(page, cellButton(page, 'Delta', q[3]!));
    release();
    await expect(slow.locator('.roadmap-cell-saving')).toHaveCount(0);
    await expect.poll(async () => (await texts(api, serviceId)).get('Delta')![q[2]!]).toBe('Slow');
    await page.unroute('**/api/availabilities');
  });
});

import { test, expect } from './fixtures';
import { adminApi, openCatalog, seedService, unique } from './catalogHelpers';
import { cellButton, editor, texts, timelineOf } from './gridHelpers';

/** What the roadmap grid says after a paste is in view and complete; Tab in the editor wraps to the next row. */
test.describe('The roadmap grid tells and moves', () => {
  test.describe.configure({ timeout: 120_000 });
  test.use({ viewport: { width: 1440, height: 900 } });

  test('a paste says how many cells it wrote and how many already held the value, in view above the roadmap', async ({ page, request, context }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const api = await adminApi(request);
    const titles = Array.from({ length: 16 }, (_, i) => `Row ${String(i).padStart(2, '0')}`);
    const { serviceId, aspectIds } = await seedService(
      api,
      `Told ${unique()}`,
      titles.map((title) => ({ title })),
    );
    const q = await timelineOf(api, serviceId);
    // Two cells already hold what the paste brings.
    await api.send('POST', '/availabilities', { aspectId: aspectIds[2], timeBucket: q[3], value: 'R2C3' });
    await api.send('POST', '/availabilities', { aspectId: aspectIds[9], timeBucket: q[5], value: 'R9C5' });
    await openCatalog(page, serviceId);
    const tsv = titles.map((_, r) => q.map((__, c) => `R${r}C${c}`).join('\t')).join('\r\n') + '\r\n';
    await page.evaluate((text) => navigator.clipboard.writeText(text), tsv);
    await cellButton(page, titles[0]!, q[0]!).focus();
    await page.keyboard.press('Control+V');
    const status = page.getByTestId('grid-status');
    await expect(status).toHaveText(`Pasted ${16 * 8} cells, 2 unchanged.`);
    await expect(status).toBeInViewport({ ratio: 1 });
    await expect.poll(async () => (await texts(api, serviceId)).get(titles[15])![q[7]!]).toBe('R15C7');

    await page.keyboard.press('Control+Z');
    await expect(status).toHaveText('Undone: 126 cells.');
    await expect(status).toBeInViewport({ ratio: 1 });
    // The keys the grid describes include redo.
    const described = await cellButton(page, titles[0]!, q[0]!).evaluate((el) =>
      (el.closest('[aria-describedby]')?.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' '),
    );
    expect(described).toContain('Control+Shift+Z redoes');
  });

  test('Tab past the last quarter of a row edits on at the next row’s first quarter', async ({ page, request }) => {
    const api = await adminApi(request);
    const { serviceId } = await seedService(api, `Wrap ${unique()}`, [{ title: 'First' }, { title: 'Second' }]);
    const q = await timelineOf(api, serviceId);
    await openCatalog(page, serviceId);
    const last = cellButton(page, 'First', q[7]!);
    await last.scrollIntoViewIfNeeded();
    await last.focus();
    await page.keyboard.type('Late');
    await expect(editor(page, 'First', q[7]!)).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(cellButton(page, 'Second', q[0]!)).toBeFocused();
    await page.keyboard.type('Early');
    await page.keyboard.press('Shift+Tab');
    await expect(cellButton(page, 'First', q[7]!, 'Late')).toBeFocused();
    await expect.poll(async () => (await texts(api, serviceId)).get('Second')![q[0]!]).toBe('Early');
    expect((await texts(api, serviceId)).get('First')![q[7]!]).toBe('Late');
  });
});

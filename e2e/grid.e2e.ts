import { test, expect, expectAccessible, loginThroughPage } from './fixtures';
import { adminApi, openCatalog, seedService, unique, type Api } from './catalogHelpers';
import { cellButton, editor, expectFocus, focusedCell, texts, timelineOf } from './gridHelpers';

/** The roadmap as a spreadsheet grid: keyboard, in-place editing, paste, undo, history, read-only. */

async function newReader(api: Api, id: string) {
  const email = `grid-reader-${id}@example.com`;
  await api.send('POST', '/users', { email, name: `Grid Reader ${id}`, role: 'reader', password: 'reader-password' });
  return { email, password: 'reader-password' };
}

test.describe('The roadmap grid', () => {
  test.describe.configure({ timeout: 120_000 });

  test('the keyboard moves, edits in place, commits, cancels, picks a template and opens the modal and the history', async ({ page, request }) => {
    const api = await adminApi(request);
    const id = unique();
    const { serviceId, aspectIds } = await seedService(api, `Grid ${id}`, [{ title: 'Alpha' }, { title: 'Bravo' }, { title: 'Charlie' }]);
    await api.send('POST', '/quick-templates', { serviceId, templateText: 'Generally available' });
    await api.send('POST', '/quick-templates', { serviceId, templateText: 'Beta' });
    const q = await timelineOf(api, serviceId);
    await openCatalog(page, serviceId);
    const table = page.getByTestId('roadmap-table');
    await expect(table).toHaveAttribute('role', 'grid');

    // One tab stop: the first quarter of the first aspect; Tab from it leaves the grid.
    await page.getByRole('textbox', { name: 'Search aspects' }).focus();
    const stops = await table.locator('[tabindex="0"]').count();
    expect(stops).toBe(1);
    await page.getByRole('region', { name: 'Roadmap', exact: true }).focus();
    await page.keyboard.press('Tab');
    await expectFocus(page, cellButton(page, 'Alpha', q[0]!));
    await expectAccessible(page, 'grid, a cell focused');

    // Arrows, Home/End, Ctrl+Home/End, PageUp/PageDown.
    await page.keyboard.press('ArrowRight');
    await expectFocus(page, cellButton(page, 'Alpha', q[1]!));
    await page.keyboard.press('ArrowDown');
    await expectFocus(page, cellButton(page, 'Bravo', q[1]!));
    await page.keyboard.press('End');
    await expectFocus(page, cellButton(page, 'Bravo', q.at(-1)!));
    await page.keyboard.press('Home');
    expect(await focusedCell(page)).toBe(`${aspectIds[1]}|0`);
    await page.keyboard.press('ArrowRight');
    expect(await focusedCell(page)).toBe(`${aspectIds[1]}|1`);
    await page.keyboard.press('Control+End');
    await expectFocus(page, cellButton(page, 'Charlie', q.at(-1)!));
    await page.keyboard.press('Control+Home');
    expect(await focusedCell(page)).toMatch(/^category:.*\|0$/);
    await page.keyboard.press('PageDown');
    expect(await focusedCell(page)).toBe(`${aspectIds[2]}|0`);
    await page.keyboard.press('PageUp');
    expect(await focusedCell(page)).toBe(`${aspectIds[0]}|0`);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expectFocus(page, cellButton(page, 'Alpha', q[0]!));

    // Typing starts editing with what was typed; Enter commits and moves down.
    await page.keyboard.type('Pilot');
    await expect(editor(page, 'Alpha', q[0]!)).toHaveValue('Pilot');
    await page.keyboard.press('Enter');
    await expectFocus(page, cellButton(page, 'Bravo', q[0]!));
    await expect(cellButton(page, 'Alpha', q[0]!, 'Pilot')).toBeVisible();
    await expect.poll(async () => (await texts(api, serviceId)).get('Alpha')?.[q[0]!]).toBe('Pilot');

    // Tab commits and moves right; Shift+Enter makes a second line.
    await page.keyboard.type('Line one');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('Line two');
    await page.keyboard.press('Tab');
    await expectFocus(page, cellButton(page, 'Bravo', q[1]!));
    await expect.poll(async () => (await texts(api, serviceId)).get('Bravo')?.[q[0]!]).toBe('Line one\nLine two');

    // F2 edits the current value; Escape cancels and the value stays.
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('F2');
    await expect(editor(page, 'Bravo', q[0]!)).toHaveValue('Line one\nLine two');
    await page.keyboard.type(' and more');
    await page.keyboard.press('Escape');
    await expectFocus(page, cellButton(page, 'Bravo', q[0]!, 'Line one\nLine two'));

    // Quick templates in the in-place editor: type to filter, arrow to pick, Enter takes it.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.type('gen');
    const options = page.getByRole('listbox', { name: 'Quick templates' }).getByRole('option');
    await expect(options).toHaveText(['Generally available']);
    await expectAccessible(page, 'grid, editing with templates');
    await page.keyboard.press('ArrowDown');
    await expect(options.first()).toHaveAttribute('aria-selected', 'true');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await texts(api, serviceId)).get('Charlie')?.[q[0]!]).toBe('Generally available');
    await expect(page.locator('.roadmap-cell-saved, .roadmap-cell-saving').first()).toBeVisible();
    await expectAccessible(page, 'grid, a cell saved');

    // Enter on a cell edits its value in place; Ctrl+Enter opens the spec's Edit Availability.
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Control+Enter');
    const dialog = page.getByRole('dialog', { name: 'Edit Availability' });
    await expect(dialog.getByTestId('availability-bucket')).toHaveText(q[0]!);
    await dialog.getByRole('button', { name: 'History' }).click();
    await expect(dialog.getByTestId('cell-history')).toContainText('Line one');
    await expectAccessible(page, 'Edit Availability with the history');
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();

    // Alt+H opens the cell's history: who, when, old value -> new value.
    await cellButton(page, 'Alpha', q[0]!, 'Pilot').focus();
    await page.keyboard.press('Alt+h');
    const history = page.getByRole('dialog', { name: 'Availability history' });
    await expect(history.getByTestId('cell-history')).toContainText('- → Pilot');
    await expect(history.getByTestId('cell-history')).toContainText('admin@example.com');
    await expectAccessible(page, 'cell history');
    await page.keyboard.press('Escape');
    await expect(history).toBeHidden();

    // The history opens from the in-place editor too: Alt+H in it, or its History button.
    await page.keyboard.press('Enter');
    await expect(editor(page, 'Alpha', q[0]!)).toHaveValue('Pilot');
    await page.keyboard.press('Alt+h');
    await expect(history.getByTestId('cell-history')).toContainText('- → Pilot');
    await page.keyboard.press('Escape');
    await expect(history).toBeHidden();
    await cellButton(page, 'Alpha', q[0]!, 'Pilot').focus();
    await page.keyboard.press('Enter');
    await page.locator('.roadmap-cell-editor').getByRole('button', { name: 'History' }).click();
    await expect(history.getByTestId('cell-history')).toContainText('admin@example.com');
    await page.keyboard.press('Escape');
    await expect(history).toBeHidden();

    // Alt+Enter makes a new line too.
    await cellButton(page, 'Charlie', q[1]!).focus();
    await page.keyboard.type('First');
    await page.keyboard.press('Alt+Enter');
    await page.keyboard.type('Second');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await texts(api, serviceId)).get('Charlie')?.[q[1]!]).toBe('First\nSecond');

    // A click with the mouse still opens Edit Availability.
    await cellButton(page, 'Charlie', q[2]!).click();
    await expect(dialog).toBeVisible();
    await page.keyboard.press('Escape');
  });

  test('a 20 x 8 block pasted from a spreadsheet, undone and redone as one step; an undo refused after a colleague’s change', async ({
    page,
    request,
    context,
  }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const api = await adminApi(request);
    const id = unique();
    const titles = Array.from({ length: 20 }, (_, i) => `Row ${String(i).padStart(2, '0')}`);
    const { serviceId } = await seedService(
      api,
      `Paste ${id}`,
      titles.map((title) => ({ title })),
    );
    const q = await timelineOf(api, serviceId);
    expect(q).toHaveLength(8);
    await openCatalog(page, serviceId);

    // The clipboard text as a spreadsheet writes it: tabs between cells, CRLF after rows, and
    // cells with quotes, tabs or new lines quoted.
    const value = (r: number, c: number) => (r === 3 && c === 2 ? 'Say "when"\tthen' : r === 5 && c === 4 ? 'Two\nlines' : `R${r}C${c}`);
    const quote = (v: string) => (/[\t\n"]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
    const tsv = titles.map((_, r) => q.map((__, c) => quote(value(r, c))).join('\t')).join('\r\n') + '\r\n';
    await page.evaluate((text) => navigator.clipboard.writeText(text), tsv);
    await cellButton(page, titles[0]!, q[0]!).focus();
    await page.keyboard.press('Control+V');
    await expect(page.getByTestId('grid-status')).toHaveText('Pasted 160 cells.');
    const expected = new Map(titles.map((t, r) => [t, Object.fromEntries(q.map((b, c) => [b, value(r, c)]))]));
    await expect.poll(async () => texts(api, serviceId)).toEqual(expected);
    await expectAccessible(page, 'grid, a block pasted and selected');

    // Undo takes the whole paste back; redo puts it again.
    await page.keyboard.press('Control+Z');
    await expect(page.getByTestId('grid-status')).toHaveText('Undone: 160 cells.');
    await expect.poll(async () => [...(await texts(api, serviceId)).values()].every((a) => Object.keys(a).length === 0)).toBe(true);
    await page.keyboard.press('Control+Shift+Z');
    await expect(page.getByTestId('grid-status')).toHaveText('Redone: 160 cells.');
    await expect.poll(async () => texts(api, serviceId)).toEqual(expected);

    // Someone else changes a pasted cell: undoing the paste is refused and overwrites nobody.
    const full = await api.send('GET', `/services/${serviceId}/full`);
    const row7 = full.resolved_data.aspects.find((a: { title: string }) => a.title === titles[7]);
    await api.send('POST', '/availabilities', { aspectId: row7.id, timeBucket: q[1], value: 'Theirs' });
    await page.keyboard.press('Control+Z');
    await expect(page.getByTestId('grid-status')).toContainText(`Cannot undo: ${titles[7]} in ${q[1]}`);
    const after = await texts(api, serviceId);
    expect(after.get(titles[7])![q[1]!]).toBe('Theirs');
    expect(after.get(titles[0])![q[0]!]).toBe('R0C0');
    await expectAccessible(page, 'grid, undo refused');

    // Copy a block as tab-separated text; Delete clears a block.
    await page.reload();
    await cellButton(page, titles[0]!, q[0]!, 'R0C0').focus();
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Control+C');
    await expect(page.getByTestId('grid-status')).toHaveText('Copied 4 cells.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('R0C0\tR0C1\r\nR1C0\tR1C1\r\n');
    await page.keyboard.press('Delete');
    await expect(page.getByTestId('grid-status')).toHaveText('Cleared 4 cells.');
    await expect.poll(async () => (await texts(api, serviceId)).get(titles[1])![q[1]!]).toBeUndefined();

    // Dragging with the mouse selects a block; Backspace clears it.
    const from = await cellButton(page, titles[8]!, q[0]!, 'R8C0').boundingBox();
    const to = await cellButton(page, titles[9]!, q[2]!, 'R9C2').boundingBox();
    await page.mouse.move(from!.x + 5, from!.y + 5);
    await page.mouse.down();
    await page.mouse.move(to!.x + 5, to!.y + 5, { steps: 5 });
    await page.mouse.up();
    await expect(page.locator('td.roadmap-selected')).toHaveCount(6);
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await page.keyboard.press('Backspace');
    await expect(page.getByTestId('grid-status')).toHaveText('Cleared 6 cells.');
    await expect.poll(async () => (await texts(api, serviceId)).get(titles[9])![q[2]!]).toBeUndefined();
    expect((await texts(api, serviceId)).get(titles[8])![q[0]!]).toBeUndefined();
    expect((await texts(api, serviceId)).get(titles[9])![q[3]!]).toBe('R9C3');

    // A paste past the last quarter and the last aspect says what was left out.
    await page.evaluate(() => navigator.clipboard.writeText('a\tb\tc\r\nd\te\tf\r\ng\th\ti\r\n'));
    await cellButton(page, titles[19]!, q[6]!, 'R19C6').focus();
    await page.keyboard.press('Control+V');
    await expect(page.getByTestId('grid-status')).toHaveText(
      `Pasted 2 cells. Left out: 2 rows past the last aspect and 1 column past the last quarter (${q[7]}).`,
    );
  });

  test('a reader gets the same grid, read-only: moves and copies, never edits', async ({ page, request, context }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const api = await adminApi(request);
    const id = unique();
    const { serviceId, aspectIds } = await seedService(api, `Read ${id}`, [{ title: 'Seen' }, { title: 'Also seen' }]);
    const q = await timelineOf(api, serviceId);
    await api.send('POST', '/availabilities', { aspectId: aspectIds[0], timeBucket: q[0], value: 'Beta' });
    const reader = await newReader(api, id);
    await loginThroughPage(page, reader.email, reader.password);
    await page.waitForURL('/');
    await page.goto(`/catalog/${serviceId}`);
    const table = page.getByTestId('roadmap-table');
    await expect(table).toHaveAttribute('aria-readonly', 'true');
    await page.getByRole('region', { name: 'Roadmap', exact: true }).focus();
    await page.keyboard.press('Tab');
    expect(await focusedCell(page)).toBe(`${aspectIds[0]}|2`);
    await page.keyboard.press('ArrowDown');
    expect(await focusedCell(page)).toBe(`${aspectIds[1]}|2`);
    await page.keyboard.type('x');
    await expect(page.getByRole('textbox')).toHaveCount(1); // the search box only
    await expect(page.getByTestId('grid-status')).toContainText('read-only');
    await page.keyboard.press('Shift+ArrowUp');
    await page.keyboard.press('Control+C');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('Beta\r\n\r\n');
    await page.keyboard.press('Delete');
    expect((await texts(api, serviceId)).get('Seen')![q[0]!]).toBe('Beta');
    await expectAccessible(page, 'read-only grid');
  });
});

test.describe('CSV import', () => {
  test('a CSV exported, edited and imported from Service Settings: preview first, then apply', async ({ page, request }) => {
    const api = await adminApi(request);
    const id = unique();
    const { serviceId, aspectIds } = await seedService(api, `Csv ${id}`, [{ title: 'Sync' }, { title: 'Search' }]);
    const q = await timelineOf(api, serviceId);
    await api.send('POST', '/availabilities', { aspectId: aspectIds[0], timeBucket: q[0], value: 'Beta' });
    // The export, edited as a spreadsheet would save it: one cell changed, a row in error.
    const res = await request.get(`/api/export/service/${serviceId}/csv?showPrivate=true`, { headers: { authorization: `Bearer ${api.session.token}` } });
    const exported = await res.text();
    const edited = exported.replace(',Beta,', ',Généralement disponible,');
    await openCatalog(page, serviceId);
    await page.goto(`/catalog/${serviceId}/settings`);
    await page.getByRole('button', { name: 'Import CSV' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import CSV' });
    const choose = (buffer: Buffer) => dialog.locator('input[type="file"]').setInputFiles({ name: 'roadmap.csv', mimeType: 'text/csv', buffer });
    await choose(Buffer.from(`${edited}Group,,,Yes,x\r\n`));
    await expect(dialog.getByTestId('csv-preview')).toContainText('Line 4: Aspect is empty');
    await expect(dialog.getByRole('button', { name: 'Apply' })).toBeDisabled();
    await expect(dialog.getByText('Read as Windows-1252', { exact: true })).toHaveCount(0);
    await expectAccessible(page, 'CSV import preview with an error');
    // Saved again by a spreadsheet in Windows-1252 (Excel's "CSV (Comma delimited)", which writes
    // no byte order mark): the preview says how it was read, and the accented text arrives as it
    // was typed.
    expect(edited.startsWith('\uFEFFCategory,')).toBe(true);
    await choose(Buffer.from(edited.slice(1), 'latin1'));
    await expect(dialog.getByText('Read as Windows-1252', { exact: true })).toBeVisible();
    const cells = dialog.getByRole('table', { name: 'Cells to change' });
    await expect(cells.getByRole('row')).toHaveCount(2);
    await expect(cells).toContainText('Beta');
    await expect(cells).toContainText('Généralement disponible');
    await expectAccessible(page, 'CSV import preview');
    expect((await texts(api, serviceId)).get('Sync')?.[q[0]!]).toBe('Beta');
    await dialog.getByRole('button', { name: 'Apply' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByText('CSV imported: 1 cells changed.')).toBeVisible();
    expect((await texts(api, serviceId)).get('Sync')?.[q[0]!]).toBe('Généralement disponible');
  });
});

test.describe('The grid at 600 aspects by 12 quarters', () => {
  test('the whole roadmap pasted at once: 7,200 cells in one step', async ({ page, request, context }) => {
    test.setTimeout(300_000);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const api = await adminApi(request);
    const name = `Grid 600 ${unique()}`;
    const { service } = await api.send('POST', '/services', { name, slug: `grid-600-${unique()}` });
    await api.send('PUT', `/services/${service.id}`, { name, timeline: { first: '2026-Q1', last: '2028-Q4' } });
    const categories: string[] = [];
    for (let c = 0; c < 12; c++)
      categories.push((await api.send('POST', '/categories', { serviceId: service.id, name: `Area ${c}`, position: c })).category.id);
    const specs = Array.from({ length: 600 }, (_, i) => ({
      serviceId: service.id,
      categoryId: categories[Math.floor(i / 50)],
      title: `Capability ${i}`,
      isPublic: true,
    }));
    for (let i = 0; i < specs.length; i += 25) await Promise.all(specs.slice(i, i + 25).map((body) => api.send('POST', '/aspects', body)));
    await openCatalog(page, service.id);
    await expect(page.getByTestId('roadmap-table')).toHaveAttribute('aria-rowcount', String(1 + 12 + 600), { timeout: 30_000 });
    const q = (await api.send('GET', `/services/${service.id}`)).service.timeline as string[];
    expect(q).toHaveLength(12);

    // PageDown moves a screen: to the last row that fits, whole, in one view of the panel from the
    // row it leaves; PageUp moves back.
    const focusedRow = () =>
      page.evaluate(() => {
        const panel = document.querySelector<HTMLElement>('.roadmap-scroll')!;
        const row = document.activeElement!.closest('tr')!;
        let next = row.nextElementSibling ?? row.parentElement!.nextElementSibling?.querySelector('tr[data-window-key]');
        while (next && !next.matches('tr[data-window-key]')) next = next.nextElementSibling;
        // Where a row is in the table, whatever the panel and the page have scrolled.
        const shift = panel.scrollTop + window.scrollY;
        const at = (r: DOMRect) => ({ top: r.top + shift, bottom: r.bottom + shift });
        const view = panel.clientHeight - panel.querySelector('thead')!.getBoundingClientRect().height;
        return {
          ...at(row.getBoundingClientRect()),
          nextBottom: next ? at(next.getBoundingClientRect()).bottom : Infinity,
          view,
          cell: (document.activeElement as HTMLElement).dataset.cell,
        };
      });
    await cellButton(page, 'Capability 0', q[0]!).focus();
    const start = await focusedRow();
    await page.keyboard.press('PageDown');
    const paged = await focusedRow();
    expect(paged.bottom - start.top).toBeLessThanOrEqual(start.view);
    expect(paged.nextBottom - start.top).toBeGreaterThan(start.view);
    await expect(page.locator(':focus')).toBeInViewport();
    await page.keyboard.press('PageUp');
    expect((await focusedRow()).cell).toBe(start.cell);

    // The whole roadmap pasted at once: 600 rows of 12 values.
    const tsv = Array.from({ length: 600 }, (_, r) => q.map((_, c) => `P${r}-${c}`).join('\t')).join('\r\n') + '\r\n';
    await page.evaluate((text) => navigator.clipboard.writeText(text), tsv);
    await cellButton(page, 'Capability 0', q[0]!).focus();
    await page.keyboard.press('Control+V');
    await expect(page.getByTestId('grid-status')).toHaveText('Pasted 7200 cells.', { timeout: 60_000 });
    await expect(cellButton(page, 'Capability 0', q[11]!, 'P0-11')).toBeVisible();
  });
});

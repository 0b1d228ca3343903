import { mkdirSync, copyFileSync } from 'node:fs';
import { test, expect, ADMIN, FIRST_TENANT, expectAccessible, signIn } from './fixtures';
import { adminApi, moveDownByKeyboard, openCatalog, row, rowTitles, seedService, unique } from './catalogHelpers';

test.describe('Catalog', () => {
  // Whole journeys on a shared, busy machine: more room than a single check needs.
  test.describe.configure({ timeout: 90_000 });

  test('an editor builds a roadmap from nothing: category, aspect with bold text, availability', async ({ page, request }) => {
    const id = unique();
    const api = await adminApi(request);
    const { service } = await api.send('POST', '/services', { name: `Roadmap ${id}`, slug: `roadmap-${id}`, description: 'Plans by quarter' });
    await openCatalog(page, service.id);

    await expect(page.getByRole('heading', { level: 1, name: `Roadmap ${id}` })).toBeVisible();
    await expect(page.getByText('Plans by quarter')).toBeVisible();
    await expect(page.getByRole('radio', { name: 'Roadmap' })).toBeChecked();
    await expect(page.getByRole('link', { name: 'Settings' })).toHaveAttribute('href', `/catalog/${service.id}/settings`);
    await expect(page.getByTestId('footer-tenant')).toHaveText(`Current Tenant: ${FIRST_TENANT.name} (${FIRST_TENANT.slug})`);
    for (const quarter of service.timeline as string[]) await expect(page.getByRole('columnheader', { name: quarter })).toBeVisible();
    await expectAccessible(page, 'empty catalog');

    // Create Category: the name is required.
    await page.getByRole('button', { name: '+ Category' }).click();
    const categoryDialog = page.getByRole('dialog', { name: 'Create Category' });
    await expect(categoryDialog.getByPlaceholder('e.g., Core Features')).toBeVisible();
    await expectAccessible(page, 'create category modal');
    await categoryDialog.getByRole('button', { name: 'Create Category' }).click();
    await expect(categoryDialog.getByText('Category name is required')).toBeVisible();
    await categoryDialog.getByPlaceholder('e.g., Core Features').fill('Core Features');
    await categoryDialog.getByRole('button', { name: 'Create Category' }).click();
    await expect(categoryDialog).toBeHidden();
    await expect(page.getByText('No aspects in this category')).toBeVisible();

    // Create Aspect from the category row, with bold text from the editor's toolbar.
    await page.getByRole('button', { name: 'Add aspect to Core Features' }).click();
    const aspectDialog = page.getByRole('dialog', { name: 'Create Aspect' });
    const editor = aspectDialog.getByRole('textbox', { name: 'Description' });
    await expect(editor).toBeVisible();
    await expectAccessible(page, 'create aspect modal');
    await aspectDialog.getByRole('textbox', { name: 'Title' }).fill('Single sign-on');
    await editor.click();
    await page.keyboard.type('Works with ');
    await aspectDialog.getByRole('button', { name: 'Bold' }).click();
    await page.keyboard.type('every provider');
    // A new aspect starts private: this one is made public by ticking the box.
    await expect(aspectDialog.getByLabel('Public (visible in public snapshots)')).not.toBeChecked();
    await aspectDialog.getByLabel('Public (visible in public snapshots)').check();
    await aspectDialog.getByRole('button', { name: 'Create Aspect' }).click();
    await expect(aspectDialog).toBeHidden();
    await expect(row(page, 'Single sign-on').locator('strong')).toHaveText('every provider');
    await expect(row(page, 'Single sign-on').getByText('Private')).toHaveCount(0);

    // A private aspect through the toolbar's '+ Aspect': the category must be chosen.
    await page.getByRole('button', { name: '+ Aspect', exact: true }).click();
    await aspectDialog.getByRole('textbox', { name: 'Title' }).fill('Internal audit');
    await aspectDialog.getByRole('button', { name: 'Create Aspect' }).click();
    await expect(aspectDialog.getByText('Category is required')).toBeVisible();
    await aspectDialog.getByRole('combobox', { name: 'Category' }).click();
    await page.getByRole('option', { name: 'Core Features' }).click();
    // Left as it opens, the box keeps the aspect private.
    await expect(aspectDialog.getByLabel('Public (visible in public snapshots)')).not.toBeChecked();
    await aspectDialog.getByRole('button', { name: 'Create Aspect' }).click();
    await expect(aspectDialog).toBeHidden();
    await expect(row(page, 'Internal audit').getByText('Private')).toBeVisible();

    // Edit Availability without quick templates, then with one.
    const quarter = (service.timeline as string[])[1];
    await page.getByRole('button', { name: `Single sign-on, ${quarter}: -` }).click();
    const availability = page.getByRole('dialog', { name: 'Edit Availability' });
    await expect(availability.getByTestId('availability-bucket')).toHaveText(quarter);
    await expect(availability.getByText('No quick templates defined. Add them in Service Settings.')).toBeVisible();
    await expectAccessible(page, 'availability modal without templates');
    await page.keyboard.press('Escape');
    await expect(availability).toBeHidden();

    await api.send('POST', '/quick-templates', { serviceId: service.id, templateText: 'Generally available' });
    await page.reload();
    await page.getByRole('button', { name: `Single sign-on, ${quarter}: -` }).click();
    await availability.getByRole('button', { name: 'Generally available' }).click();
    await expect(availability.getByRole('textbox', { name: 'Availability' })).toHaveValue('Generally available');
    await expectAccessible(page, 'availability modal with templates');
    await availability.getByRole('button', { name: 'Save' }).click();
    await expect(availability).toBeHidden();
    await expect(page.getByRole('button', { name: `Single sign-on, ${quarter}: Generally available` })).toBeVisible();

    // Edit Aspect by its title; Edit Category by its edit button.
    await page.getByRole('button', { name: 'Single sign-on', exact: true }).click();
    const editAspect = page.getByRole('dialog', { name: 'Edit Aspect' });
    await expect(editAspect.getByRole('textbox', { name: 'Description' })).toContainText('every provider');
    await expectAccessible(page, 'edit aspect modal');
    await editAspect.getByRole('textbox', { name: 'Title' }).fill('Single sign-on (SSO)');
    await editAspect.getByRole('button', { name: 'Save Changes' }).click();
    await expect(editAspect).toBeHidden();
    await expect(page.getByRole('button', { name: 'Single sign-on (SSO)', exact: true })).toBeVisible();

    await page.getByRole('button', { name: 'Edit category Core Features' }).click();
    const editCategory = page.getByRole('dialog', { name: 'Edit Category' });
    await expectAccessible(page, 'edit category modal');
    await editCategory.getByRole('textbox', { name: 'Name' }).fill('Essentials');
    await editCategory.getByRole('button', { name: 'Save Changes' }).click();
    await expect(editCategory).toBeHidden();
    await expect(page.locator('.roadmap-category-name', { hasText: 'Essentials' })).toBeVisible();

    // Deleting an aspect asks first.
    await page.getByRole('button', { name: 'Internal audit', exact: true }).click();
    await editAspect.getByRole('button', { name: 'Delete Aspect' }).click();
    await expect(editAspect).toContainText('This cannot be undone');
    await expectAccessible(page, 'delete aspect confirmation');
    await editAspect.getByRole('button', { name: 'Delete Aspect' }).click();
    await expect(editAspect).toBeHidden();
    await expect(row(page, 'Internal audit')).toHaveCount(0);

    // Deleting a category asks first too.
    await page.getByRole('button', { name: 'Edit category Essentials' }).click();
    await editCategory.getByRole('button', { name: 'Delete Category' }).click();
    await expect(editCategory).toContainText('This cannot be undone');
    await editCategory.getByRole('button', { name: 'Delete Category' }).click();
    await expect(editCategory).toBeHidden();
    await expect(page.locator('.roadmap-category-name', { hasText: 'Essentials' })).toHaveCount(0);
  });

  test('reorder aspects by dragging and by keyboard; the order is kept', async ({ page, request }) => {
    const api = await adminApi(request);
    const { serviceId } = await seedService(api, `Order ${unique()}`, [{ title: 'Alpha' }, { title: 'Bravo' }, { title: 'Charlie' }]);
    await openCatalog(page, serviceId);
    expect(await rowTitles(page)).toEqual(['Alpha', 'Bravo', 'Charlie']);

    // Drag Charlie above Alpha with the pointer.
    const handle = page.getByRole('button', { name: 'Reorder Charlie' });
    const target = page.getByRole('button', { name: 'Reorder Alpha' });
    const from = (await handle.boundingBox())!;
    const to = (await target.boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2, from.y - 10, { steps: 5 });
    await page.mouse.move(to.x + to.width / 2, to.y + 2, { steps: 15 });
    await page.mouse.up();
    await expect.poll(() => rowTitles(page)).toEqual(['Charlie', 'Alpha', 'Bravo']);

    // Move Charlie down one place with the keyboard: Space picks up, arrow moves, Space drops.
    await moveDownByKeyboard(page, 'Charlie', { position: 2, of: 3 });
    await expect.poll(() => rowTitles(page)).toEqual(['Alpha', 'Charlie', 'Bravo']);

    await page.reload();
    await expect.poll(() => rowTitles(page)).toEqual(['Alpha', 'Charlie', 'Bravo']);
  });

  test('an aspect changes category through Edit Aspect; a drag onto another category snaps back and says why', async ({ page, request }) => {
    const api = await adminApi(request);
    const { serviceId } = await seedService(api, `Regroup ${unique()}`, [{ title: 'Alpha' }, { title: 'Bravo' }]);
    const { category: other } = await api.send('POST', '/categories', { serviceId, name: 'Later', position: 1 });
    await api.send('POST', '/aspects', { serviceId, categoryId: other.id, title: 'Charlie', description: '', isPublic: true });
    await openCatalog(page, serviceId);
    expect(await rowTitles(page)).toEqual(['Alpha', 'Bravo', 'Charlie']);

    // Drag Alpha down onto Charlie's row, in the other category: the row shows it cannot land there.
    const message = 'An aspect can only be reordered within its category. To move it to another category, use Edit Aspect.';
    const from = (await page.getByRole('button', { name: 'Reorder Alpha' }).boundingBox())!;
    const to = (await page.getByRole('button', { name: 'Reorder Charlie' }).boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2, from.y + 10, { steps: 5 });
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 15 });
    await expect(row(page, 'Alpha')).toHaveAttribute('data-drop', 'refused');
    await expect(page.locator('[id^="DndLiveRegion"]').filter({ hasText: message })).toHaveCount(1);
    await page.mouse.up();
    await expect(page.locator('.mantine-Notifications-root').filter({ hasText: message })).toHaveCount(1);
    await expect(page.locator('[id^="DndLiveRegion"]').filter({ hasText: `Alpha was not moved. ${message}` })).toHaveCount(1);
    await expect(row(page, 'Alpha')).not.toHaveAttribute('data-drop', 'refused');
    expect(await rowTitles(page)).toEqual(['Alpha', 'Bravo', 'Charlie']);
    await expectAccessible(page, 'catalog after a refused drag');
    await page.reload();
    await expect.poll(() => rowTitles(page)).toEqual(['Alpha', 'Bravo', 'Charlie']);

    // Edit Aspect moves it: to the end of the chosen category.
    await page.getByRole('button', { name: 'Alpha', exact: true }).click();
    const editAspect = page.getByRole('dialog', { name: 'Edit Aspect' });
    const category = editAspect.getByRole('textbox', { name: 'Category' }).or(editAspect.getByRole('combobox', { name: 'Category' }));
    await expect(category).toHaveValue(/^Group of Regroup/);
    await expectAccessible(page, 'edit aspect modal with its category');
    await category.click();
    await page.getByRole('listbox', { name: 'Category' }).getByRole('option', { name: 'Later' }).click();
    await expect(category).toHaveValue('Later');
    await editAspect.getByRole('button', { name: 'Save Changes' }).click();
    await expect(editAspect).toBeHidden();
    await expect.poll(() => rowTitles(page)).toEqual(['Bravo', 'Charlie', 'Alpha']);
    await page.reload();
    await expect.poll(() => rowTitles(page)).toEqual(['Bravo', 'Charlie', 'Alpha']);
  });

  test('the current view and the debounced search', async ({ page, request }) => {
    const api = await adminApi(request);
    const { serviceId, aspectIds } = await seedService(api, `Current ${unique()}`, [
      { title: 'Mobile app', description: '<p>Native clients for phones</p>' },
      { title: 'Web portal', description: '<p>Browser access</p>' },
    ]);
    const { service } = await api.send('GET', `/services/${serviceId}`);
    const timeline = service.timeline as string[];
    const now = new Date();
    const thisQuarter = `${now.getUTCFullYear()}-Q${Math.floor(now.getUTCMonth() / 3) + 1}`;
    const bucket = timeline.includes(thisQuarter) ? thisQuarter : timeline[0];
    await api.send('POST', '/availabilities', { aspectId: aspectIds[0], timeBucket: bucket, value: 'Beta' });
    const { category } = await api.send('POST', '/categories', { serviceId, name: 'Operations', position: 1 });
    await api.send('POST', '/aspects', { serviceId, categoryId: category.id, title: 'Backups', description: '', isPublic: true });

    await openCatalog(page, serviceId);
    await page.locator('label', { hasText: /^Current$/ }).click();
    const current = page.getByTestId('current-table');
    await expect(current.getByRole('columnheader', { name: 'Aspect' })).toBeVisible();
    await expect(current.getByTestId('current-row').filter({ hasText: 'Mobile app' })).toContainText('Availability: Beta');
    await expect(current.getByTestId('current-row').filter({ hasText: 'Web portal' })).toContainText('Not specified');
    await expect(page.getByRole('button', { name: '+ Category' })).toHaveCount(0);
    await expectAccessible(page, 'current view');

    // The search waits for the typing to pause, then matches description text.
    const search = page.getByPlaceholder('Search aspects...');
    await search.fill('phones');
    await expect(current.getByTestId('current-row')).toHaveCount(3);
    await expect(current.getByTestId('current-row')).toHaveCount(1);
    await expect(current.getByTestId('current-row')).toContainText('Mobile app');

    // A category name match keeps all its aspects.
    await page.locator('label', { hasText: /^Roadmap$/ }).click();
    await search.fill('operations');
    await expect(page.getByTestId('aspect-row')).toHaveCount(1);
    await expect(page.getByTestId('aspect-row')).toContainText('Backups');

    await search.fill('nothing matches this');
    await expect(page.getByText('No matching aspects found')).toBeVisible();
    await expectAccessible(page, 'no matches');
  });

  test('a conflicting availability edit can overwrite the other change', async ({ page, request }) => {
    const api = await adminApi(request);
    const { serviceId, aspectIds } = await seedService(api, `Conflict ${unique()}`, [{ title: 'Reports' }]);
    const { service } = await api.send('GET', `/services/${serviceId}`);
    const quarter = (service.timeline as string[])[0];
    await openCatalog(page, serviceId);

    await page.getByRole('button', { name: `Reports, ${quarter}: -` }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit Availability' });
    await dialog.getByRole('textbox', { name: 'Availability' }).fill('Mine');
    await api.send('POST', '/availabilities', { aspectId: aspectIds[0], timeBucket: quarter, value: 'Theirs' });
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog.getByRole('alert')).toContainText('Theirs');
    await expectAccessible(page, 'availability conflict');
    await dialog.getByRole('button', { name: 'Overwrite with mine' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('button', { name: `Reports, ${quarter}: Mine` })).toBeVisible();
  });

  test('an archived service shows the banner, no edit controls and a read-only grid', async ({ page, request }) => {
    const api = await adminApi(request);
    const { serviceId } = await seedService(api, `Archived ${unique()}`, [{ title: 'Legacy export' }]);
    await api.send('PATCH', `/services/${serviceId}/archive`);
    await openCatalog(page, serviceId);
    await expect(page.getByTestId('archived-banner')).toHaveText('This service is archived and is in read-only mode. No changes can be made.');
    await expect(row(page, 'Legacy export')).toBeVisible();
    await expect(page.getByRole('button', { name: '+ Category' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: '+ Aspect' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Legacy export' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: /^Reorder/ })).toHaveCount(0);
    await expect(row(page, 'Legacy export').getByRole('button')).toHaveCount(0);
    // The same grid as a reader's: the keyboard moves in it, and typing changes nothing.
    const table = page.getByTestId('roadmap-table');
    await expect(table).toHaveAttribute('aria-readonly', 'true');
    await page.getByRole('region', { name: 'Roadmap', exact: true }).focus();
    await page.keyboard.press('Tab');
    await expect(table.locator(':focus')).toHaveAttribute('data-cell', /\|2$/);
    await page.keyboard.press('ArrowRight');
    await expect(table.locator(':focus')).toHaveAttribute('data-cell', /\|3$/);
    await page.keyboard.type('x');
    await expect(table.getByRole('textbox')).toHaveCount(0);
    await expect(page.getByTestId('grid-status')).toHaveText('This roadmap is read-only here: you can move around and copy, not change it.');
    await expectAccessible(page, 'archived catalog');
  });

  test('a reader sees no edit controls and no private aspects', async ({ page, request }) => {
    const id = unique();
    const api = await adminApi(request);
    const { serviceId } = await seedService(api, `Readable ${id}`, [{ title: 'Open feature' }, { title: 'Secret feature', isPublic: false }]);
    const email = `catalog-reader-${id}@example.com`;
    await api.send('POST', '/users', { email, name: `Catalog Reader ${id}`, role: 'reader', password: 'reader-password' });

    await openCatalog(page, serviceId, email, 'reader-password');
    await expect(row(page, 'Open feature')).toBeVisible();
    await expect(page.getByText('Secret feature')).toHaveCount(0);
    for (const name of ['+ Category', '+ Aspect']) await expect(page.getByRole('button', { name })).toHaveCount(0);
    await expect(page.getByRole('link', { name: 'Settings' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: /^Edit category/ })).toHaveCount(0);
    await expect(row(page, 'Open feature').getByRole('button')).toHaveCount(0);
    await expectAccessible(page, 'reader catalog');
  });

  test('600 aspects render, filter and open their editors (timings logged)', async ({ page, request }) => {
    test.setTimeout(240_000);
    const api = await adminApi(request);
    const { service } = await api.send('POST', '/services', { name: `Large ${unique()}`, slug: `large-${unique()}` });
    const categories: string[] = [];
    for (let c = 0; c < 12; c++) {
      const { category } = await api.send('POST', '/categories', { serviceId: service.id, name: `Area ${c}`, position: c });
      categories.push(category.id);
    }
    const specs = Array.from({ length: 600 }, (_, i) => ({
      serviceId: service.id,
      categoryId: categories[i % categories.length],
      title: `Capability ${i}`,
      description: `<p>Details of <strong>capability ${i}</strong></p>`,
      isPublic: i % 7 !== 0,
    }));
    for (let i = 0; i < specs.length; i += 25) await Promise.all(specs.slice(i, i + 25).map((body) => api.send('POST', '/aspects', body)));

    await signIn(page, ADMIN.email, ADMIN.password);
    const started = Date.now();
    await page.goto(`/catalog/${service.id}`);
    // The heading row, then 12 category rows and their 600 aspects' rows, those not in the page included.
    await expect(page.getByTestId('roadmap-table')).toHaveAttribute('aria-rowcount', String(1 + 12 + 600), { timeout: 30_000 });
    await expect(page.getByRole('button', { name: 'Capability 0', exact: true })).toBeVisible();
    const rendered = Date.now() - started;

    const searchStarted = Date.now();
    await page.getByPlaceholder('Search aspects...').fill('capability 599');
    await expect(page.getByTestId('aspect-row')).toHaveCount(1);
    const searched = Date.now() - searchStarted;
    console.log(`600 aspects: rendered in ${rendered} ms, searched in ${searched} ms`);

    await page.getByRole('button', { name: 'Capability 599', exact: true }).click();
    await expect(page.getByRole('dialog', { name: 'Edit Aspect' }).getByRole('textbox', { name: 'Description' })).toContainText('capability 599');
  });

  test('an unknown service says so', async ({ page }) => {
    await signIn(page, ADMIN.email, ADMIN.password, '/catalog/00000000-0000-0000-0000-000000000000');
    await expect(page.getByText('Service not found')).toBeVisible();
    await page.getByRole('link', { name: /Back/ }).click();
    await expect(page).toHaveURL(/\/$/);
  });

  test('the Demo roadmap, for the screenshot', async ({ page }) => {
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.getByRole('link', { name: 'Demo', exact: true }).click();
    await expect(page.getByTestId('roadmap-table')).toBeVisible();
    await expect(row(page, 'Disaster recovery drill').getByText('Private')).toBeVisible();
    await expectAccessible(page, 'demo roadmap');
    mkdirSync('test-results/screenshots', { recursive: true });
    await page.screenshot({ path: 'test-results/screenshots/roadmap.png', fullPage: true });
    if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync('test-results/screenshots/roadmap.png', 'docs/screenshots/roadmap.png');
  });
});

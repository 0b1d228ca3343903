import type { Page } from '@playwright/test';
import { test, expect, ADMIN, expectAccessible, signIn } from './fixtures';
import { adminApi, openCatalog, seedService, unique } from './catalogHelpers';

/** The question asked before typed work would be thrown away. */
const discardDialog = (page: Page) => page.getByRole('dialog', { name: 'Discard changes?' });

test.describe('Forms keep typed work', () => {
  test.describe.configure({ timeout: 90_000 });

  test('an error clears as its field is fixed, and a saved form shows no leftover error when opened again', async ({ page, request }) => {
    const api = await adminApi(request);
    const { serviceId } = await seedService(api, `Forms ${unique()}`, [{ title: 'Search' }]);
    await openCatalog(page, serviceId);

    await page.getByRole('button', { name: '+ Category' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create Category' });
    await dialog.getByRole('button', { name: 'Create Category' }).click();
    const required = dialog.getByText('Category name is required');
    await expect(required).toBeVisible();
    await expect(dialog.getByRole('textbox', { name: 'Name' })).toHaveAttribute('aria-invalid', 'true');
    await expectAccessible(page, 'create category with an error');

    // The message goes as the name is typed, before any second try.
    await dialog.getByRole('textbox', { name: 'Name' }).pressSequentially('Go');
    await expect(required).toBeHidden();
    // Emptied again, it says so when it is left.
    await dialog.getByRole('textbox', { name: 'Name' }).fill('');
    await page.keyboard.press('Tab');
    await expect(required).toBeVisible();
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Growth');
    await expect(required).toBeHidden();

    await dialog.getByRole('button', { name: 'Create Category' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('status').filter({ hasText: 'Category created.' })).toBeVisible();

    await page.getByRole('button', { name: '+ Category' }).click();
    await expect(dialog.getByRole('textbox', { name: 'Name' })).toHaveValue('');
    await expect(required).toBeHidden();
    await expect(dialog.getByRole('alert')).toHaveCount(0);
  });

  test('an error appears when its field is left, not while it is first typed in', async ({ page, request }) => {
    const api = await adminApi(request);
    const { serviceId } = await seedService(api, `Blur ${unique()}`, [{ title: 'Search' }]);
    await openCatalog(page, serviceId);

    await page.getByRole('button', { name: '+ Aspect', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Create Aspect' });
    const title = dialog.getByRole('textbox', { name: 'Title' });
    await title.click();
    await expect(dialog.getByText('Title is required')).toBeHidden();
    await page.keyboard.press('Tab');
    await expect(dialog.getByText('Title is required')).toBeVisible();
    await title.fill('Exports');
    await expect(dialog.getByText('Title is required')).toBeHidden();
  });

  test('Escape in the link box closes only the link box: the Edit Aspect modal keeps its bold text and list', async ({ page, request }) => {
    const api = await adminApi(request);
    const { serviceId } = await seedService(api, `Escape ${unique()}`, [{ title: 'Reports', description: '<p>Monthly</p>' }]);
    await openCatalog(page, serviceId);

    await page.getByRole('button', { name: 'Reports', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit Aspect' });
    const editor = dialog.getByRole('textbox', { name: 'Description' });
    await expect(editor).toContainText('Monthly');
    await editor.click();
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await dialog.getByRole('button', { name: 'Bold' }).click();
    await page.keyboard.type('Weekly too');
    await page.keyboard.press('Enter');
    await dialog.getByRole('button', { name: 'Bullet list' }).click();
    await page.keyboard.type('as a PDF');

    await dialog.getByRole('button', { name: 'Link', exact: true }).click();
    const linkBox = page.getByRole('textbox', { name: 'Enter URL' });
    await expect(linkBox).toBeFocused();
    await linkBox.fill('https://example.com/');
    await page.keyboard.press('Escape');
    await expect(linkBox).toBeHidden();
    await expect(dialog).toBeVisible();
    await expect(discardDialog(page)).toBeHidden();
    await expect(editor.locator('strong')).toHaveText('Weekly too');
    await expect(editor.locator('li')).toHaveText('as a PDF');

    // A select's list closes on Escape; the modal stays.
    await dialog.getByRole('combobox', { name: 'Category' }).click();
    await expect(page.getByRole('listbox')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByRole('listbox')).toBeHidden();
    await expect(dialog).toBeVisible();
    await expect(discardDialog(page)).toBeHidden();

    // Escape in the modal itself, with changes, asks first; keeping on editing keeps everything.
    await editor.click();
    await page.keyboard.press('Escape');
    await expect(discardDialog(page)).toBeVisible();
    await expectAccessible(page, 'discard changes question');
    await discardDialog(page).getByRole('button', { name: 'Keep editing' }).click();
    await expect(discardDialog(page)).toBeHidden();
    await expect(dialog).toBeVisible();
    await expect(editor.locator('strong')).toHaveText('Weekly too');
    await expect(editor.locator('li')).toHaveText('as a PDF');

    await dialog.getByRole('button', { name: 'Save Changes' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('status').filter({ hasText: 'Aspect saved.' })).toBeVisible();
  });

  test('closing a modal with unsaved changes asks first; without changes it closes at once', async ({ page, request }) => {
    const api = await adminApi(request);
    const name = `Group ${unique()}`;
    const { serviceId } = await seedService(api, name, [{ title: 'Search' }]);
    await openCatalog(page, serviceId);
    const edit = page.getByRole('button', { name: `Edit category Group of ${name}` });
    const dialog = page.getByRole('dialog', { name: 'Edit Category' });
    const field = dialog.getByRole('textbox', { name: 'Name' });

    // Nothing changed: Escape, the X, Cancel and a click outside close at once.
    await edit.click();
    await expect(field).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await edit.click();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(dialog).toBeHidden();
    await edit.click();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    await edit.click();
    await expect(dialog).toBeVisible();
    await page.mouse.click(8, 8);
    await expect(dialog).toBeHidden();
    await expect(discardDialog(page)).toBeHidden();

    // Changed: each way of closing asks, and keeping on editing keeps the text.
    await edit.click();
    await field.fill('Renamed group');
    for (const close of [
      () => page.keyboard.press('Escape'),
      () => dialog.getByRole('button', { name: 'Close' }).click(),
      () => dialog.getByRole('button', { name: 'Cancel' }).click(),
      () => page.mouse.click(8, 8),
    ]) {
      await close();
      await expect(discardDialog(page)).toBeVisible();
      await discardDialog(page).getByRole('button', { name: 'Keep editing' }).click();
      await expect(discardDialog(page)).toBeHidden();
      await expect(field).toHaveValue('Renamed group');
    }

    // Escape on the question keeps editing too.
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(discardDialog(page)).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(discardDialog(page)).toBeHidden();
    await expect(field).toHaveValue('Renamed group');

    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await discardDialog(page).getByRole('button', { name: 'Discard' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.locator('.roadmap-category-name', { hasText: `Group of ${name}` })).toBeVisible();
    // Opened again, it starts from the stored name.
    await edit.click();
    await expect(field).toHaveValue(`Group of ${name}`);
  });

  test("the browser's Back with a modal holding changes asks first; without changes it goes back", async ({ page, request }) => {
    const api = await adminApi(request);
    const { serviceId } = await seedService(api, `Back ${unique()}`, [{ title: 'Search' }]);
    await openCatalog(page, serviceId);
    const catalogUrl = page.url();
    // A page of this app to go back to (the catalog was opened by its address, a new document).
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('link', { name: /Back to Catalog/ }).click();
    await expect(page).toHaveURL(catalogUrl);
    const settingsUrl = /\/settings$/;

    await page.getByRole('button', { name: '+ Category' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create Category' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Half typed');
    await page.evaluate(() => history.back());
    await expect(discardDialog(page)).toBeVisible();
    await discardDialog(page).getByRole('button', { name: 'Keep editing' }).click();
    await expect(page).toHaveURL(catalogUrl);
    await expect(dialog.getByRole('textbox', { name: 'Name' })).toHaveValue('Half typed');

    await page.evaluate(() => history.back());
    await discardDialog(page).getByRole('button', { name: 'Discard' }).click();
    await expect(page).toHaveURL(settingsUrl);
    await expect(dialog).toBeHidden();

    // Without changes, Back simply goes back.
    await page.evaluate(() => history.forward());
    await expect(page).toHaveURL(catalogUrl);
    await page.getByRole('button', { name: '+ Category' }).click();
    await expect(dialog).toBeVisible();
    await page.evaluate(() => history.back());
    await expect(page).toHaveURL(settingsUrl);
    await expect(discardDialog(page)).toBeHidden();
  });

  test('leaving Service Details with unsaved changes asks first, a reload too; without changes it leaves', async ({ page, request }) => {
    const api = await adminApi(request);
    const { serviceId } = await seedService(api, `Details ${unique()}`, [{ title: 'Search' }]);
    await signIn(page, ADMIN.email, ADMIN.password, `/catalog/${serviceId}`);
    await page.getByRole('link', { name: 'Settings' }).click();
    const settingsUrl = page.url();
    const owner = page.getByRole('textbox', { name: 'Service Owner' });
    await expect(owner).toBeVisible();

    // Without changes, Back leaves at once.
    await page.evaluate(() => history.back());
    await expect(page).toHaveURL(`/catalog/${serviceId}`);
    await page.goForward();
    await expect(owner).toBeVisible();

    await owner.fill('Platform team');
    await page.evaluate(() => history.back());
    await expect(discardDialog(page)).toBeVisible();
    await discardDialog(page).getByRole('button', { name: 'Keep editing' }).click();
    await expect(page).toHaveURL(settingsUrl);
    await expect(owner).toHaveValue('Platform team');

    // Another tab would drop the typed details: it asks too.
    await page.getByRole('tab', { name: 'Actor Roles' }).click();
    await expect(discardDialog(page)).toBeVisible();
    await discardDialog(page).getByRole('button', { name: 'Keep editing' }).click();
    await expect(owner).toHaveValue('Platform team');

    // A reload asks the browser's own question.
    const asked: string[] = [];
    page.once('dialog', (d) => {
      asked.push(d.type());
      void d.dismiss();
    });
    await page.evaluate(() => location.reload()).catch(() => undefined);
    await expect.poll(() => asked).toEqual(['beforeunload']);
    await expect(owner).toHaveValue('Platform team');

    await page.getByRole('link', { name: /Back to Catalog/ }).click();
    await discardDialog(page).getByRole('button', { name: 'Discard' }).click();
    await expect(page).toHaveURL(`/catalog/${serviceId}`);
  });
});

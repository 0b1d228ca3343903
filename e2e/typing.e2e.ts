import type { Locator, Page } from '@playwright/test';
import { test, expect, ADMIN, signIn } from './fixtures';
import { adminApi, openCatalog, seedService, unique } from './catalogHelpers';

/** One stop of a form's Tab order: a field and what is typed in it (null: passed over with Tab). */
type Stop = { field: Locator; text: string | null };

/**
 * Types a form the way a fast typist does: each field's text, Tab, the next field's text, with no
 * pause for the page between them. Then every character must be where it was typed.
 */
async function typeThrough(page: Page, stops: Stop[]) {
  await stops[0]!.field.click();
  for (const [i, stop] of stops.entries()) {
    if (stop.text !== null) {
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.type(stop.text);
    }
    if (i < stops.length - 1) await page.keyboard.press('Tab');
  }
  for (const { field, text } of stops) {
    if (text === null) continue;
    const editable = await field.evaluate((el) => (el as HTMLElement).isContentEditable);
    if (editable) await expect(field).toHaveText(text);
    else await expect(field).toHaveValue(text);
  }
}

const box = (scope: Locator, name: string) => scope.getByRole('textbox', { name, exact: true });

test.describe('Typed text reaches its field', () => {
  test.describe.configure({ timeout: 90_000 });

  test('Create Service and Service Details: every character typed field by field with Tab arrives', async ({ page, request }) => {
    const api = await adminApi(request);
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.getByRole('button', { name: '+ New Service' }).click();
    const create = page.getByRole('dialog', { name: 'Create Service' });
    const slug = `m365-${unique()}`;
    await typeThrough(page, [
      { field: box(create, 'Name'), text: 'Microsoft 365' },
      { field: box(create, 'Slug'), text: slug },
      { field: box(create, 'Description'), text: '50 GB mailbox per user' },
      { field: box(create, 'Service Owner'), text: 'Workplace team' },
      { field: box(create, 'Subscription Model'), text: 'Per seat, monthly' },
    ]);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'Discard changes?' }).getByRole('button', { name: 'Discard' }).click();

    const { serviceId } = await seedService(api, `Details ${unique()}`, []);
    await page.goto(`/catalog/${serviceId}/settings`);
    const details = page.getByRole('main');
    await expect(box(details, 'Name')).toBeEditable();
    await typeThrough(page, [
      { field: box(details, 'Name'), text: 'Microsoft 365 Apps' },
      { field: box(details, 'Slug'), text: null },
      { field: box(details, 'Description'), text: '50 GB mailbox per user' },
      { field: box(details, 'Service Owner'), text: 'Workplace team' },
      { field: box(details, 'Subscription Model'), text: 'Per seat' },
    ]);
  });

  test('Create Aspect and Edit Aspect: Tab from the title goes into the description, and not one keystroke is lost', async ({ page, request }) => {
    const api = await adminApi(request);
    const { serviceId } = await seedService(api, `Typing ${unique()}`, [{ title: 'Mailbox' }]);
    await openCatalog(page, serviceId);

    await page.getByRole('button', { name: '+ Aspect', exact: true }).click();
    const create = page.getByRole('dialog', { name: 'Create Aspect' });
    await typeThrough(page, [
      { field: box(create, 'Title'), text: 'Mailbox size' },
      { field: box(create, 'Description'), text: '50 GB mailbox per user' },
    ]);
    // The toolbar stays one keystroke away: Alt+F10 enters it, the arrows walk it, Escape goes back.
    await page.keyboard.press('Alt+F10');
    await expect(create.getByRole('button', { name: 'Bold' })).toBeFocused();
    await page.keyboard.press('ArrowRight');
    await expect(create.getByRole('button', { name: 'Italic' })).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(box(create, 'Description')).toBeFocused();
    await expect(create).toBeVisible();
    await page.keyboard.press('Shift+Tab');
    await expect(box(create, 'Title')).toBeFocused();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'Discard changes?' }).getByRole('button', { name: 'Discard' }).click();

    await page.getByRole('button', { name: 'Mailbox', exact: true }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Aspect' });
    await expect(box(edit, 'Description')).toContainText('About Mailbox');
    await typeThrough(page, [
      { field: box(edit, 'Title'), text: 'Mailbox quota' },
      { field: box(edit, 'Description'), text: '100 GB archive' },
    ]);
    await edit.getByRole('button', { name: 'Save Changes' }).click();
    await expect(edit).toBeHidden();
    await page.getByRole('button', { name: 'Mailbox quota', exact: true }).click();
    await expect(box(edit, 'Description')).toHaveText('100 GB archive');
  });

  test('Create Snapshot: label and note keep every character', async ({ page, request }) => {
    const api = await adminApi(request);
    const { serviceId } = await seedService(api, `Snapshot typing ${unique()}`, [{ title: 'Mailbox' }]);
    await signIn(page, ADMIN.email, ADMIN.password, `/catalog/${serviceId}/settings`);
    await page.getByRole('button', { name: 'Create Snapshot' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create Snapshot' });
    await typeThrough(page, [
      { field: box(dialog, 'Label'), text: 'Board review 2026' },
      { field: dialog.getByLabel('Visibility', { exact: true }), text: null },
      { field: box(dialog, 'Note'), text: 'As shown to the board' },
    ]);
  });
});

import { test, expect, ADMIN, FIRST_TENANT, apiAs, expectAccessible, loginThroughPage, signIn } from './fixtures';
import type { Page } from '@playwright/test';

const unique = () => `${Date.now()}${Math.floor(Math.random() * 1000)}`;

/** A 600x400 PNG drawn by the browser itself (larger than the icon box, so it gets resized). */
async function makePng(page: Page): Promise<Buffer> {
  const base64 = await page.evaluate(() => {
    const canvas = document.createElement('canvas');
    canvas.width = 600;
    canvas.height = 400;
    const ctx = canvas.getContext('2d')!;
    ctx.fillStyle = '#1c7ed6';
    ctx.fillRect(0, 0, 600, 400);
    return canvas.toDataURL('image/png').split(',')[1];
  });
  return Buffer.from(base64, 'base64');
}

async function signInAsAdmin(page: Page) {
  await signIn(page, ADMIN.email, ADMIN.password);
}

function card(page: Page, name: string) {
  return page.getByTestId('service-card').filter({ has: page.getByRole('link', { name, exact: true }) });
}

test.describe('Dashboard', () => {
  // Whole journeys on a shared, busy machine: more room than a single check needs.
  test.describe.configure({ timeout: 90_000 });

  test('an admin sees every control of the dashboard, and the list view', async ({ page }) => {
    await signInAsAdmin(page);
    await expect(page.getByPlaceholder('Search services...')).toBeVisible();
    await expect(page.getByLabel('Show Archived')).toBeVisible();
    await expect(page.getByRole('radio', { name: 'Cards' })).toBeChecked();
    await expect(page.getByRole('button', { name: '+ New Service' })).toBeVisible();
    await expect(card(page, 'Demo')).toBeVisible();
    await expect(page.getByTestId('footer-tenant')).toHaveText(`Current Tenant: ${FIRST_TENANT.name} (${FIRST_TENANT.slug})`);
    await expect(page.getByRole('link', { name: 'Super Admin Panel' })).toBeVisible();
    await expectAccessible(page, 'dashboard cards');

    await page.locator('label', { hasText: /^List$/ }).click();
    await expect(page.getByRole('radio', { name: 'List' })).toBeChecked();
    const list = page.getByTestId('service-list');
    await expect(list.getByRole('columnheader', { name: 'Name' })).toBeVisible();
    await expect(list.getByRole('link', { name: 'Demo', exact: true })).toBeVisible();
    await expectAccessible(page, 'dashboard list');

    await page.getByPlaceholder('Search services...').fill('no-such-service-anywhere');
    await expect(page.getByText('No matching services found.')).toBeVisible();
    await page.getByPlaceholder('Search services...').fill('demo');
    await list.getByRole('link', { name: 'Demo', exact: true }).click();
    await expect(page).toHaveURL(/\/catalog\/[0-9a-f-]{36}$/);
  });

  test('create a service: the slug follows the name until edited by hand, validation, icon upload', async ({ page }) => {
    const id = unique();
    await signInAsAdmin(page);
    await page.getByRole('button', { name: '+ New Service' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create Service' });
    await expect(dialog).toBeVisible();
    await expectAccessible(page, 'create service modal');

    await dialog.getByRole('button', { name: 'Create Service' }).click();
    await expect(dialog.getByText('Service name is required')).toBeVisible();
    await expect(dialog.getByText('Slug is required')).toBeVisible();

    const name = dialog.getByRole('textbox', { name: 'Name' });
    const slug = dialog.getByRole('textbox', { name: 'Slug' });
    await name.fill(`Payroll Service ${id}!`);
    await expect(slug).toHaveValue(`payroll-service-${id}`);

    await slug.fill('Not A Slug');
    await dialog.getByRole('button', { name: 'Create Service' }).click();
    await expect(dialog.getByText('Slug may contain only lowercase letters, digits and hyphens')).toBeVisible();

    await slug.fill(`payroll-${id}`);
    await name.fill(`Payroll ${id}`);
    await expect(slug).toHaveValue(`payroll-${id}`);

    await dialog.getByRole('textbox', { name: 'Description' }).fill('Monthly salaries.');
    await dialog.getByRole('textbox', { name: 'Service Owner' }).fill('Finance');
    await dialog.getByRole('textbox', { name: 'Subscription Model' }).fill('Per employee');

    const fileInput = dialog.locator('input[type="file"]');
    await fileInput.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await expect(dialog.getByText('Invalid file type. Please provide an image file.')).toBeVisible();
    await fileInput.setInputFiles({ name: 'photo.bmp', mimeType: 'image/bmp', buffer: Buffer.from('BM') });
    await expect(dialog.getByText('Please select a valid image file (JPG, PNG, GIF, or SVG)')).toBeVisible();
    await fileInput.setInputFiles({ name: 'icon.png', mimeType: 'image/png', buffer: await makePng(page) });
    await expect(dialog.getByRole('img', { name: 'Icon preview' })).toBeVisible();
    await expect(dialog.getByRole('button', { name: 'Remove icon' })).toBeVisible();

    await dialog.getByRole('button', { name: 'Create Service' }).click();
    await expect(page).toHaveURL(/\/catalog\/[0-9a-f-]{36}$/);
    await expect(page.getByRole('heading', { level: 1, name: `Payroll ${id}` })).toBeVisible();

    await page.getByRole('link', { name: /Back/ }).click();
    await expect(card(page, `Payroll ${id}`)).toContainText(`payroll-${id}`);

    // A taken slug is answered by the server and shown inside the modal.
    await page.getByRole('button', { name: '+ New Service' }).click();
    await dialog.getByRole('textbox', { name: 'Name' }).fill(`Payroll ${id}`);
    await dialog.getByRole('textbox', { name: 'Slug' }).fill(`payroll-${id}`);
    await dialog.getByRole('button', { name: 'Create Service' }).click();
    await expect(dialog.getByRole('alert')).toContainText('already exists');
    // What was typed is not thrown away without a word: Escape asks first.
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'Discard changes?' }).getByRole('button', { name: 'Discard' }).click();
    await expect(dialog).toBeHidden();
  });

  test('archive with confirmation, Show Archived with the ARCHIVED label, unarchive', async ({ page, request }) => {
    const id = unique();
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const name = `Archive me ${id}`;
    await admin.send('POST', '/services', { name, slug: `archive-me-${id}` });

    await signInAsAdmin(page);
    await page.getByRole('button', { name: `Actions for ${name}` }).click();
    await expect(page.getByRole('menuitem', { name: 'Archive' })).toBeVisible();
    await expectAccessible(page, 'actions menu');
    await page.getByRole('menuitem', { name: 'Archive' }).click();
    const confirm = page.getByRole('dialog', { name: 'Archive Service' });
    await expect(confirm).toBeVisible();
    await expectAccessible(page, 'archive confirmation');
    await confirm.getByRole('button', { name: 'Archive' }).click();
    await expect(card(page, name)).toHaveCount(0);
    await expect(page.getByRole('status').filter({ hasText: 'Service archived.' })).toBeVisible();

    await page.getByLabel('Show Archived').check();
    await expect(card(page, name).getByText('ARCHIVED')).toBeVisible();
    await expectAccessible(page, 'dashboard with archived');
    await page.getByRole('button', { name: `Actions for ${name}` }).click();
    await page.getByRole('menuitem', { name: 'Unarchive' }).click();
    await expect(card(page, name).getByText('ARCHIVED')).toHaveCount(0);
    await expect(page.getByRole('status').filter({ hasText: 'Service unarchived.' })).toBeVisible();
    await page.getByLabel('Show Archived').uncheck();
    await expect(card(page, name)).toBeVisible();
  });

  test('a super admin deletes an archived service permanently after typing DELETE', async ({ page, request }) => {
    const id = unique();
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const name = `Doomed ${id}`;
    const { service } = await admin.send('POST', '/services', { name, slug: `doomed-${id}` });
    await admin.send('PATCH', `/services/${service.id}/archive`);

    await signInAsAdmin(page);
    await page.getByLabel('Show Archived').check();
    await page.getByRole('button', { name: `Actions for ${name}` }).click();
    await page.getByRole('menuitem', { name: 'Delete Permanently' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Permanently' });
    await expect(dialog).toContainText('This cannot be undone');
    await dialog.getByLabel('Type DELETE to confirm').fill('delete');
    await dialog.getByRole('button', { name: 'Delete Permanently' }).click();
    await expect(dialog.getByText('Please type DELETE to confirm')).toBeVisible();
    await expectAccessible(page, 'permanent delete dialog');
    await dialog.getByLabel('Type DELETE to confirm').fill('DELETE');
    await dialog.getByRole('button', { name: 'Delete Permanently' }).click();
    await expect(dialog).toBeHidden();
    await expect(card(page, name)).toHaveCount(0);
    await expect(page.getByRole('status').filter({ hasText: 'Service deleted.' })).toBeVisible();
  });

  test('a failed action shows a closable error notification with the fallback message', async ({ page, request }) => {
    const id = unique();
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const name = `Stubborn ${id}`;
    await admin.send('POST', '/services', { name, slug: `stubborn-${id}` });
    await page.route('**/api/services/*/archive', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{}' }));

    await signInAsAdmin(page);
    await page.getByRole('button', { name: `Actions for ${name}` }).click();
    await page.getByRole('menuitem', { name: 'Archive' }).click();
    await page.getByRole('dialog', { name: 'Archive Service' }).getByRole('button', { name: 'Archive' }).click();
    const notification = page.locator('.mantine-Notification-root').filter({ hasText: 'Failed to archive service' });
    await expect(notification).toBeVisible();
    // Hovering pauses the auto-close, so the checks below run while it is still on screen.
    await notification.hover();
    await expect.poll(() => notification.evaluate((el) => getComputedStyle(el).opacity)).toBe('1');
    await expectAccessible(page, 'error notification');
    await notification.getByRole('button', { name: 'Close notification' }).click();
    await expect(notification).toBeHidden();
    await expect(card(page, name)).toBeVisible();
  });

  test('a reader sees the services but no admin controls', async ({ page, request }) => {
    const id = unique();
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const email = `reader-${id}@example.com`;
    await admin.send('POST', '/users', { email, name: `Reader ${id}`, role: 'reader', password: 'reader-password' });

    await loginThroughPage(page, email, 'reader-password');
    await expect(page.getByRole('heading', { level: 1, name: FIRST_TENANT.name })).toBeVisible();
    await expect(card(page, 'Demo')).toBeVisible();
    await expect(page.getByRole('button', { name: '+ New Service' })).toHaveCount(0);
    await expect(page.getByLabel('Show Archived')).toHaveCount(0);
    await expect(page.getByRole('button', { name: /^Actions for/ })).toHaveCount(0);
    await expectAccessible(page, 'reader dashboard');
  });
});

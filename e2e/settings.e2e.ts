import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';
import type { Page } from '@playwright/test';
import { ADMIN, apiAs, expect, expectAccessible, FIRST_TENANT, loginThroughPage, test, signIn } from './fixtures';

/** A 1x1 transparent PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

/** A 256x256 PNG of random noise: it cannot be compressed below the icon limit. */
function noisePng(size = 256): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body) >>> 0);
    return Buffer.concat([len, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8);
  const rows: Buffer[] = [];
  for (let y = 0; y < size; y++) rows.push(Buffer.concat([Buffer.from([0]), randomBytes(size * 4).map((b, i) => (i % 4 === 3 ? 255 : b))]));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const uid = () => randomBytes(3).toString('hex');

/** Accepts every browser alert and confirm, and remembers their texts. */
function acceptDialogs(page: Page): string[] {
  const seen: string[] = [];
  page.on('dialog', (d) => {
    seen.push(d.message());
    void d.accept();
  });
  return seen;
}

async function newService(request: Parameters<typeof apiAs>[0], name: string) {
  const api = await apiAs(request, ADMIN.email, ADMIN.password, FIRST_TENANT.slug);
  const { service } = await api.send('POST', '/services', { name, slug: name.toLowerCase().replace(/\s+/g, '-') });
  return { api, service: service as { id: string; slug: string; name: string } };
}

async function openSettings(page: Page, serviceId: string) {
  await signIn(page, ADMIN.email, ADMIN.password, `/catalog/${serviceId}/settings`);
  await expect(page.getByRole('tab', { name: 'Service Details' })).toBeVisible();
}

test.describe('service settings', () => {
  test('shows every tab and saves the service details with an icon', async ({ page, request }) => {
    const { service } = await newService(request, `Details ${uid()}`);
    const alerts = acceptDialogs(page);
    await openSettings(page, service.id);
    await expect(page.getByRole('tab', { name: 'User Assignments' })).toBeVisible();
    await expect(page.getByText('Slug cannot be changed')).toBeVisible();
    await expect(page.getByRole('textbox', { name: 'Slug' })).toHaveAttribute('readonly', '');
    await expect(page.getByRole('textbox', { name: 'Description' })).toHaveAttribute('rows', '3');
    await expect(page.getByRole('textbox', { name: 'Subscription Model' })).toHaveAttribute('rows', '3');
    await expectAccessible(page, 'service details tab');

    const fileInput = page.locator('input[type="file"]');
    await fileInput.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await expect(page.getByText('Invalid file type. Please provide an image file.')).toBeVisible();
    await fileInput.setInputFiles({ name: 'photo.bmp', mimeType: 'image/bmp', buffer: Buffer.from('BM') });
    await expect(page.getByText('Please select a valid image file (JPG, PNG, GIF, or SVG)')).toBeVisible();
    await fileInput.setInputFiles({ name: 'noise.png', mimeType: 'image/png', buffer: noisePng() });
    await expect(page.getByText(/^Image is still too large after compression \(\d+KB\)\. Please use a simpler image\.$/)).toBeVisible();
    await fileInput.setInputFiles({ name: 'icon.png', mimeType: 'image/png', buffer: PNG });
    await expect(page.getByRole('img', { name: 'Icon preview' })).toBeVisible();

    await page.getByRole('textbox', { name: 'Name' }).fill(`${service.name} renamed`);
    await page.getByRole('textbox', { name: 'Service Owner' }).fill('Platform team');
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await expect.poll(() => alerts).toContain('Service details updated successfully');
    await expect(page.getByRole('heading', { level: 1 })).toContainText(`${service.name} renamed`);

    await page.getByRole('tab', { name: 'Actor Roles' }).click();
    await expect(page.getByPlaceholder('Add new role...')).toBeVisible();
    await expectAccessible(page, 'actor roles tab');
    await page.getByRole('tab', { name: 'Quick Templates' }).click();
    await expect(page.getByPlaceholder('Add new template...')).toBeVisible();
    await expectAccessible(page, 'quick templates tab');
    await page.getByRole('tab', { name: 'User Assignments' }).click();
    await expect(page.getByText('No user assignments yet.')).toBeVisible();
    await expectAccessible(page, 'user assignments tab');
  });

  test('adds and removes actor roles and quick templates; a template shows in the availability editor', async ({ page, request }) => {
    const { api, service } = await newService(request, `Tags ${uid()}`);
    const { category } = await api.send('POST', '/categories', { serviceId: service.id, name: 'Core' });
    await api.send('POST', '/aspects', { serviceId: service.id, categoryId: category.id, title: 'Login', isPublic: true });
    acceptDialogs(page);
    await openSettings(page, service.id);

    await page.getByRole('tab', { name: 'Actor Roles' }).click();
    await page.getByRole('button', { name: 'Add' }).click();
    await expect(page.getByRole('alert')).toHaveText('Role name is required');
    await page.getByPlaceholder('Add new role...').fill('Student');
    await page.keyboard.press('Enter');
    const roles = page.getByRole('list', { name: 'Actor roles' });
    await expect(roles.getByRole('listitem')).toHaveText(['Student']);
    await page.getByPlaceholder('Add new role...').fill('Teacher');
    await page.getByRole('button', { name: 'Add' }).click();
    await expect(roles.getByRole('listitem')).toHaveText(['Student', 'Teacher']);
    await page.getByRole('button', { name: 'Delete Student' }).click();
    await expect(roles.getByRole('listitem')).toHaveText(['Teacher']);

    await page.getByRole('tab', { name: 'Quick Templates' }).click();
    await page.getByRole('button', { name: 'Add' }).click();
    await expect(page.getByRole('alert')).toHaveText('Template text is required');
    await page.getByPlaceholder('Add new template...').fill('Generally available');
    await page.getByRole('button', { name: 'Add' }).click();
    await expect(page.getByRole('list', { name: 'Quick templates' }).getByRole('listitem')).toHaveText(['Generally available']);
    await page.getByPlaceholder('Add new template...').fill('Obsolete');
    await page.getByRole('button', { name: 'Add' }).click();
    await expect(page.getByRole('list', { name: 'Quick templates' }).getByRole('listitem')).toHaveText(['Generally available', 'Obsolete']);
    await page.getByRole('button', { name: 'Delete Obsolete' }).click();
    await expect(page.getByRole('list', { name: 'Quick templates' }).getByRole('listitem')).toHaveText(['Generally available']);
    await expectAccessible(page, 'quick templates with tags');

    await page.getByRole('link', { name: /Back to Catalog/ }).click();
    await page
      .getByRole('button', { name: /^Login, \d{4}-Q\d: -$/ })
      .first()
      .click();
    const availability = page.getByRole('dialog', { name: 'Edit Availability' });
    await expect(availability.getByRole('button', { name: 'Generally available' })).toBeVisible();
    await expect(availability.getByRole('button', { name: 'Obsolete' })).toHaveCount(0);
  });

  test('assigns an existing user, creates a new one and removes an assignment', async ({ page, request }) => {
    const { api, service } = await newService(request, `Users ${uid()}`);
    const email = `reader-${uid()}@example.com`;
    await api.send('POST', `/services/${service.id}/users/new`, { email, name: 'Rita Reader', role: 'reader', assign: false });
    acceptDialogs(page);
    await openSettings(page, service.id);
    await page.getByRole('tab', { name: 'User Assignments' }).click();

    await page.getByRole('button', { name: 'Add Assignment' }).click();
    await expect(page.getByText('Please select a user')).toBeVisible();
    await expect(page.getByText('Please select a role')).toBeVisible();
    // The selector searches the tenant's users on the server as one types.
    await page.getByRole('combobox', { name: 'User' }).fill(email);
    await page.getByRole('option', { name: `Rita Reader (${email})` }).click();
    // The user's error goes as soon as one is chosen; the role's stays until a role is.
    await expect(page.getByText('Please select a user')).toHaveCount(0);
    await expect(page.getByText('Please select a role')).toBeVisible();
    await page.getByRole('combobox', { name: 'Role', exact: true }).click();
    await page.getByRole('option', { name: 'Editor' }).click();
    await page.getByRole('button', { name: 'Add Assignment' }).click();
    const table = page.getByRole('table', { name: 'User assignments' });
    await expect(table.getByRole('row', { name: new RegExp(email) })).toBeVisible();
    await expect(table.getByRole('combobox', { name: `Role of ${email}` })).toHaveValue('Editor');

    await page.getByRole('button', { name: 'Create New User' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create New User' });
    await expect(dialog.getByRole('checkbox', { name: 'Assign to this service' })).toBeChecked();
    await expectAccessible(page, 'create new user modal');
    await dialog.getByRole('button', { name: 'Create User' }).click();
    await expect(dialog.getByText('Email and name are required')).toHaveCount(2);
    const newEmail = `new-${uid()}@example.com`;
    await dialog.getByRole('textbox', { name: 'Email' }).fill(newEmail);
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Nina New');
    await dialog.getByLabel('Set a password').check();
    await dialog.getByRole('textbox', { name: 'Password', exact: true }).fill('123');
    await dialog.getByRole('button', { name: 'Create User' }).click();
    await expect(dialog.getByText('Password must be at least 6 characters')).toBeVisible();
    await dialog.getByRole('textbox', { name: 'Password', exact: true }).fill('secret-456');
    await dialog.getByRole('button', { name: 'Create User' }).click();
    await expect(dialog).toBeHidden();
    await expect(table.getByRole('row', { name: new RegExp(newEmail) })).toBeVisible();

    await table.getByRole('button', { name: `Remove ${email}` }).click();
    await expect(table.getByRole('row', { name: new RegExp(email) })).toHaveCount(0);
    await expect(page.getByRole('status').filter({ hasText: 'Removed from this service.' })).toBeVisible();
    await expectAccessible(page, 'user assignments with rows');
  });

  test('creates a snapshot and shows its frozen roadmap', async ({ page, request }) => {
    const { api, service } = await newService(request, `Snap ${uid()}`);
    const { category } = await api.send('POST', '/categories', { serviceId: service.id, name: 'Core' });
    await api.send('POST', '/aspects', { serviceId: service.id, categoryId: category.id, title: 'Frozen aspect', isPublic: true });
    const alerts = acceptDialogs(page);
    await openSettings(page, service.id);
    await page.getByRole('button', { name: 'Create Snapshot' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create Snapshot' });
    await expect(dialog.getByRole('textbox', { name: 'Note' })).toHaveAttribute('rows', '2');
    await expectAccessible(page, 'create snapshot modal');
    await dialog.getByRole('button', { name: 'Create Snapshot' }).click();
    await expect(dialog.getByText('Snapshot label is required')).toBeVisible();
    await dialog.getByRole('textbox', { name: 'Label' }).fill('Board review');
    await dialog.getByRole('textbox', { name: 'Note' }).fill('As presented');
    await dialog.getByRole('button', { name: 'Create Snapshot' }).click();
    await expect.poll(() => alerts).toContain('Snapshot created successfully!');
    await expect(dialog).toBeHidden();

    const list = page.getByRole('table', { name: 'Snapshots' });
    await expect(list.getByRole('row', { name: /Board review/ })).toContainText('As presented');
    await list.getByRole('button', { name: 'View snapshot Board review' }).click();
    const view = page.getByRole('dialog', { name: 'Snapshot: Board review' });
    await expect(view.getByText('Frozen aspect')).toBeVisible();
    await expectAccessible(page, 'snapshot view');
    await page.keyboard.press('Escape');
    await expect(view).toBeHidden();
  });

  test('exports the service and imports it through the dashboard', async ({ page, request }) => {
    // An export, an import preview and the import itself, each checked with axe.
    test.setTimeout(60_000);
    const { api, service } = await newService(request, `Porta ${uid()}`);
    const { category } = await api.send('POST', '/categories', { serviceId: service.id, name: 'Moved along' });
    await api.send('POST', '/aspects', { serviceId: service.id, categoryId: category.id, title: 'Round trip', isPublic: true });
    acceptDialogs(page);
    await openSettings(page, service.id);

    const csv = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    expect((await csv).suggestedFilename()).toBe(`${service.slug}.csv`);
    const exported = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export Service' }).click();
    const download = await exported;
    expect(download.suggestedFilename()).toBe(`${service.slug}.catalog`);
    const path = await download.path();

    await page.goto('/');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Import Service' });
    await expectAccessible(page, 'import modal');
    const input = dialog.locator('input[type="file"]');
    await input.setInputFiles({ name: 'service.zip', mimeType: 'application/zip', buffer: Buffer.from('nope') });
    await expect(dialog.getByRole('alert')).toHaveText('Please select a valid .catalog file');
    await input.setInputFiles({ name: `${service.slug}.catalog`, mimeType: 'application/gzip', buffer: readFileSync(path!) });
    // The service's name and slug are taken: free ones are proposed.
    const name = dialog.getByRole('textbox', { name: 'Name' });
    const slug = dialog.getByRole('textbox', { name: 'Slug' });
    await expect(name).toHaveValue(`${service.name} (2)`);
    await expect(slug).toHaveValue(`${service.slug}-2`);
    await expectAccessible(page, 'import modal with name and slug');
    await slug.fill(service.slug);
    await dialog.getByRole('button', { name: 'Import' }).click();
    await expect(dialog.getByText('A service with this slug already exists in this tenant')).toBeVisible();
    await slug.fill('Not valid');
    await dialog.getByRole('button', { name: 'Import' }).click();
    await expect(dialog.getByText('Slug may contain only lowercase letters, digits and hyphens')).toBeVisible();
    await expectAccessible(page, 'import modal with a refused slug');
    await name.fill(`${service.name} copy`);
    await slug.fill(`${service.slug}-copy`);
    await dialog.getByRole('button', { name: 'Import' }).click();
    await expect(page).toHaveURL(/\/catalog\/[0-9a-f-]{36}$/);
    expect(page.url()).not.toContain(service.id);
    await expect(page.getByText('Round trip')).toBeVisible();
    await expect(page.getByText('Moved along')).toBeVisible();
    await expect(page.getByRole('heading', { name: `${service.name} copy` })).toBeVisible();
  });

  test('archives and unarchives from the settings page', async ({ page, request }) => {
    const { service } = await newService(request, `Archive ${uid()}`);
    const alerts = acceptDialogs(page);
    await openSettings(page, service.id);
    await page.getByRole('button', { name: 'Archive Service' }).click();
    await expect(page).toHaveURL('/');
    await expect(page.getByRole('status').filter({ hasText: 'Service archived.' })).toBeVisible();
    expect(alerts.some((a) => a.startsWith('Archive '))).toBe(true);
    await page.goto(`/catalog/${service.id}/settings`);
    await expect(page.getByText('ARCHIVED', { exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Move to Another Tenant' })).toHaveCount(0);
    await expectAccessible(page, 'archived service settings');
    await page.getByRole('button', { name: 'Unarchive Service' }).click();
    await expect(page).toHaveURL('/');
    await page.goto(`/catalog/${service.id}/settings`);
    await expect(page.getByRole('button', { name: 'Archive Service' })).toBeVisible();
  });

  test('moves a service to another tenant', async ({ page, request }) => {
    const { api, service } = await newService(request, `Mover ${uid()}`);
    const targetName = `Target ${uid()}`;
    const { tenant } = await api.send('POST', '/tenants', { name: targetName, slug: targetName.toLowerCase().replace(/\s+/g, '-') });
    const alerts = acceptDialogs(page);
    await openSettings(page, service.id);
    await page.getByRole('button', { name: 'Move to Another Tenant' }).click();
    const dialog = page.getByRole('dialog', { name: 'Move to Another Tenant' });
    await expect(dialog).toContainText('all its data');
    await expectAccessible(page, 'move modal');
    await dialog.getByRole('button', { name: 'Move Service' }).click();
    await expect(dialog.getByText('Please select a target tenant')).toBeVisible();
    // Found by typing: a super admin of many tenants is offered a page of them at a time.
    await dialog.getByRole('combobox', { name: 'Target tenant' }).click();
    await dialog.getByRole('combobox', { name: 'Target tenant' }).fill(targetName);
    await page.getByRole('listbox', { name: 'Target tenant' }).getByRole('option', { name: targetName }).click();
    await dialog.getByRole('button', { name: 'Move Service' }).click();
    await expect(page).toHaveURL('/');
    expect(alerts).toContain('Service moved successfully');
    const moved = await api.send('GET', `/services/${service.id}`, undefined, tenant.slug);
    expect(moved.service.tenant_id).toBe(tenant.id);
  });

  test('an editor sees no admin controls and a reader is sent back to the catalog', async ({ page, request }) => {
    const { api, service } = await newService(request, `Rights ${uid()}`);
    const editor = { email: `editor-${uid()}@example.com`, password: 'editor-pass-1' };
    const reader = { email: `reader-${uid()}@example.com`, password: 'reader-pass-1' };
    await api.send('POST', `/services/${service.id}/users/new`, { ...editor, name: 'Eddie Editor', role: 'editor', assign: false });
    await api.send('POST', `/services/${service.id}/users/new`, { ...reader, name: 'Rob Reader', role: 'reader', assign: false });

    await loginThroughPage(page, editor.email, editor.password);
    await expect(page).toHaveURL('/');
    await page.goto(`/catalog/${service.id}/settings`);
    await expect(page.getByRole('tab', { name: 'Quick Templates' })).toBeVisible();
    await expect(page.getByRole('tab', { name: 'User Assignments' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Archive Service' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Move to Another Tenant' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Export Service' })).toBeVisible();
    await page.getByRole('button', { name: 'Log Out' }).click();
    await expect(page).toHaveURL('/login');

    await loginThroughPage(page, reader.email, reader.password);
    await expect(page).toHaveURL('/');
    await page.goto(`/catalog/${service.id}/settings`);
    await expect(page).toHaveURL(`/catalog/${service.id}`);
  });
});

import { randomBytes } from 'node:crypto';
import { ADMIN, apiAs, expect, expectAccessible, FIRST_TENANT, loginThroughPage, test } from './fixtures';

const uid = () => randomBytes(3).toString('hex');

/**
 * The page shows what the server says the caller may do: a reader whose assignment on one service
 * was raised to admin manages that service (archive, its assignments by email) and nothing of the
 * tenant (no new services, no import, no tenant users, no Create New User, no move).
 */
test("a reader raised to admin on one service gets that service's controls and no tenant controls", async ({ page, request }) => {
  const api = await apiAs(request, ADMIN.email, ADMIN.password, FIRST_TENANT.slug);
  const name = `Raised ${uid()}`;
  const { service } = await api.send('POST', '/services', { name, slug: name.toLowerCase().replace(/\s+/g, '-') });
  const otherName = `Not raised ${uid()}`;
  await api.send('POST', '/services', { name: otherName, slug: otherName.toLowerCase().replace(/\s+/g, '-') });
  const reader = { email: `raised-${uid()}@example.com`, password: 'raised-pass-1' };
  const colleague = `colleague-${uid()}@example.com`;
  await api.send('POST', `/services/${service.id}/users/new`, { ...reader, name: 'Rae Raised', role: 'reader', assign: false });
  await api.send('POST', `/services/${service.id}/users/new`, { email: colleague, name: 'Cole League', role: 'reader', assign: false });
  const { assignments } = await api.send('GET', `/services/${service.id}/users`);
  expect(assignments).toEqual([]);
  const { users } = await api.send('GET', '/users');
  const raisedUser = users.find((u: { email: string }) => u.email === reader.email);
  await api.send('POST', `/services/${service.id}/users`, { userId: raisedUser.id, role: 'admin' });

  await loginThroughPage(page, reader.email, reader.password);
  await expect(page).toHaveURL('/');
  await expect(page.getByRole('link', { name })).toBeVisible();
  await expect(page.getByRole('button', { name: `Actions for ${name}` })).toBeVisible();
  await expect(page.getByRole('button', { name: `Actions for ${otherName}` })).toHaveCount(0);
  await expect(page.getByRole('button', { name: '+ New Service' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Import' })).toHaveCount(0);
  await expect(page.getByRole('checkbox', { name: 'Show Archived' })).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Tenant Settings' })).toHaveCount(0);
  await expectAccessible(page, 'dashboard of a reader raised on one service');

  await page.goto(`/catalog/${service.id}/settings`);
  await expect(page.getByRole('button', { name: 'Archive Service' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Move to Another Tenant' })).toHaveCount(0);
  await page.getByRole('tab', { name: 'User Assignments' }).click();
  await expect(page.getByRole('button', { name: 'Create New User' })).toHaveCount(0);
  await expect(page.getByRole('combobox', { name: 'User' })).toHaveCount(0);
  await page.getByRole('textbox', { name: 'User email' }).fill(colleague);
  await page.getByRole('combobox', { name: 'Role', exact: true }).click();
  await page.getByRole('option', { name: 'Editor' }).click();
  await page.getByRole('button', { name: 'Add Assignment' }).click();
  const table = page.getByRole('table', { name: 'User assignments' });
  await expect(table.getByRole('combobox', { name: `Role of ${colleague}` })).toHaveValue('Editor');
  await expectAccessible(page, 'user assignments of a service admin by assignment');

  await page.goto('/tenant-settings');
  await expect(page).toHaveURL('/');
});

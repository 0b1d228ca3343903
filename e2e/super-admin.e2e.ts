import { test, expect, ADMIN, FIRST_TENANT, apiAs, expectAccessible, loginThroughPage, signIn } from './fixtures';
import { M } from '../common/messages';
import { INTEGRATION_MESSAGES } from '../common/schemas/integrations';

const unique = () => `${Date.now()}${Math.floor(Math.random() * 1000)}`;

test.describe('Super admin panel', () => {
  test('create a tenant, create a user in it and manage their memberships', async ({ page, request }) => {
    test.setTimeout(90_000);
    const u = unique();
    const tenantName = `Panel Tenant ${u}`;
    const email = `panel-user-${u}@example.com`;
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.getByRole('link', { name: 'Super Admin Panel' }).click();
    await expect(page).toHaveURL(/\/super-admin$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Super Admin Panel' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Tenant Management' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'User Management' })).toBeVisible();
    await expect(page.getByRole('row', { name: /Administrator/ }).getByText('You')).toBeVisible();
    await expectAccessible(page, 'super admin panel');

    // Create Tenant: the slug follows the name until edited.
    await page.getByRole('button', { name: '+ Create Tenant' }).click();
    const tenantDialog = page.getByRole('dialog', { name: 'Create Tenant' });
    await tenantDialog.getByLabel('Name').fill(tenantName);
    await expect(tenantDialog.getByLabel('Slug')).toHaveValue(`panel-tenant-${u}`);
    await expectAccessible(page, 'create tenant modal');
    await tenantDialog.getByRole('button', { name: 'Create Tenant' }).click();
    await expect(tenantDialog).toBeHidden();
    const tenantRow = page.getByRole('row', { name: new RegExp(tenantName) });
    await expect(tenantRow).toContainText('Active');

    // Edit Tenant: the slug is read-only.
    await tenantRow.getByRole('button', { name: 'Edit' }).click();
    const editDialog = page.getByRole('dialog', { name: 'Edit Tenant' });
    await expect(editDialog.getByLabel('Slug')).toHaveAttribute('readonly', '');
    await expectAccessible(page, 'edit tenant modal');
    await editDialog.getByLabel('Name').fill(`${tenantName} Renamed`);
    await editDialog.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('row', { name: new RegExp(`${tenantName} Renamed`) })).toBeVisible();

    // Create User in the new tenant, with a password.
    await page.getByRole('button', { name: '+ Create User' }).click();
    const userDialog = page.getByRole('dialog', { name: 'Create User' });
    await userDialog.getByRole('button', { name: 'Create User' }).click();
    // Each missing field says what the form needs.
    await expect(userDialog.getByText(M.emailNameRoleTenantRequired)).toHaveCount(4);
    await userDialog.getByLabel('Email').fill(email);
    await userDialog.getByLabel('Name').fill(`Panel User ${u}`);
    await userDialog.getByLabel('Role').selectOption('editor');
    // The tenant is found by typing: the server answers at most a page of options.
    await userDialog.getByRole('combobox', { name: 'Tenant' }).fill(`${tenantName} Renamed`);
    await page
      .getByRole('listbox', { name: 'Tenant' })
      .getByRole('option', { name: `${tenantName} Renamed` })
      .click();
    await expect(userDialog.getByRole('textbox', { name: 'Password', exact: true })).toHaveCount(0);
    await userDialog.getByLabel('Set a password').check();
    await userDialog.getByRole('textbox', { name: 'Password', exact: true }).fill('secret-pass');
    await expectAccessible(page, 'create user modal');
    await userDialog.getByRole('button', { name: 'Create User' }).click();
    await expect(userDialog).toBeHidden();
    const userRow = page.getByRole('row', { name: new RegExp(email) });

    // Search (by the server: the list comes a page at a time) and group filter.
    await page.getByLabel('Search users').fill(email);
    await expect(userRow).toContainText(`${tenantName} Renamed`);
    await expect(userRow).toContainText('Manual');
    await expect(page.getByRole('region', { name: 'User Management' }).getByRole('row')).toHaveCount(2);
    await page.getByLabel('User group').selectOption({ label: 'Auto-Provisioned Only' });
    await expect(userRow).toBeHidden();
    await page.getByLabel('User group').selectOption({ label: 'All User Groups' });
    await expect(userRow).toBeVisible();

    // Manage Tenant Memberships: add the first tenant; the primary one must stay.
    await userRow.getByRole('button', { name: 'Manage Tenants' }).click();
    const memberships = page.getByRole('dialog', { name: 'Manage Tenant Memberships' });
    await memberships.getByLabel(`${tenantName} Renamed (primary)`).uncheck();
    await memberships.getByRole('button', { name: 'Save' }).click();
    await expect(memberships.getByText(M.membershipAtLeastOne)).toBeVisible();
    // Tenants to join are found by a search on the server.
    await memberships.getByLabel('Find a tenant').fill(FIRST_TENANT.name);
    await memberships.getByLabel(FIRST_TENANT.name).check();
    await memberships.getByRole('button', { name: 'Save' }).click();
    await expect(memberships.getByRole('alert')).toHaveText(M.membershipPrimary);
    await memberships.getByLabel(`${tenantName} Renamed (primary)`).check();
    await expectAccessible(page, 'memberships modal');
    await memberships.getByRole('button', { name: 'Save' }).click();
    await expect(memberships).toBeHidden();

    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const { users } = await admin.send('GET', '/admin/users');
    const created = users.find((x: { email: string }) => x.email === email);
    expect(created.tenant_ids).toHaveLength(2);
    // The new user signs in with the password set in the panel.
    await apiAs(request, email, 'secret-pass');
  });

  test('archive, then permanently delete a tenant after typing DELETE', async ({ page, request }) => {
    test.setTimeout(90_000);
    const u = unique();
    const name = `Doomed ${u}`;
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    await admin.send('POST', '/tenants', { name, slug: `doomed-${u}` });

    await signIn(page, ADMIN.email, ADMIN.password, '/super-admin');
    const row = page.getByRole('row', { name: new RegExp(name) });
    await row.getByRole('button', { name: 'Archive' }).click();
    const confirm = page.getByRole('dialog', { name: 'Archive Tenant' });
    await expect(confirm).toContainText(M.archiveTenantConfirm);
    await expectAccessible(page, 'archive confirmation');
    await confirm.getByRole('button', { name: 'Archive' }).click();
    await expect(row).toBeHidden();
    await expect(page.getByRole('status').filter({ hasText: 'Tenant archived.' })).toBeVisible();

    await page.getByLabel('Show Archived Tenants').check();
    await expect(row).toContainText('ARCHIVED');
    await expect(row.getByRole('button', { name: 'Unarchive' })).toBeVisible();
    await row.getByRole('button', { name: 'Delete Permanently' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Tenant Permanently' });
    await dialog.getByLabel('Type DELETE to confirm').fill('delete');
    await dialog.getByRole('button', { name: 'Delete Permanently' }).click();
    await expect(dialog.getByText(M.typeDelete)).toBeVisible();
    await expectAccessible(page, 'delete tenant modal');
    await dialog.getByLabel('Type DELETE to confirm').fill('DELETE');
    await dialog.getByRole('button', { name: 'Delete Permanently' }).click();
    await expect(dialog).toBeHidden();
    await expect(row).toHaveCount(0);
    await expect(page.getByRole('status').filter({ hasText: 'Tenant deleted.' })).toBeVisible();
    const { tenants } = await admin.send('GET', '/tenants?includeArchived=true');
    expect(tenants.map((t: { name: string }) => t.name)).not.toContain(name);
  });

  test('a user who is not a super admin going to /super-admin lands on /', async ({ page, request }) => {
    test.setTimeout(90_000);
    const u = unique();
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const { tenant } = await admin.send('POST', '/tenants', { name: `Guarded ${u}`, slug: `guarded-${u}` });
    const email = `guarded-${u}@example.com`;
    await admin.send('POST', '/admin/users', { email, name: 'Guarded Admin', role: 'admin', tenant_id: tenant.id, password: 'secret-pass' });
    await loginThroughPage(page, email, 'secret-pass');
    await expect(page).toHaveURL(/\/$/);
    await page.goto('/super-admin');
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole('heading', { level: 1, name: `Guarded ${u}` })).toBeVisible();
  });

  test("finds a tenant's API token by search and revokes it after confirming, also 390 px wide", async ({ page, request }) => {
    test.setTimeout(120_000);
    const u = unique();
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const { tenant } = await admin.send('POST', '/tenants', { name: `Token Tenant ${u}`, slug: `token-tenant-${u}` });
    const email = `token-admin-${u}@example.com`;
    await admin.send('POST', '/admin/users', { email, name: `Token Admin ${u}`, role: 'admin', tenant_id: tenant.id, password: 'secret-pass' });
    const owner = await apiAs(request, email, 'secret-pass', tenant.slug);
    const exporter = await owner.send('POST', '/api-tokens', { name: `Nightly export ${u}`, role: 'reader' });
    const portal = await owner.send('POST', '/api-tokens', { name: `Developer portal ${u}`, role: 'editor' });
    const works = async (secret: string) => (await request.get('/api/services', { headers: { authorization: `Bearer ${secret}` } })).status();
    expect(await works(exporter.secret)).toBe(200);

    await signIn(page, ADMIN.email, ADMIN.password, '/super-admin');
    const section = page.getByRole('region', { name: 'API Tokens', exact: true });
    await expect(section.getByRole('heading', { name: 'API Tokens' })).toBeVisible();

    // The tenant's name finds both of its tokens; the token's name finds the one.
    await section.getByLabel('Search API tokens').fill(`token tenant ${u}`);
    await expect(section.getByRole('row', { name: new RegExp(`Developer portal ${u}`) })).toContainText('Editor');
    await section.getByLabel('Search API tokens').fill(`Nightly export ${u}`);
    await expect(section.getByRole('row', { name: new RegExp(`Developer portal ${u}`) })).toHaveCount(0);
    const row = section.getByRole('row', { name: new RegExp(`Nightly export ${u}`) });
    await expect(row).toContainText(`Token Tenant ${u}`);
    await expect(row).toContainText('Reader');
    await expect(row).toContainText('All services');
    await expectAccessible(page, 'super admin panel, API tokens');

    // Cancelling changes nothing; confirming revokes it at once.
    await row.getByRole('button', { name: `Revoke Nightly export ${u} of Token Tenant ${u}` }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke API token' });
    await expect(confirm).toContainText(`Revoke Nightly export ${u} of Token Tenant ${u}?`);
    await expectAccessible(page, 'revoke API token confirmation in the panel');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect(confirm).toBeHidden();
    expect(await works(exporter.secret)).toBe(200);
    await row.getByRole('button', { name: /^Revoke / }).click();
    await confirm.getByRole('button', { name: 'Revoke' }).click();
    await expect(confirm).toBeHidden();
    await expect(page.getByRole('status').filter({ hasText: INTEGRATION_MESSAGES.tokenRevoked })).toBeVisible();
    await expect(row).toHaveCount(0);
    await expect(section.getByText('No API tokens found.')).toBeVisible();
    expect(await works(exporter.secret)).toBe(401);
    await section.getByLabel('Show Revoked Tokens').check();
    await expect(row).toContainText('Revoked');
    await expect(row.getByRole('button', { name: /^Revoke / })).toHaveCount(0);
    await section.getByLabel('Show Revoked Tokens').uncheck();

    // 390 px wide: the table scrolls in its own panel, the page never sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await section.getByLabel('Search API tokens').fill(`Developer portal ${u}`);
    const other = section.getByRole('row', { name: new RegExp(`Developer portal ${u}`) });
    await expect(other).toContainText(`Token Tenant ${u}`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - innerWidth)).toBeLessThanOrEqual(0);
    await expectAccessible(page, 'super admin panel, API tokens at 390 px');
    await other.getByRole('button', { name: `Revoke Developer portal ${u} of Token Tenant ${u}` }).click();
    await expectAccessible(page, 'revoke API token confirmation at 390 px');
    await confirm.getByRole('button', { name: 'Revoke' }).click();
    await expect(other).toHaveCount(0);
    expect(await works(portal.secret)).toBe(401);
  });
});

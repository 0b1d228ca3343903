import { test, expect, ADMIN, apiAs, expectAccessible, loginThroughPage, signIn } from './fixtures';
import { M } from '../common/messages';

test.describe('Tenant settings', () => {
  test('a tenant admin adds and deletes users and cannot delete themselves', async ({ page, request }) => {
    test.setTimeout(90_000);
    const u = `${Date.now()}`;
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const { tenant } = await admin.send('POST', '/tenants', { name: `Settings Org ${u}`, slug: `settings-${u}` });
    const email = `tenant-admin-${u}@example.com`;
    await admin.send('POST', '/admin/users', { email, name: `Tenant Admin ${u}`, role: 'admin', tenant_id: tenant.id, password: 'secret-pass' });

    await loginThroughPage(page, email, 'secret-pass');
    await expect(page).toHaveURL(/\/$/);
    await page.goto('/tenant-settings');
    await expect(page.getByRole('heading', { level: 1, name: 'Tenant Settings' })).toBeVisible();
    // The page also shows the audit log, whose rows name the same people: look in the users table.
    const usersSection = page.getByRole('region', { name: /^Users of/ });
    for (const column of ['Name', 'Email', 'Role', 'Auth Provider', 'Created', 'Delete']) {
      await expect(usersSection.getByRole('columnheader', { name: column, exact: true })).toBeVisible();
    }
    await expectAccessible(page, 'tenant settings');

    await page.getByRole('button', { name: '+ Add User' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add User' });
    await dialog.getByLabel('Email').fill('not-an-email');
    await dialog.getByLabel('Name').fill('Local Colleague');
    await dialog.getByLabel('Role').selectOption('editor');
    await dialog.getByRole('button', { name: 'Create User' }).click();
    await expect(dialog.getByText(M.invalidEmail)).toBeVisible();
    await dialog.getByLabel('Email').fill(`local-${u}@example.com`);
    await dialog.getByLabel('Set a password').check();
    await dialog.getByRole('textbox', { name: 'Password', exact: true }).fill('12345');
    await dialog.getByRole('button', { name: 'Create User' }).click();
    await expect(dialog.getByText(M.passwordMin)).toBeVisible();
    await dialog.getByRole('textbox', { name: 'Password', exact: true }).fill('123456');
    await expectAccessible(page, 'add user modal');
    await dialog.getByRole('button', { name: 'Create User' }).click();
    await expect(dialog).toBeHidden();
    const local = usersSection.getByRole('row', { name: new RegExp(`local-${u}@example.com`) });
    await expect(local).toContainText('Local');
    await expect(local).toContainText('Editor');

    await page.getByRole('button', { name: '+ Add User' }).click();
    await dialog.getByLabel('Email').fill(`sso-${u}@example.com`);
    await dialog.getByLabel('Name').fill('Sso Colleague');
    await dialog.getByLabel('Role').selectOption('reader');
    await dialog.getByRole('button', { name: 'Create User' }).click();
    const sso = usersSection.getByRole('row', { name: new RegExp(`sso-${u}@example.com`) });
    await expect(sso).toContainText('Entra');

    await local.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete User' });
    await expectAccessible(page, 'delete user confirmation');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    // A user added here is invited until they accept: deleting them withdraws the invitation.
    await expect(page.getByRole('status').filter({ hasText: 'Invitation withdrawn.' })).toBeVisible();
    await expect(local).toHaveCount(0);

    await usersSection
      .getByRole('row', { name: new RegExp(email) })
      .getByRole('button', { name: 'Delete' })
      .click();
    const bar = page.getByTestId('message-bar');
    await expect(bar).toContainText(M.cannotDeleteOwnAccount);
    await bar.getByRole('button', { name: 'Dismiss message' }).click();
    await expect(bar).toHaveCount(0);
    await expect(usersSection.getByRole('row', { name: new RegExp(email) })).toBeVisible();
  });

  test('a super admin going to /tenant-settings lands on /', async ({ page }) => {
    test.setTimeout(90_000);
    await signIn(page, ADMIN.email, ADMIN.password, '/tenant-settings');
    await expect(page).toHaveURL(/\/$/);
  });
});

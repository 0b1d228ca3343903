import { test, expect, ADMIN, apiAs, expectAccessible, loginThroughPage } from './fixtures';
import { M } from '../common/messages';

test.describe('User forms', () => {
  test('a create-user error clears as its field is fixed, and a form that succeeded opens clean', async ({ page, request }) => {
    test.setTimeout(90_000);
    const u = `${Date.now()}`;
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const { tenant } = await admin.send('POST', '/tenants', { name: `Forms Org ${u}`, slug: `forms-${u}` });
    const email = `forms-admin-${u}@example.com`;
    await admin.send('POST', '/admin/users', { email, name: `Forms Admin ${u}`, role: 'admin', tenant_id: tenant.id, password: 'secret-pass' });

    await loginThroughPage(page, email, 'secret-pass');
    await expect(page).toHaveURL(/\/$/);
    await page.goto('/tenant-settings');
    await page.getByRole('button', { name: '+ Add User' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add User' });
    const emailField = dialog.getByRole('textbox', { name: 'Email' });

    // A field says nothing until it is left; then its error shows and it is marked invalid.
    await emailField.fill('not-an-email');
    await expect(dialog.getByText(M.invalidEmail)).toHaveCount(0);
    await emailField.blur();
    await expect(dialog.getByText(M.invalidEmail)).toBeVisible();
    await expect(emailField).toHaveAttribute('aria-invalid', 'true');
    await expectAccessible(page, 'add user modal with an error');

    // Fixed, the error goes at once, before any submit.
    await emailField.fill(`fixed-${u}@example.com`);
    await expect(dialog.getByText(M.invalidEmail)).toHaveCount(0);
    await expect(emailField).not.toHaveAttribute('aria-invalid', 'true');

    // A submit with the rest missing names each missing field; each clears as it is filled.
    await dialog.getByRole('button', { name: 'Create User' }).click();
    await expect(dialog.getByText(M.emailNameRoleRequired)).toHaveCount(2);
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Fixed Colleague');
    await expect(dialog.getByText(M.emailNameRoleRequired)).toHaveCount(1);
    await dialog.getByLabel('Role').selectOption('reader');
    await expect(dialog.getByText(M.emailNameRoleRequired)).toHaveCount(0);

    await dialog.getByRole('button', { name: 'Create User' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByText('User created.')).toBeVisible();

    // Opened again after a success: empty, and no error left from the earlier tries.
    await page.getByRole('button', { name: '+ Add User' }).click();
    await expect(dialog).toBeVisible();
    await expect(emailField).toHaveValue('');
    await expect(dialog.getByText(M.invalidEmail)).toHaveCount(0);
    await expect(dialog.getByText(M.emailNameRoleRequired)).toHaveCount(0);
    await expect(dialog.getByRole('alert')).toHaveCount(0);
    await expectAccessible(page, 'add user modal opened again');
  });
});

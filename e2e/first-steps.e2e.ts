import { test, expect, ADMIN, apiAs, expectAccessible, loginThroughPage } from './fixtures';
import { unique } from './catalogHelpers';

/** An empty tenant says what to do next, with the action one click away. */
test.describe('First steps', () => {
  test.describe.configure({ timeout: 60_000 });

  test("an empty tenant's dashboard keeps 'No services yet.' and offers creating a service and inviting people; a reader is told who adds them", async ({
    page,
    request,
  }) => {
    const u = unique();
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const { tenant } = await admin.send('POST', '/tenants', { name: `Empty Org ${u}`, slug: `empty-${u}` });
    const email = `first-admin-${u}@example.com`;
    await admin.send('POST', '/admin/users', { email, name: `First Admin ${u}`, role: 'admin', tenant_id: tenant.id, password: 'secret-pass' });
    const readerEmail = `first-reader-${u}@example.com`;
    await admin.send('POST', '/admin/users', { email: readerEmail, name: `First Reader ${u}`, role: 'reader', tenant_id: tenant.id, password: 'secret-pass' });

    await loginThroughPage(page, email, 'secret-pass');
    const steps = page.getByTestId('first-steps');
    await expect(steps.getByText('No services yet.', { exact: true })).toBeVisible();
    await expectAccessible(page, 'empty dashboard, first steps');
    await steps.getByRole('button', { name: 'Create your first service' }).click();
    await expect(page.getByRole('dialog', { name: 'Create Service' })).toBeVisible();
    await page.keyboard.press('Escape');
    await steps.getByRole('link', { name: 'Invite people' }).click();
    await expect(page).toHaveURL(/\/tenant-settings$/);

    await page.getByRole('button', { name: 'Log Out' }).click();
    await expect(page).toHaveURL(/\/login$/);
    await loginThroughPage(page, readerEmail, 'secret-pass');
    await expect(steps.getByText('No services yet.', { exact: true })).toBeVisible();
    await expect(steps).toContainText('appear here once an editor creates them');
    await expect(steps.getByRole('button')).toHaveCount(0);
  });
});

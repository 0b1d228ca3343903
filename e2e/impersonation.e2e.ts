import { test, expect, ADMIN, apiAs, expectAccessible, loginThroughPage } from './fixtures';

test('a super admin impersonates a user, sees what they see, and stops', async ({ page, request }) => {

  test.setTimeout(90_000);
  const u = `${Date.now()}`;
  const admin = await apiAs(request, ADMIN.email, ADMIN.password);
  const { tenant } = await admin.send('POST', '/tenants', { name: `Impersonated Org ${u}`, slug: `impersonated-${u}` });
  const email = `target-${u}@example.com`;
  await admin.send('POST', '/admin/users', { email, name: `Target ${u}`, role: 'reader', tenant_id: tenant.id, password: 'secret-pass' });

  await loginThroughPage(page, ADMIN.email, ADMIN.password);
  await expect(page).toHaveURL(/\/$/);
  await page.goto('/super-admin');
  await page.getByLabel('Search users').fill(email);
  await page.getByRole('row', { name: new RegExp(email) }).getByRole('button', { name: 'Impersonate' }).click();

  // The banner shows on the user's own dashboard, in their tenant.
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByText(`You are impersonating Target ${u} (${email})`)).toBeVisible();
  await expect(page.getByRole('heading', { level: 1, name: tenant.name })).toBeVisible();
  await expect(page.getByTestId('user-name')).toHaveText(`Target ${u}`);
  await expect(page.getByText('No services yet.')).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('activeTenant'))).toBeNull();
  await expectAccessible(page, 'dashboard while impersonating');

  // The impersonation gives no super admin rights, in the page or the API.
  await page.goto('/super-admin');
  await expect(page).toHaveURL(/\/$/);
  const token = await page.evaluate(() => localStorage.getItem('token'));
  const denied = await request.get('/api/admin/users', { headers: { authorization: `Bearer ${token}` } });
  expect(denied.status()).toBe(403);

  await page.getByRole('button', { name: 'Stop Impersonation' }).click();
  await expect(page.getByText(/You are impersonating/)).toBeHidden();
  await expect(page.getByTestId('user-name')).toHaveText('Administrator');
  const revoked = await request.get('/api/auth/me', { headers: { authorization: `Bearer ${token}` } });
  expect(revoked.status()).toBe(401);
  await page.goto('/super-admin');
  await expect(page.getByRole('heading', { level: 1, name: 'Super Admin Panel' })).toBeVisible();
});

import { test, expect, ADMIN, apiAs, expectAccessible, loginThroughPage, signIn } from './fixtures';
import type { Page } from '@playwright/test';

/** The session id (`jti`) of the token the page keeps. */
const storedSessionId = (page: Page) =>
  page.evaluate(() => {
    const token = localStorage.getItem('token') ?? '';
    const payload = token.split('.')[1] ?? '';
    return (JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { jti: string }).jti;
  });

test('a super admin confirms an impersonation with a reason, sees what the user sees, and stops back to the panel', async ({ page, request }) => {
  test.setTimeout(120_000);
  const u = `${Date.now()}`;
  const admin = await apiAs(request, ADMIN.email, ADMIN.password);
  const { tenant } = await admin.send('POST', '/tenants', { name: `Impersonated Org ${u}`, slug: `impersonated-${u}` });
  const email = `target-${u}@example.com`;
  await admin.send('POST', '/admin/users', { email, name: `Target ${u}`, role: 'reader', tenant_id: tenant.id, password: 'secret-pass' });
  const tenantAdminEmail = `target-admin-${u}@example.com`;
  await admin.send('POST', '/admin/users', {
    email: tenantAdminEmail,
    name: `Target Admin ${u}`,
    role: 'admin',
    tenant_id: tenant.id,
    password: 'secret-pass',
  });
  const reason = `Support ticket ${u}`;

  await signIn(page, ADMIN.email, ADMIN.password);
  const session = await storedSessionId(page);
  await page.goto('/super-admin');
  await page.getByLabel('Search users').fill(email);
  const impersonateButton = page.getByRole('row', { name: new RegExp(email) }).getByRole('button', { name: 'Impersonate' });

  // Clicking asks first, naming the user and the tenant; Cancel starts nothing.
  await impersonateButton.click();
  const dialog = page.getByRole('dialog', { name: 'Impersonate User' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(`Impersonate Target ${u} (${email}) in Impersonated Org ${u}?`);
  await expect(dialog.getByRole('textbox', { name: 'Reason' })).toBeFocused();
  await expectAccessible(page, 'impersonation confirmation');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(page).toHaveURL(/\/super-admin$/);
  expect(await storedSessionId(page)).toBe(session);

  // Too long a reason is refused in the modal, with the server's own rule and message.
  await impersonateButton.click();
  await dialog.getByRole('textbox', { name: 'Reason' }).fill('x'.repeat(201));
  await dialog.getByRole('button', { name: 'Start' }).click();
  await expect(dialog.getByText('Reason must be at most 200 characters')).toBeVisible();
  await expect(dialog.getByRole('textbox', { name: 'Reason' })).toHaveAttribute('aria-invalid', 'true');
  await expectAccessible(page, 'impersonation confirmation with an invalid reason');
  await dialog.getByRole('textbox', { name: 'Reason' }).fill(reason);
  await dialog.getByRole('button', { name: 'Start' }).click();

  // The banner shows on the user's own dashboard, in their tenant, with the reason.
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByText(`You are impersonating Target ${u} (${email})`)).toBeVisible();
  await expect(page.getByRole('region', { name: 'Impersonation' })).toContainText(`Reason: ${reason}`);
  await expect(page.getByRole('heading', { level: 1, name: tenant.name })).toBeVisible();
  await expect(page.getByTestId('user-name')).toHaveText(`Target ${u}`);
  await expect(page.getByText('No services yet.')).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('activeTenant'))).toBeNull();
  await expectAccessible(page, 'dashboard while impersonating');

  // The reason stays after a reload (it comes back with the session).
  await page.reload();
  await expect(page.getByRole('region', { name: 'Impersonation' })).toContainText(`Reason: ${reason}`);

  // The impersonation gives no super admin rights, in the page or the API.
  await page.goto('/super-admin');
  await expect(page).toHaveURL(/\/$/);
  const token = await page.evaluate(() => localStorage.getItem('token'));
  const denied = await request.get('/api/admin/users', { headers: { authorization: `Bearer ${token}` } });
  expect(denied.status()).toBe(403);

  // Stopping returns to the panel, in the super admin's own session (the same one as before).
  await page.getByRole('button', { name: 'Stop Impersonation' }).click();
  await expect(page).toHaveURL(/\/super-admin$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Super Admin Panel' })).toBeVisible();
  await expect(page.getByText(/You are impersonating/)).toBeHidden();
  await expect(page.getByTestId('user-name')).toHaveText('Administrator');
  expect(await storedSessionId(page)).toBe(session);
  const revoked = await request.get('/api/auth/me', { headers: { authorization: `Bearer ${token}` } });
  expect(revoked.status()).toBe(401);

  // The tenant's admins read who impersonated whom, and why, in their audit log.
  await page.getByRole('button', { name: 'Log Out' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await loginThroughPage(page, tenantAdminEmail, 'secret-pass');
  await expect(page).toHaveURL(/\/$/);
  await page.goto('/tenant-settings');
  const log = page.getByRole('region', { name: 'Audit Log' });
  const started = log.getByRole('row').filter({ hasText: 'Started impersonating' });
  await expect(started).toContainText(`${ADMIN.email} impersonated ${email}`);
  await expect(started).toContainText(`Reason: ${reason}`);
  const stopped = log.getByRole('row').filter({ hasText: 'Stopped impersonating' });
  await expect(stopped).toContainText(`${ADMIN.email} stopped impersonating ${email}`);
  await expect(stopped).toContainText(`Reason: ${reason}`);
});

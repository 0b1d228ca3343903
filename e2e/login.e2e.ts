import { mkdirSync, copyFileSync } from 'node:fs';
import { test, expect, ADMIN, FIRST_TENANT, apiAs, expectAccessible, loginThroughPage } from './fixtures';

test.describe('Login and session', () => {
  test('the login page has the fields and buttons of the spec and passes axe', async ({ page }) => {
    await page.goto('/login');
    await expect(page.getByLabel('Email')).toBeVisible();
    await expect(page.getByRole('textbox', { name: 'Password', exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Log In' })).toBeVisible();
    await expect(page.getByText('OR', { exact: true })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Sign in with Microsoft' })).toBeVisible();
    await expectAccessible(page, 'login');
  });

  test('a wrong password shows the server message', async ({ page }) => {
    await loginThroughPage(page, ADMIN.email, 'definitely-wrong');
    await expect(page.getByRole('alert')).toContainText('Invalid email or password');
    await expect(page).toHaveURL(/\/login$/);
  });

  test('a malformed email is refused before any call', async ({ page }) => {
    await loginThroughPage(page, 'not-an-email', 'whatever');
    await expect(page.getByRole('alert')).toContainText('Invalid email format');
  });

  test('signed-out visitors are sent to /login from every guarded route', async ({ page }) => {
    for (const path of [
      '/',
      '/super-admin',
      '/tenant-settings',
      '/catalog/00000000-0000-0000-0000-000000000000',
      '/catalog/00000000-0000-0000-0000-000000000000/settings',
    ]) {
      await page.goto(path);
      await expect(page, path).toHaveURL(/\/login$/);
    }
  });

  test('sign in, see the dashboard with the tenant name and the Demo service, switch tenant, log out', async ({ page, request }) => {
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const second = `second-${Date.now()}`;
    await admin.send('POST', '/tenants', { name: 'Second Organisation', slug: second });

    await loginThroughPage(page, ADMIN.email, ADMIN.password);
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole('heading', { level: 1, name: FIRST_TENANT.name })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Demo' })).toBeVisible();
    await expect(page.getByTestId('footer-tenant')).toHaveText(`Current Tenant: ${FIRST_TENANT.name} (${FIRST_TENANT.slug})`);
    await expect(page.getByTestId('user-name')).toHaveText('Administrator');
    await expectAccessible(page, 'dashboard');

    mkdirSync('test-results/screenshots', { recursive: true });
    await page.screenshot({ path: 'test-results/screenshots/dashboard.png' });
    if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync('test-results/screenshots/dashboard.png', 'docs/screenshots/dashboard.png');

    // /login redirects a signed-in user to /.
    await page.goto('/login');
    await expect(page).toHaveURL(/\/$/);

    // The tenant switcher is a dropdown for several tenants; choosing one stores it and reloads.
    const switcher = page.getByLabel('Tenant');
    await switcher.selectOption({ label: 'Second Organisation' });
    await expect(page.getByRole('heading', { level: 1, name: 'Second Organisation' })).toBeVisible();
    await expect(page.getByText('No services yet.')).toBeVisible();
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('activeTenant') ?? 'null'));
    expect(stored.slug).toBe(second);
    await page.reload();
    await expect(page.getByRole('heading', { level: 1, name: 'Second Organisation' })).toBeVisible();

    // The skip link leads to the main content.
    await page.keyboard.press('Tab');
    await expect(page.getByRole('link', { name: 'Skip to main content' })).toBeFocused();

    await page.getByRole('button', { name: 'Log Out' }).click();
    await expect(page).toHaveURL(/\/login$/);
    const token = await page.evaluate(() => localStorage.getItem('token'));
    expect(token).toBeNull();
  });

  test('a revoked or broken token sends the user to /login', async ({ page }) => {
    await loginThroughPage(page, ADMIN.email, ADMIN.password);
    await expect(page.getByRole('heading', { level: 1, name: FIRST_TENANT.name })).toBeVisible();
    await page.evaluate(() => localStorage.setItem('token', 'broken.token.value'));
    await page.reload();
    await expect(page).toHaveURL(/\/login$/);
    expect(await page.evaluate(() => localStorage.getItem('user'))).toBeNull();
  });
});

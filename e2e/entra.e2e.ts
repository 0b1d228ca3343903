import { randomUUID } from 'node:crypto';
import { test, expect, ADMIN, FIRST_TENANT, apiAs, expectAccessible } from './fixtures';
import { startTestProvider, type TestIdentityProvider } from '../server/test/oidcProvider';

// The e2e server is configured for this provider by scripts/e2eServer.mjs (same client and tenant).
const port = Number(process.env.E2E_PORT ?? 3100);
const oidcPort = Number(process.env.E2E_OIDC_PORT ?? port + 1000);
const ENTRA_TENANT = '5d0c3e8a-7f41-4b6e-9d2a-e2e000000001';
const PASSWORD = 'provider-password';

let idp: TestIdentityProvider;

test.beforeAll(async () => {
  idp = await startTestProvider({
    port: oidcPort,
    redirectUris: [`http://localhost:${port}/api/auth/entra/callback`],
    clientId: 'service-catalog-e2e',
    clientSecret: 'e2e-client-secret-0123456789abcdef',
  });
});
test.afterAll(async () => {
  await idp?.close();
});

function person(email?: string) {
  const id = randomUUID().slice(0, 8);
  const login = `person-${id}`;
  const name = `Microsoft Person ${id}`;
  idp.addAccount(login, PASSWORD, { oid: randomUUID(), tid: ENTRA_TENANT, email: email ?? `${login}@contoso.test`, email_verified: true, name });
  return { login, name };
}

async function signInWithMicrosoft(page: import('@playwright/test').Page, login: string) {
  await page.goto('/login');
  await page.getByRole('link', { name: 'Sign in with Microsoft' }).click();
  await expect(page).toHaveURL(new RegExp(`^http://127\\.0\\.0\\.1:${oidcPort}/interaction/`));
  await page.getByLabel('Username').fill(login);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

test.describe('Sign in with Microsoft', () => {
  test('a new person signs in at the provider, lands on the dashboard auto-provisioned, and is matched again next time', async ({ page, request }) => {
    const { login, name } = person();
    await signInWithMicrosoft(page, login);

    await expect(page.getByRole('heading', { level: 1, name: FIRST_TENANT.name })).toBeVisible();
    await expect(page).toHaveURL(`http://localhost:${port}/`);
    await expect(page.getByTestId('user-name')).toHaveText(name);
    const stored = await page.evaluate(() => ({
      token: localStorage.getItem('token'),
      user: JSON.parse(localStorage.getItem('user') ?? 'null'),
      activeTenant: JSON.parse(localStorage.getItem('activeTenant') ?? 'null'),
    }));
    expect(stored.token).toBeTruthy();
    expect(stored.user).toMatchObject({ name, role: 'reader', user_group: 'entra_auto', auth_provider: 'entra' });
    expect(stored.activeTenant.slug).toBe(FIRST_TENANT.slug);
    await expectAccessible(page, 'dashboard after Microsoft sign-in');
    const firstId = stored.user.id;

    // The super admin's user list shows the account as auto-provisioned through Entra.
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const { users } = (await admin.send('GET', '/admin/users')) as { users: Array<{ id: string; user_group: string; auth_provider: string }> };
    expect(users.find((u) => u.id === firstId)).toMatchObject({ user_group: 'entra_auto', auth_provider: 'entra' });

    await page.getByRole('button', { name: 'Log Out' }).click();
    await expect(page).toHaveURL(/\/login$/);

    // Signed out of the app but still signed in at the provider: straight back to the dashboard.
    await page.getByRole('link', { name: 'Sign in with Microsoft' }).click();
    await expect(page.getByRole('heading', { level: 1, name: FIRST_TENANT.name })).toBeVisible();
    const again = await page.evaluate(() => JSON.parse(localStorage.getItem('user') ?? 'null'));
    expect(again.id).toBe(firstId);
  });

  test('an email claim of an account with a password is refused with a readable message on the login page', async ({ page }) => {
    const { login } = person(ADMIN.email);
    await signInWithMicrosoft(page, login);
    await expect(page).toHaveURL(/\/login\?error=/);
    await expect(page.getByRole('alert')).toContainText('An account with this email signs in with a password.');
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
    await expectAccessible(page, 'login with a Microsoft sign-in error');
  });

  test('a stale or forged hand-off code in the address leaves the person signed out on /login', async ({ page }) => {
    await page.goto('/?auth_token=forged-code&auth_data=%7B%7D');
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByRole('button', { name: 'Log In' })).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
  });
});

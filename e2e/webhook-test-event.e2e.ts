import { test, expect, ADMIN, apiAs, expectAccessible, loginThroughPage } from './fixtures';
import { unique } from './catalogHelpers';

test.describe('Tenant Settings: a webhook test event', () => {
  test('"Send test event" on an endpoint sends one now and says what came of it', async ({ page, request }) => {
    test.setTimeout(60_000);
    const u = unique();
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const { tenant } = await admin.send('POST', '/tenants', { name: `Test Event Org ${u}`, slug: `test-event-${u}` });
    const email = `test-event-admin-${u}@example.com`;
    await admin.send('POST', '/admin/users', { email, name: `Test Event Admin ${u}`, role: 'admin', tenant_id: tenant.id, password: 'secret-pass' });
    const tenantAdmin = await apiAs(request, email, 'secret-pass');
    // An address no resolver knows: the test event cannot be delivered, and the page says why.
    const url = `https://hooks-${u}.example.invalid/catalog`;
    await tenantAdmin.send('POST', '/webhooks', { url, events: ['service.created'] });

    await loginThroughPage(page, email, 'secret-pass');
    await expect(page).toHaveURL(/\/$/);
    await page.goto('/tenant-settings');
    const hooks = page.getByRole('region', { name: 'Webhooks', exact: true });
    await hooks.getByRole('button', { name: `Send test event to ${url}` }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'Test event not delivered:' })).toBeVisible({ timeout: 15_000 });
    await expectAccessible(page, 'tenant settings, test event refused');
  });
});

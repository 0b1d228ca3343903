import { test, expect, ADMIN, apiAs, expectAccessible, loginThroughPage } from './fixtures';
import { INTEGRATION_MESSAGES } from '../common/schemas/integrations';

test.describe('Tenant Settings: API tokens and webhooks', () => {
  test('a tenant admin creates an API token that works, revokes it, and adds a webhook', async ({ page, request }) => {
    test.setTimeout(120_000);
    const u = `${Date.now()}`;
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const { tenant } = await admin.send('POST', '/tenants', { name: `Integrations Org ${u}`, slug: `integrations-${u}` });
    const email = `integrations-admin-${u}@example.com`;
    await admin.send('POST', '/admin/users', { email, name: `Integrations Admin ${u}`, role: 'admin', tenant_id: tenant.id, password: 'secret-pass' });

    await loginThroughPage(page, email, 'secret-pass');
    await expect(page).toHaveURL(/\/$/);
    await page.goto('/tenant-settings');
    const tokens = page.getByRole('region', { name: 'API tokens', exact: true });
    await expect(tokens.getByText('No API tokens yet')).toBeVisible();
    await expectAccessible(page, 'tenant settings with integrations');

    await tokens.getByRole('button', { name: '+ Create API token' }).click();
    const create = page.getByRole('dialog', { name: 'Create API token' });
    await create.getByRole('button', { name: 'Create token' }).click();
    await expect(create.getByText(INTEGRATION_MESSAGES.tokenNameRequired).first()).toBeVisible();
    await create.getByLabel('Name').fill('Release pipeline');
    await create.getByLabel('Role').selectOption('reader');
    await expectAccessible(page, 'create API token modal');
    await create.getByRole('button', { name: 'Create token' }).click();

    const shown = page.getByRole('dialog', { name: 'API token created' });
    await expect(shown.getByText(INTEGRATION_MESSAGES.tokenCreated)).toBeVisible();
    const secret = await shown.getByLabel('Secret').inputValue();
    expect(secret).toMatch(/^scat_/);
    await expectAccessible(page, 'API token secret shown once');
    await shown.getByRole('button', { name: 'Done' }).click();
    const row = tokens.getByRole('row', { name: /Release pipeline/ });
    await expect(row).toContainText('Reader');
    await expect(row).toContainText('All services');

    // The token works as a reader of its tenant.
    const headers = { authorization: `Bearer ${secret}`, 'x-tenant-slug': tenant.slug };
    expect((await request.get('/api/services', { headers })).status()).toBe(200);

    await row.getByRole('button', { name: 'Revoke Release pipeline' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke API token' });
    await expectAccessible(page, 'revoke API token confirmation');
    await confirm.getByRole('button', { name: 'Revoke' }).click();
    await expect(row).toHaveCount(0);
    expect((await request.get('/api/services', { headers })).status()).toBe(401);

    const hooks = page.getByRole('region', { name: 'Webhooks', exact: true });
    await hooks.getByRole('button', { name: '+ Add webhook' }).click();
    const add = page.getByRole('dialog', { name: 'Add webhook' });
    await add.getByLabel('Endpoint URL').fill('http://hooks.example.com/catalog');
    await add.getByLabel('Service created (service.created)').check();
    await add.getByLabel('Availability changed (availability.changed)').check();
    await add.getByRole('button', { name: 'Add webhook' }).click();
    await expect(add.getByText(INTEGRATION_MESSAGES.webhookUrlInvalid)).toBeVisible();
    await add.getByLabel('Endpoint URL').fill('https://hooks.example.com/catalog');
    await expectAccessible(page, 'add webhook modal');
    await add.getByRole('button', { name: 'Add webhook' }).click();
    const added = page.getByRole('dialog', { name: 'Webhook added' });
    expect(await added.getByLabel('Secret').inputValue()).toMatch(/^whsec_/);
    await added.getByRole('button', { name: 'Done' }).click();
    const hook = hooks.getByRole('row', { name: /hooks\.example\.com/ });
    await expect(hook).toContainText('service.created, availability.changed');
    await expect(hook).toContainText('Active');

    await hook.getByRole('button', { name: /Delivery log/ }).click();
    const log = page.getByRole('dialog', { name: 'Delivery log' });
    await expect(log.getByText('Nothing sent yet')).toBeVisible();
    await expectAccessible(page, 'delivery log');
    await page.keyboard.press('Escape');
    await expect(log).toBeHidden();

    // A service created and 101 writes are 102 deliveries: the log shows the newest 100 (and its
    // header row), and the two older ones on asking.
    const api = await apiAs(request, email, 'secret-pass');
    const { service } = await api.send('POST', '/services', { name: `Hooked ${u}`, slug: `hooked-${u}` });
    const { category } = await api.send('POST', '/categories', { serviceId: service.id, name: 'Plans', position: 0 });
    const { aspect } = await api.send('POST', '/aspects', { serviceId: service.id, categoryId: category.id, title: 'Uptime', description: '', isPublic: true });
    for (let i = 0; i < 101; i += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, 101 - i) }, (_, k) =>
          api.send('POST', '/availabilities', { aspectId: aspect.id, timeBucket: service.timeline[(i + k) % service.timeline.length], value: `Plan ${i + k}` }),
        ),
      );
    }
    await hook.getByRole('button', { name: /Delivery log/ }).click();
    const rows = log.getByRole('table', { name: 'Deliveries' }).getByRole('row');
    await expect(rows).toHaveCount(101);
    await log.getByRole('button', { name: 'Show older deliveries' }).click();
    await expect(rows).toHaveCount(103);
    await expect(log.getByRole('button', { name: 'Show older deliveries' })).toHaveCount(0);
    await expectAccessible(page, 'delivery log of 102 deliveries');
    await page.keyboard.press('Escape');
    await expect(log).toBeHidden();

    // At 320 px wide the sections fit: the tables scroll in their own panel, nothing runs past the window.
    await page.setViewportSize({ width: 320, height: 740 });
    await expect(hooks).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - innerWidth)).toBeLessThanOrEqual(0);
    await expectAccessible(page, 'integrations at 320 px');
    await page.setViewportSize({ width: 1280, height: 800 });

    // Each delivery lists its attempts: when, what came of it (only the generic words when no
    // answer came), how long it took.
    await expect(async () => {
      await hook.getByRole('button', { name: /Delivery log/ }).click();
      try {
        await expect(
          log
            .getByRole('list', { name: /^Attempts of / })
            .first()
            .getByRole('listitem')
            .first(),
        ).toHaveText(/: (could not connect|refused: not a public address|answered \d{3}|\d{3}|no answer within \d+ ms)(, \d+ ms)?$/, { timeout: 2000 });
      } finally {
        await page.keyboard.press('Escape');
        await expect(log).toBeHidden();
      }
    }).toPass({ timeout: 20_000 });

    await hook.getByRole('button', { name: /^Delete/ }).click();
    await page.getByRole('dialog', { name: 'Delete webhook' }).getByRole('button', { name: 'Delete' }).click();
    await expect(hook).toHaveCount(0);
  });
});

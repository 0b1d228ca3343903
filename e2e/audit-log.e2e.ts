import { test, expect, ADMIN, apiAs, expectAccessible, loginThroughPage } from './fixtures';

const unique = () => `${Date.now()}${Math.floor(Math.random() * 1000)}`;

test.describe('Audit log', () => {
  test("a tenant admin reads their tenant's audit log, newest first, and loads older entries", async ({ page, request }) => {
    test.setTimeout(120_000);
    const u = unique();
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const { tenant } = await admin.send('POST', '/tenants', { name: `Audit Org ${u}`, slug: `audit-${u}` });
    const email = `audit-admin-${u}@example.com`;
    await admin.send('POST', '/admin/users', { email, name: `Audit Admin ${u}`, role: 'admin', tenant_id: tenant.id, password: 'secret-pass' });
    const { user: colleague } = await admin.send('POST', '/admin/users', {
      email: `audit-colleague-${u}@example.com`,
      name: 'Colleague',
      role: 'reader',
      tenant_id: tenant.id,
      password: 'secret-pass',
    });
    // More role changes than one page holds; the last one is the newest entry.
    for (let i = 0; i < 55; i++) {
      await admin.send('PATCH', `/admin/users/${colleague.id}`, { role: i % 2 === 0 ? 'editor' : 'reader' });
    }
    await admin.send('PATCH', `/admin/users/${colleague.id}`, { role: 'admin' });

    await loginThroughPage(page, email, 'secret-pass');
    await expect(page).toHaveURL(/\/$/);
    await page.goto('/tenant-settings');
    const section = page.getByRole('region', { name: 'Audit Log' });
    await expect(section.getByRole('heading', { name: 'Audit Log' })).toBeVisible();
    for (const column of ['Time', 'Action', 'Actor', 'Impersonated by', 'Target', 'Changes', 'Details']) {
      await expect(section.getByRole('columnheader', { name: column, exact: true })).toBeVisible();
    }
    const rows = section.getByRole('row');
    // The sign-in just made is the newest entry, then the promotion to admin.
    await expect(rows.nth(1)).toContainText('Signed in');
    await expect(rows.nth(1)).toContainText(`Audit Admin ${u}`);
    await expect(rows.nth(1)).toContainText(email);
    // In words: who, what, to whom by name, and the change; the ids and raw details only on demand.
    const promotion = rows.nth(2);
    await expect(promotion).toContainText('Changed the role of');
    await expect(promotion).toContainText(ADMIN.email);
    await expect(promotion).toContainText('Colleague');
    await expect(promotion).toContainText('Role: editor → admin');
    await expect(promotion).not.toContainText(colleague.id);
    await expect(promotion).not.toContainText('user.role_change');
    await expect(rows).toHaveCount(51);
    await expectAccessible(page, 'tenant settings with audit log');
    const disclosure = promotion.getByRole('button', { name: 'Details' });
    await expect(disclosure).toHaveAttribute('aria-expanded', 'false');
    await disclosure.focus();
    await page.keyboard.press('Enter');
    const hide = promotion.getByRole('button', { name: 'Hide details' });
    await expect(hide).toHaveAttribute('aria-expanded', 'true');
    await expect(promotion).toContainText(colleague.id);
    await expect(promotion).toContainText('user.role_change');
    await expect(promotion).toContainText('"to": "admin"');
    await expectAccessible(page, 'tenant audit log with details shown');
    await page.keyboard.press('Enter');
    await expect(promotion).not.toContainText(colleague.id);

    await section.getByRole('button', { name: 'Load more' }).click();
    // 1 header + 1 sign-in + 56 role changes + 2 user creations + 1 tenant creation.
    await expect(rows).toHaveCount(61);
    await expect(rows.last()).toContainText('Created tenant');
    await expect(section.getByRole('button', { name: 'Load more' })).toHaveCount(0);
  });

  test("a super admin reads any tenant's audit log and the platform's", async ({ page, request }) => {
    test.setTimeout(120_000);
    const u = unique();
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const tenantName = `Audited Org ${u}`;
    const { tenant } = await admin.send('POST', '/tenants', { name: tenantName, slug: `audited-${u}` });
    await admin.send('PUT', `/tenants/${tenant.id}`, { name: `${tenantName} Renamed` });
    const stranger = `stranger-${u}@example.com`;
    const failed = await request.post('/api/auth/login', { data: { email: stranger, password: 'not-a-password' } });
    expect(failed.status()).toBe(401);

    await loginThroughPage(page, ADMIN.email, ADMIN.password);
    await expect(page).toHaveURL(/\/$/);
    await page.goto('/super-admin');
    const section = page.getByRole('region', { name: 'Audit Log' });
    await expect(section.getByRole('heading', { name: 'Audit Log' })).toBeVisible();

    const select = section.getByRole('combobox', { name: 'Audit log of' });
    await select.click();
    await select.fill(u);
    await page
      .getByRole('listbox', { name: 'Audit log of' })
      .getByRole('option', { name: `${tenantName} Renamed` })
      .click();
    const rows = section.getByRole('row');
    await expect(rows.nth(1)).toContainText('Renamed tenant');
    await expect(rows.nth(1)).toContainText(ADMIN.email);
    await expect(rows.nth(1)).toContainText(`Name: ${tenantName} → ${tenantName} Renamed`);
    await expect(rows.nth(1)).not.toContainText(tenant.id);
    await expect(rows.nth(2)).toContainText('Created tenant');
    await expect(rows).toHaveCount(3);
    await expectAccessible(page, 'super admin audit log');

    await select.click();
    await select.fill('Platform');
    await page.getByRole('listbox', { name: 'Audit log of' }).getByRole('option', { name: 'Platform (no tenant)' }).click();
    await expect(section.getByRole('row', { name: new RegExp(stranger) })).toContainText('Failed to sign in');
    await select.press('Escape');
    await expectAccessible(page, 'super admin platform audit log');
  });
});

import { test, expect, ADMIN, FIRST_TENANT, apiAs, expectAccessible, loginThroughPage, signIn } from './fixtures';
import { adminApi, openCatalog, seedService, unique } from './catalogHelpers';
import { cellButton, timelineOf } from './gridHelpers';

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

    await signIn(page, ADMIN.email, ADMIN.password, '/super-admin');
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

  test("a paste is one entry that opens its cells' history, and the filters narrow the log", async ({ page, request, context }) => {
    test.setTimeout(180_000);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    // A tenant admin of the first tenant (a super admin has no Tenant Settings).
    const u = unique();
    const boss = await adminApi(request);
    const email = `paste-admin-${u}@example.com`;
    await boss.send('POST', '/admin/users', { email, name: `Paste Admin ${u}`, role: 'admin', tenant_id: boss.session.tenant.id, password: 'secret-pass' });
    const api = await apiAs(request, email, 'secret-pass');
    const titles = Array.from({ length: 16 }, (_, i) => `Line ${String(i).padStart(2, '0')}`);
    const name = `Audited paste ${u}`;
    const { serviceId, aspectIds } = await seedService(
      api,
      name,
      titles.map((title) => ({ title })),
    );
    const q = await timelineOf(api, serviceId);
    expect(q).toHaveLength(8);
    await openCatalog(page, serviceId, email, 'secret-pass');
    // 16 aspects by 8 quarters: 128 cells in one paste.
    const tsv = titles.map((_, r) => q.map((__, c) => `P${r}-${c}`).join('\t')).join('\r\n') + '\r\n';
    await page.evaluate((text) => navigator.clipboard.writeText(text), tsv);
    await cellButton(page, titles[0]!, q[0]!).focus();
    await page.keyboard.press('Control+V');
    await expect(page.getByTestId('grid-status')).toHaveText('Pasted 128 cells.');
    // An API token writes one more cell.
    const tokenName = `Audit bot ${u}`;
    const { secret } = await api.send('POST', '/api-tokens', { name: tokenName, role: 'editor' });
    const byToken = await request.post('/api/availabilities', {
      headers: { authorization: `Bearer ${secret}`, 'x-tenant-slug': FIRST_TENANT.slug },
      data: { aspectId: aspectIds[0], timeBucket: q[0], value: 'From the bot' },
    });
    expect(byToken.status()).toBe(200);

    await page.goto('/tenant-settings');
    const section = page.getByRole('region', { name: 'Audit Log' });
    const service = section.getByRole('combobox', { name: 'Service' });
    await service.click();
    await service.fill(name);
    await page.getByRole('option', { name }).click();
    const rows = section.getByRole('row');
    // The service's creation, its category, its 16 aspects, the paste and the token's cell, newest first.
    await expect(rows).toHaveCount(1 + 1 + 1 + 16 + 1 + 1);
    await expect(rows.nth(1)).toContainText(`API token "${tokenName}"`);
    await expect(rows.nth(1)).toContainText(`Text: P0-0 → From the bot`);
    const paste = rows.nth(2);
    await expect(paste).toContainText('Changed availabilities of service');
    await expect(paste).toContainText('Cells changed: 128');
    await expect(paste).toContainText(`Cells: Line 00 ${q[0]} to Line 15 ${q[7]} (16 aspects, ${q[0]} to ${q[7]})`);

    // The kind of change narrows it to the paste alone.
    const kind = section.getByRole('combobox', { name: 'Kind of change' });
    await kind.click();
    await page.getByRole('option', { name: 'Cell edits' }).click();
    await expect(rows).toHaveCount(3);
    await kind.click();
    await page.getByRole('option', { name: 'Categories, aspects, actor roles and templates' }).click();
    await expect(rows).toHaveCount(1 + 17);
    await kind.click();
    await page.getByRole('option', { name: 'Cell edits' }).click();
    await expect(rows).toHaveCount(3);
    await expectAccessible(page, 'tenant audit log narrowed to a service and cell edits');

    // The entry opens its cells, and each cell its history.
    await rows.nth(2).getByRole('button', { name: 'Open cells' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cells of this change' });
    const cells = dialog.getByTestId('audit-cells').getByRole('row');
    await expect(cells).toHaveCount(129);
    await expect(dialog).toContainText('128 cells');
    await dialog.getByRole('button', { name: `History of Line 03 in ${q[2]}` }).click();
    await expect(dialog.getByTestId('cell-history')).toContainText('P3-2');
    await expectAccessible(page, "a paste's cells with one cell's history");
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);

    // By person or token: the token's entry alone.
    const actor = section.getByRole('combobox', { name: 'Person or token' });
    await actor.click();
    await actor.fill(tokenName);
    await page.getByRole('option', { name: `API token "${tokenName}"` }).click();
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(1)).toContainText('Changed a cell of service');
  });
});

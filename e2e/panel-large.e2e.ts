import { ADMIN, apiAs, expect, expectAccessible, scrollPanelUntil, test, signIn } from './fixtures';

const COUNT = 300;

test.describe('super admin panel with hundreds of tenants', () => {
  test('Tenant Management is searched, scrolled and walked by keyboard; the tenant selectors search', async ({ page, request }) => {
    test.setTimeout(240_000);
    const u = `${Date.now()}`;
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    // Named to sort after the other tests' tenants: the last rows of the table are these.
    const names: string[] = [];
    for (let from = 0; from < COUNT; from += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, COUNT - from) }, (_, i) => {
          const n = String(from + i).padStart(3, '0');
          names.push(`Zz Tenant ${n} ${u}`);
          return admin.send('POST', '/tenants', { name: `Zz Tenant ${n} ${u}`, slug: `zz-tenant-${n}-${u}` });
        }),
      );
    }
    // The table's order is the server's: its last row is the last of one page of every tenant.
    const { tenants: every } = await admin.send('GET', '/admin/tenants?limit=500');
    const total = every.length as number;
    const last = every.at(-1).name as string;
    expect(last).toBe(`Zz Tenant 299 ${u}`);
    const far = `Zz Tenant 250 ${u}`;

    await signIn(page, ADMIN.email, ADMIN.password, '/super-admin');
    const section = page.getByRole('region', { name: 'Tenant Management' });
    const panel = section.getByRole('region', { name: 'Tenants', exact: true });
    await expect(panel.getByRole('row').nth(1)).toBeVisible();
    // A tenant far down the list is not in the page until it is searched for.
    await expect(panel.getByRole('row', { name: new RegExp(far) })).toHaveCount(0);
    expect(await panel.getByRole('row').count()).toBeLessThan(120);
    await expectAccessible(page, 'super admin panel with hundreds of tenants');
    await section.getByRole('textbox', { name: 'Search tenants' }).fill(far.toUpperCase());
    await expect(panel.getByRole('row', { name: new RegExp(far) })).toBeVisible();
    await expect(panel.getByRole('row')).toHaveCount(2);
    await expect(panel.getByRole('row', { name: new RegExp(far) }).getByRole('button', { name: 'Edit' })).toBeVisible();
    await expectAccessible(page, 'tenant management searched');
    await section.getByRole('textbox', { name: 'Search tenants' }).fill('');
    await expect(panel.getByRole('row', { name: new RegExp(far) })).toHaveCount(0);

    // Scrolling the panel to its end loads the following pages until the last row.
    const lastRow = panel.getByRole('row', { name: new RegExp(last) });
    await scrollPanelUntil(page, panel, lastRow);
    await expect(panel.getByRole('table')).toHaveAttribute('aria-rowcount', String(total + 1));
    await expectAccessible(page, 'tenant management scrolled to the end');

    // The keyboard walks the rows' actions from the first row to the last, the window and the pages following.
    await page.reload();
    await panel.getByRole('row').nth(1).getByRole('button').first().focus();
    let reached = false;
    for (let i = 0; i < 2 * total + 5; i++) {
      await page.keyboard.press('Tab');
      const row = await page.evaluate(() => {
        const el = document.activeElement;
        return el?.closest('[role="region"][aria-label="Tenants"]') ? (el.closest('tr')?.textContent ?? '') : null;
      });
      expect(row, `focus left the rows after ${i} steps`).not.toBeNull();
      if (row!.includes(last)) {
        reached = true;
        break;
      }
    }
    expect(reached).toBe(true);
    await expect(lastRow).toBeInViewport();

    // Create User's tenant selector finds a tenant by typing, with at most a page of options.
    await page.getByRole('button', { name: '+ Create User' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create User' });
    const select = dialog.getByRole('combobox', { name: 'Tenant' });
    // The page header's tenant switcher has options too: these are the selector's list's.
    const options = page.getByRole('listbox', { name: 'Tenant' }).getByRole('option');
    await select.click();
    await expect(options.first()).toBeVisible();
    expect(await options.count()).toBeLessThanOrEqual(20);
    await select.fill(far);
    const option = options.filter({ hasText: far });
    await expect(option).toBeVisible();
    await expect(options).toHaveCount(1);
    await option.click();
    await expect(select).toHaveValue(far);
    const email = `far-tenant-user-${u}@example.com`;
    await dialog.getByLabel('Email').fill(email);
    await dialog.getByLabel('Name').fill('Far Tenant User');
    await dialog.getByLabel('Role').selectOption('reader');
    await expectAccessible(page, 'create user modal with a tenant found');
    await dialog.getByRole('button', { name: 'Create User' }).click();
    await expect(dialog).toBeHidden();

    // The user's row names their tenant, which is not among the tenants loaded.
    const users = page.getByRole('region', { name: 'User Management' });
    await users.getByRole('textbox', { name: 'Search users' }).fill(email);
    const userRow = users.getByRole('row', { name: new RegExp(email) });
    await expect(userRow).toContainText(far);

    // Manage Tenant Memberships names the tenants the user belongs to, and finds others by a search.
    await userRow.getByRole('button', { name: 'Manage Tenants' }).click();
    const memberships = page.getByRole('dialog', { name: 'Manage Tenant Memberships' });
    await expect(memberships.getByLabel(`${far} (primary)`)).toBeChecked();
    expect(await memberships.getByRole('checkbox').count()).toBeLessThanOrEqual(21);
    await memberships.getByLabel('Find a tenant').fill(last);
    await expect(memberships.getByRole('checkbox')).toHaveCount(2);
    await memberships.getByLabel(last).check();
    await expectAccessible(page, 'memberships modal with a tenant found');
    await memberships.getByRole('button', { name: 'Save' }).click();
    await expect(memberships).toBeHidden();
    const { users: found } = await admin.send('GET', `/admin/users?search=${encodeURIComponent(email)}`);
    expect(found[0].tenant_ids).toHaveLength(2);

    // The audit log's tenant selector searches as well.
    const audit = page.getByRole('region', { name: 'Audit Log' });
    const of = audit.getByRole('combobox', { name: 'Audit log of' });
    await of.click();
    const auditOptions = page.getByRole('listbox', { name: 'Audit log of' }).getByRole('option');
    await expect(auditOptions.first()).toBeVisible();
    expect(await auditOptions.count()).toBeLessThanOrEqual(20);
    await of.fill(far);
    await page.getByRole('listbox', { name: 'Audit log of' }).getByRole('option', { name: far }).click();
    await expect(audit.getByRole('row').nth(1)).toBeVisible();
    await expect(audit.getByRole('row', { name: /Created tenant/ })).toBeVisible();
    await expectAccessible(page, 'audit log of a tenant found');

    // The header's tenant switcher of a super admin with hundreds of tenants holds a page of options
    // at most, not one per tenant, and finds the others by typing; choosing one switches to it.
    // The session lists a hundred tenants at most (SESSION_TENANTS_CAP); the switcher searches the
    // server for the others, this one among them.
    const { session } = await apiAs(request, ADMIN.email, ADMIN.password);
    expect(session.availableTenantsTotal).toBeGreaterThanOrEqual(COUNT);
    expect(session.availableTenants.length).toBeLessThanOrEqual(102);
    expect(session.availableTenants.map((t: { name: string }) => t.name)).not.toContain(far);
    const switcher = page.locator('header.page-header').getByRole('combobox', { name: 'Tenant' });
    await expect(page.locator('header.page-header option')).toHaveCount(0);
    await switcher.click();
    const switchOptions = page.getByRole('listbox', { name: 'Tenant' }).getByRole('option');
    await expect(switchOptions.first()).toBeVisible();
    expect(await switchOptions.count()).toBeLessThanOrEqual(20);
    await switcher.fill(far);
    // The tenant in use stays offered beside what the search found.
    await expect(switchOptions.filter({ hasText: far })).toHaveCount(1);
    await expect(switchOptions).toHaveCount(2);
    await expectAccessible(page, 'header tenant switcher searched');
    await switchOptions.filter({ hasText: far }).click();
    // The page is loaded again in that tenant.
    await expect(switcher).toHaveAttribute('title', far);
    await expect(switcher).toHaveValue(far);
  });
});

import { ADMIN, apiAs, expect, expectAccessible, loginThroughPage, scrollPanelUntil, seedUsers, test, signIn } from './fixtures';

const COUNT = 300;

test.describe('large lists', () => {
  test('a tenant with hundreds of users: searched, scrolled and walked by keyboard; the assignment selector searches', async ({ page, request }) => {
    test.setTimeout(240_000);
    const u = `${Date.now()}`;
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const { tenant } = await admin.send('POST', '/tenants', { name: `Large Org ${u}`, slug: `large-${u}` });
    const adminEmail = `a-large-admin-${u}@example.com`;
    // Named to sort first: the last row of the list is the last member seeded.
    await admin.send('POST', '/admin/users', { email: adminEmail, name: 'Aaron Admin', role: 'admin', tenant_id: tenant.id, password: 'secret-pass' });
    const emails = await seedUsers(admin.send, tenant.id, COUNT, 'Member', u);
    const last = emails.at(-1)!;
    const far = emails[COUNT - 50]!;

    await loginThroughPage(page, adminEmail, 'secret-pass');
    await expect(page).toHaveURL(/\/$/);
    await page.goto('/tenant-settings');
    const section = page.getByRole('region', { name: /^Users of/ });
    const panel = section.getByRole('region', { name: 'Users', exact: true });
    await expect(panel.getByRole('row', { name: /Aaron Admin/ })).toBeVisible();
    // A user far down the list is not in the page until it is searched for.
    await expect(panel.getByRole('row', { name: new RegExp(far) })).toHaveCount(0);
    await section.getByRole('textbox', { name: 'Search users' }).fill(far.toUpperCase());
    await expect(panel.getByRole('row', { name: new RegExp(far) })).toBeVisible();
    await expect(panel.getByRole('row')).toHaveCount(2);
    await expectAccessible(page, 'tenant settings searched');
    await section.getByRole('textbox', { name: 'Search users' }).fill('');
    await expect(panel.getByRole('row', { name: /Aaron Admin/ })).toBeVisible();

    // Scrolling the panel to its end loads the following pages until the last row.
    await scrollPanelUntil(page, panel, panel.getByRole('row', { name: new RegExp(last) }));
    await expect(panel.getByRole('table')).toHaveAttribute('aria-rowcount', String(COUNT + 2));
    await expectAccessible(page, 'tenant settings scrolled to the end');

    // The keyboard walks the rows from the first to the last, the window and the pages following.
    await page.reload();
    await panel.getByRole('button', { name: `Delete ${adminEmail}` }).focus();
    let reached = false;
    // Each member's row holds two stops: the select of their role in this tenant, then Delete.
    for (let i = 0; i < 2 * COUNT + 5; i++) {
      await page.keyboard.press('Tab');
      const label = await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '');
      expect(label, `focus left the rows after ${i} steps`).toMatch(/^(Delete|Role of) /);
      if (label === `Delete ${last}`) {
        reached = true;
        break;
      }
    }
    expect(reached).toBe(true);
    await expect(panel.getByRole('button', { name: `Delete ${last}` })).toBeInViewport();

    // The User Assignments selector finds a user by typing, with at most a page of options.
    const api = await apiAs(request, adminEmail, 'secret-pass', tenant.slug);
    const { service } = await api.send('POST', '/services', { name: `Large service ${u}`, slug: `large-service-${u}` });
    await page.goto(`/catalog/${service.id}/settings?tab=users`);
    await page.getByRole('tab', { name: 'User Assignments' }).click();
    const select = page.getByRole('combobox', { name: 'User' });
    await select.click();
    await expect(page.getByRole('option').first()).toBeVisible();
    expect(await page.getByRole('option').count()).toBeLessThanOrEqual(20);
    await select.fill('Member 250');
    const option = page.getByRole('option', { name: `Member 250 (${emails[250]})` });
    await expect(option).toBeVisible();
    await expect(page.getByRole('option')).toHaveCount(1);
    await option.click();
    await page.getByRole('combobox', { name: 'Role', exact: true }).click();
    await page.getByRole('option', { name: 'Editor' }).click();
    await page.getByRole('button', { name: 'Add Assignment' }).click();
    await expect(page.getByRole('table', { name: 'User assignments' }).getByRole('row', { name: new RegExp(emails[250]!) })).toBeVisible();
    await expectAccessible(page, 'user assignments');

    // The super admin panel's User Management searches every tenant's users on the server.
    await page.getByRole('button', { name: 'Log Out' }).click();
    await expect(page).toHaveURL(/\/login$/);
    await signIn(page, ADMIN.email, ADMIN.password, '/super-admin');
    const users = page.getByRole('region', { name: 'User Management' });
    await expect(users.getByRole('row', { name: /Administrator/ })).toBeVisible();
    await expect(users.getByRole('row', { name: new RegExp(far) })).toHaveCount(0);
    await users.getByRole('textbox', { name: 'Search users' }).fill(far);
    await expect(users.getByRole('row', { name: new RegExp(far) })).toBeVisible();
    await expect(users.getByRole('row')).toHaveCount(2);
    await expectAccessible(page, 'super admin panel searched');
  });
});

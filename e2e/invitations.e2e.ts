import { test, expect, ADMIN, apiAs, expectAccessible, loginThroughPage } from './fixtures';
import { invitationNotice } from '../common/schemas/invitations';

test.describe('Invitations', () => {
  test('a tenant admin adds a person of another tenant, who joins from the dashboard with the role chosen, which the admin then changes', async ({
    page,
    request,
  }) => {
    test.setTimeout(120_000);
    const u = `${Date.now()}`;
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const { tenant: tenantA } = await admin.send('POST', '/tenants', { name: `Inviting Org ${u}`, slug: `inviting-${u}` });
    const { tenant: tenantB } = await admin.send('POST', '/tenants', { name: `Home Org ${u}`, slug: `home-${u}` });
    const adminOfA = { email: `admin-a-${u}@example.com`, name: `Admin A ${u}`, password: 'secret-pass-a' };
    const personOfB = { email: `person-b-${u}@example.com`, name: `Person B ${u}`, password: 'secret-pass-b' };
    await admin.send('POST', '/admin/users', { ...adminOfA, role: 'admin', tenant_id: tenantA.id });
    await admin.send('POST', '/admin/users', { ...personOfB, role: 'reader', tenant_id: tenantB.id });

    // Tenant A's admin adds the address in Tenant Settings, as for anybody new.
    await loginThroughPage(page, adminOfA.email, adminOfA.password);
    await expect(page.getByRole('heading', { level: 1, name: tenantA.name })).toBeVisible();
    await page.goto('/tenant-settings');
    await page.getByRole('button', { name: '+ Add User' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add User' });
    await dialog.getByLabel('Email').fill(personOfB.email);
    await dialog.getByLabel('Name').fill('Entered Name');
    await dialog.getByLabel('Role').selectOption('editor');
    await dialog.getByRole('button', { name: 'Create User' }).click();
    await expect(dialog).toBeHidden();
    const row = page.getByRole('region', { name: /^Users of/ }).getByRole('row', { name: new RegExp(personOfB.email) });
    await expect(row).toContainText('Entered Name');
    await expect(row).toContainText('Invited');
    await page.getByRole('button', { name: 'Log Out' }).click();
    await expect(page).toHaveURL(/\/login$/);

    // The person of tenant B sees the invitation on their dashboard.
    await loginThroughPage(page, personOfB.email, personOfB.password);
    await expect(page.getByRole('heading', { level: 1, name: tenantB.name })).toBeVisible();
    const notice = page.getByRole('region', { name: invitationNotice(adminOfA.name, tenantA.name) });
    await expect(notice).toBeVisible();
    const join = notice.getByRole('button', { name: `Join ${tenantA.name}` });
    await expect(notice.getByRole('button', { name: `Decline the invitation to ${tenantA.name}` })).toBeVisible();
    // One tenant so far: the switcher is a plain name.
    await expect(page.getByRole('combobox', { name: 'Tenant' })).toHaveCount(0);
    await expectAccessible(page, 'dashboard with an invitation notice');

    // Reached and used with the keyboard alone.
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await join.evaluate((el) => el === document.activeElement);
    }
    expect(reached, 'the Join button is reachable with Tab').toBe(true);
    await page.keyboard.press('Enter');
    await expect(notice).toHaveCount(0);

    // The switcher now offers tenant A without a reload; choosing it works there.
    const switcher = page.getByRole('combobox', { name: 'Tenant' });
    await expect(switcher).toBeVisible();
    await switcher.selectOption({ label: tenantA.name });
    await expect(page.getByRole('heading', { level: 1, name: tenantA.name })).toBeVisible();
    await expect(page.getByTestId('footer-tenant')).toHaveText(`Current Tenant: ${tenantA.name} (${tenantA.slug})`);
    await page.getByRole('button', { name: 'Log Out' }).click();
    await expect(page).toHaveURL(/\/login$/);

    // Tenant A's admin sees the person as a member with the role chosen (editor), not their own (reader), and changes it.
    await loginThroughPage(page, adminOfA.email, adminOfA.password);
    await expect(page.getByRole('heading', { level: 1, name: tenantA.name })).toBeVisible();
    await page.goto('/tenant-settings');
    const member = page.getByRole('region', { name: /^Users of/ }).getByRole('row', { name: new RegExp(personOfB.email) });
    await expect(member).not.toContainText('Invited');
    const role = member.getByRole('combobox', { name: `Role of ${personOfB.email}` });
    await expect(role).toHaveValue('editor');
    await role.selectOption('reader');
    await expect(page.getByRole('status').filter({ hasText: 'Role changed.' })).toBeVisible();
    await page.reload();
    await expect(page.getByRole('region', { name: /^Users of/ }).getByRole('combobox', { name: `Role of ${personOfB.email}` })).toHaveValue('reader');
    // Their own role is not theirs to change: shown as text.
    const own = page.getByRole('region', { name: /^Users of/ }).getByRole('row', { name: new RegExp(adminOfA.email) });
    await expect(own.getByRole('combobox')).toHaveCount(0);
    await expect(own).toContainText('Admin');
    await expectAccessible(page, 'tenant settings with role selects');
  });
});

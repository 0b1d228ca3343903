import { test, expect, ADMIN, apiAs, expectAccessible, loginThroughPage } from './fixtures';
import { unique } from './catalogHelpers';

/** An empty tenant says what to do next, with the action one click away. */
test.describe('First steps', () => {
  test.describe.configure({ timeout: 60_000 });

  test("an empty tenant's dashboard keeps 'No services yet.' and offers creating a service and inviting people; a reader is told who adds them", async ({
    page,
    request,
  }) => {
    const u = unique();
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const { tenant } = await admin.send('POST', '/tenants', { name: `Empty Org ${u}`, slug: `empty-${u}` });
    const email = `first-admin-${u}@example.com`;
    await admin.send('POST', '/admin/users', { email, name: `First Admin ${u}`, role: 'admin', tenant_id: tenant.id, password: 'secret-pass' });
    const readerEmail = `first-reader-${u}@example.com`;
    await admin.send('POST', '/admin/users', { email: readerEmail, name: `First Reader ${u}`, role: 'reader', tenant_id: tenant.id, password: 'secret-pass' });

    await loginThroughPage(page, email, 'secret-pass');
    const steps = page.getByTestId('first-steps');
    await expect(steps.getByText('No services yet.', { exact: true })).toBeVisible();
    await expectAccessible(page, 'empty dashboard, first steps');
    await steps.getByRole('button', { name: 'Create your first service' }).click();
    await expect(page.getByRole('dialog', { name: 'Create Service' })).toBeVisible();
    await page.keyboard.press('Escape');
    // Inviting is one click away: Tenant Settings opens with its Add User form.
    await steps.getByRole('link', { name: 'Invite people' }).click();
    await expect(page).toHaveURL(/\/tenant-settings\?invite$/);
    const invite = page.getByRole('dialog', { name: 'Add User' });
    await expect(invite.getByLabel('Email')).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(invite).toBeHidden();
    await expect(page).toHaveURL(/\/tenant-settings$/);

    await page.getByRole('button', { name: 'Log Out' }).click();
    await expect(page).toHaveURL(/\/login$/);
    await loginThroughPage(page, readerEmail, 'secret-pass');
    await expect(steps.getByText('No services yet.', { exact: true })).toBeVisible();
    await expect(steps).toContainText('appear here once an editor creates them');
    await expect(steps.getByRole('button')).toHaveCount(0);
  });

  test('an admin alone in a tenant is offered inviting people; a service being filled says what comes next, one click away, and the hints go once done', async ({
    page,
    request,
  }) => {
    const u = unique();
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const { tenant } = await admin.send('POST', '/tenants', { name: `Alone Org ${u}`, slug: `alone-${u}` });
    const email = `alone-admin-${u}@example.com`;
    await admin.send('POST', '/admin/users', { email, name: `Alone Admin ${u}`, role: 'admin', tenant_id: tenant.id, password: 'secret-pass' });
    await loginThroughPage(page, email, 'secret-pass');
    await expect(page.getByTestId('first-steps')).toBeVisible();

    // Tenant Settings: the only member is told to invite people, and the invitation is one click away.
    await page.goto('/tenant-settings');
    const alone = page.getByTestId('tenant-first-steps');
    await expect(alone).toContainText(`You are the only member of Alone Org ${u}`);
    await expectAccessible(page, 'tenant settings, only member');
    await alone.getByRole('button', { name: 'Invite people' }).click();
    const invite = page.getByRole('dialog', { name: 'Add User' });
    await invite.getByLabel('Email').fill(`colleague-${u}@example.com`);
    await invite.getByLabel('Name').fill(`Colleague ${u}`);
    await invite.getByLabel('Role').selectOption('editor');
    await invite.getByRole('button', { name: 'Create User' }).click();
    await expect(invite).toBeHidden();
    await expect(page.getByRole('row', { name: new RegExp(`colleague-${u}@example.com`) })).toBeVisible();
    await expect(alone).toHaveCount(0);

    // An empty service: the specification's text stays, the hint beside it adds a category.
    const owner = await apiAs(request, email, 'secret-pass');
    const { service } = await owner.send('POST', '/services', { name: `Fresh ${u}`, slug: `fresh-${u}` });
    await page.goto(`/catalog/${service.id}`);
    const steps = page.getByTestId('catalog-first-steps');
    await expect(page.getByText('No categories yet. Add one with + Category.', { exact: true })).toBeVisible();
    await expect(steps).toContainText('Start with a category');
    await expectAccessible(page, 'empty catalog, first steps');
    await steps.getByRole('button', { name: 'Add a category' }).click();
    const category = page.getByRole('dialog', { name: 'Create Category' });
    await category.getByLabel('Name').fill('Core Features');
    await category.getByRole('button', { name: 'Create Category' }).click();
    await expect(category).toBeHidden();

    // A category without aspects: its own empty text stays, the hint adds an aspect to it.
    await expect(page.getByText('No aspects in this category', { exact: true })).toBeVisible();
    await expect(steps).toContainText('Next, add an aspect');
    await expectAccessible(page, 'catalog without aspects, first steps');
    await steps.getByRole('button', { name: 'Add an aspect' }).click();
    const aspect = page.getByRole('dialog', { name: 'Create Aspect' });
    await expect(aspect.getByRole('combobox', { name: 'Category' })).toHaveValue('Core Features');
    await aspect.getByRole('textbox', { name: 'Title' }).fill('Single sign-on');
    await aspect.getByRole('button', { name: 'Create Aspect' }).click();
    await expect(aspect).toBeHidden();
    await expect(page.getByTestId('aspect-row')).toHaveCount(1);

    // Filled, never snapshotted: take the first snapshot here, or publish in the settings.
    await expect(steps).toContainText('Take a snapshot to keep this edition');
    await expect(steps.getByRole('link', { name: 'Publish on a public page' })).toHaveAttribute('href', `/catalog/${service.id}/settings`);
    await expectAccessible(page, 'filled catalog without a snapshot, first steps');
    await steps.getByRole('button', { name: 'Take a snapshot' }).click();
    const snapshot = page.getByRole('dialog', { name: 'Create Snapshot' });
    await snapshot.getByLabel('Label').fill('First edition');
    page.once('dialog', (d) => void d.accept());
    await snapshot.getByRole('button', { name: 'Create Snapshot' }).click();
    await expect(snapshot).toBeHidden();
    await expect(steps).toHaveCount(0);
    const { snapshots } = await owner.send('GET', `/snapshots/service/${service.id}`);
    expect(snapshots.map((s: { label: string }) => s.label)).toEqual(['First edition']);

    // A reader of an empty service is told who fills it, with nothing to click.
    const readerEmail = `fresh-reader-${u}@example.com`;
    await admin.send('POST', '/admin/users', { email: readerEmail, name: `Fresh Reader ${u}`, role: 'reader', tenant_id: tenant.id, password: 'secret-pass' });
    const { service: empty } = await owner.send('POST', '/services', { name: `Empty ${u}`, slug: `empty-${u}` });
    await page.getByRole('button', { name: 'Log Out' }).click();
    await expect(page).toHaveURL(/\/login$/);
    await loginThroughPage(page, readerEmail, 'secret-pass');
    await expect(page.getByText(`Fresh ${u}`)).toBeVisible();
    await page.goto(`/catalog/${empty.id}`);
    await expect(page.getByText('No categories yet.', { exact: true })).toBeVisible();
    await expect(steps).toContainText('appear here once an editor adds them');
    await expect(steps.getByRole('button')).toHaveCount(0);
    await expect(page.getByRole('button', { name: '+ Category' })).toHaveCount(0);
  });
});

import { test, expect, ADMIN, FIRST_TENANT, expectAccessible, signIn } from './fixtures';
import { adminApi, seedService, unique } from './catalogHelpers';

/** A published service's next snapshot is its next public edition, and one without any says so. */
test.describe('Public editions from Service Settings', () => {
  test.describe.configure({ timeout: 60_000 });

  test('a published service without a public snapshot says "No public edition yet", and its button takes a Public snapshot', async ({ page, request }) => {
    const api = await adminApi(request);
    const slug = `svc-${unique()}`;
    const { service } = await api.send('POST', '/services', { name: `Published ${unique()}`, slug });
    await api.send('PATCH', `/services/${service.id}/publish`);
    // Before its first public snapshot, the public sees the one "Page not found".
    const address = `/p/${FIRST_TENANT.slug}/${slug}`;
    expect((await request.get(address)).status()).toBe(404);

    const alerts: string[] = [];
    page.on('dialog', (d) => {
      alerts.push(d.message());
      void d.accept();
    });
    await signIn(page, ADMIN.email, ADMIN.password, `/catalog/${service.id}/settings`);
    const hint = page.getByTestId('no-public-edition');
    await expect(hint).toContainText('No public edition yet');
    await expectAccessible(page, 'settings, no public edition yet');

    await hint.getByRole('button', { name: 'Create public snapshot' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create Snapshot' });
    await expect(dialog.getByLabel('Visibility', { exact: true })).toHaveValue('Public (public aspects only)');
    await dialog.getByRole('textbox', { name: 'Label' }).fill('First edition');
    await dialog.getByRole('button', { name: 'Create Snapshot' }).click();
    await expect(dialog).toBeHidden();
    await expect(hint).toHaveCount(0);
    expect((await request.get(address)).status()).toBe(200);
    expect(alerts).toEqual(['Snapshot created successfully!']);
  });

  test('an unpublished service has no hint, and Create Snapshot starts at Internal', async ({ page, request }) => {
    const api = await adminApi(request);
    const { serviceId } = await seedService(api, `Unpublished ${unique()}`, []);
    await signIn(page, ADMIN.email, ADMIN.password, `/catalog/${serviceId}/settings`);
    await page.getByRole('button', { name: 'Create Snapshot' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create Snapshot' });
    await expect(dialog.getByLabel('Visibility', { exact: true })).toHaveValue('Internal');
    await expect(page.getByTestId('no-public-edition')).toHaveCount(0);
  });
});

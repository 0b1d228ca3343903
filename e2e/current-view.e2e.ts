import type { Page } from '@playwright/test';
import { test, expect, ADMIN, apiAs, expectAccessible, signIn } from './fixtures';
import { adminApi, openCatalog, row, seedService, unique, type Api } from './catalogHelpers';

/** A service whose aspects differ by quarter: 'Mobile app' is Beta now and Pilot two quarters on. */
async function seedQuarters(api: Api) {
  const seeded = await seedService(api, `Quarters ${unique()}`, [
    { title: 'Mobile app', description: '<p>Native clients for phones</p>' },
    { title: 'Web portal', description: '<p>Browser access</p>' },
  ]);
  const { service } = await api.send('GET', `/services/${seeded.serviceId}`);
  const timeline = service.timeline as string[];
  const [mobile, web] = seeded.aspectIds;
  await api.send('POST', '/availabilities', { aspectId: mobile, timeBucket: timeline[0], value: 'Beta' });
  await api.send('POST', '/availabilities', { aspectId: mobile, timeBucket: timeline[2], value: 'Pilot for two faculties' });
  await api.send('POST', '/availabilities', { aspectId: web, timeBucket: timeline[0], value: 'Generally available' });
  return { ...seeded, timeline };
}

/** The default quarter of the current view: this calendar quarter if the timeline has it, else its first. */
function defaultQuarter(timeline: string[]): string {
  const now = new Date();
  const thisQuarter = `${now.getUTCFullYear()}-Q${Math.floor(now.getUTCMonth() / 3) + 1}`;
  return timeline.includes(thisQuarter) ? thisQuarter : timeline[0]!;
}

const currentRow = (page: Page, title: string) => page.getByTestId('current-row').filter({ hasText: title });

test.describe('Current view', () => {
  test.describe.configure({ timeout: 90_000 });

  test('the quarter picker chooses what the view shows and the address keeps view and quarter', async ({ page, request }) => {
    const api = await adminApi(request);
    const { serviceId, timeline } = await seedQuarters(api);
    const first = defaultQuarter(timeline);
    await page.setViewportSize({ width: 1440, height: 900 });
    await openCatalog(page, serviceId);

    await page.locator('label', { hasText: /^Current$/ }).click();
    await expect(page).toHaveURL(/[?&]view=current(&|$)/);
    const picker = page.getByLabel('Quarter', { exact: true });
    await expect(picker).toHaveValue(first);
    await expect(page.getByTestId('current-table').locator('caption')).toHaveText(`Availability for ${first}`);
    await expect(currentRow(page, 'Mobile app')).toContainText('Availability: Beta');
    await expect(currentRow(page, 'Web portal')).toContainText('Availability: Generally available');
    // The availability is the row's most prominent text: larger than the aspect's title.
    const sizes = await currentRow(page, 'Mobile app').evaluate((tr) => ({
      availability: parseFloat(getComputedStyle(tr.querySelector('.current-availability-value')!).fontSize),
      title: parseFloat(getComputedStyle(tr.querySelector('.roadmap-title')!).fontSize),
    }));
    expect(sizes.availability).toBeGreaterThan(sizes.title);
    await expectAccessible(page, 'current view at 1440x900');

    // Another quarter: the rows show its texts, and the address names it.
    await picker.selectOption(timeline[2]!);
    await expect(page).toHaveURL(new RegExp(`[?&]quarter=${timeline[2]}(&|$)`));
    await expect(currentRow(page, 'Mobile app')).toContainText('Availability: Pilot for two faculties');
    await expect(currentRow(page, 'Web portal')).toContainText('Not specified');
    await expect(page.getByTestId('current-table').locator('caption')).toHaveText(`Availability for ${timeline[2]}`);
    await expectAccessible(page, 'current view, another quarter');

    // A reload keeps the view and the quarter.
    await page.reload();
    await expect(page.getByTestId('current-table')).toBeVisible();
    await expect(page.getByLabel('Quarter', { exact: true })).toHaveValue(timeline[2]!);
    await expect(currentRow(page, 'Mobile app')).toContainText('Availability: Pilot for two faculties');

    // At a phone's width.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(currentRow(page, 'Mobile app')).toBeVisible();
    await expectAccessible(page, 'current view at 390x844');
    await page.setViewportSize({ width: 1440, height: 900 });

    // Back to the roadmap: the address says so, and a reload keeps it.
    await page.locator('label', { hasText: /^Roadmap$/ }).click();
    await expect(page).toHaveURL(/[?&]view=roadmap(&|$)/);
    await page.reload();
    await expect(page.getByTestId('roadmap-table')).toBeVisible();

    // A shared link opens the view and quarter it names.
    await page.goto(`/catalog/${serviceId}?view=current&quarter=${timeline[2]}`);
    await expect(currentRow(page, 'Mobile app')).toContainText('Availability: Pilot for two faculties');

    // Values the address cannot hold fall back to the defaults, without an error.
    await page.goto(`/catalog/${serviceId}?view=current&quarter=1999-Q9`);
    await expect(page.getByLabel('Quarter', { exact: true })).toHaveValue(first);
    await expect(currentRow(page, 'Mobile app')).toContainText('Availability: Beta');
    await page.goto(`/catalog/${serviceId}?view=sideways&quarter=${timeline[2]}`);
    await expect(page.getByTestId('roadmap-table')).toBeVisible();
    await expect(page.getByRole('alert')).toHaveCount(0);
  });

  test('searching an availability text finds the aspect in both views, for the quarters shown', async ({ page, request }) => {
    const api = await adminApi(request);
    const { serviceId, timeline } = await seedQuarters(api);
    await openCatalog(page, serviceId);
    const search = page.getByPlaceholder('Search aspects...');

    // Roadmap: any quarter of the timeline.
    await search.fill('pilot');
    await expect(page.getByTestId('aspect-row')).toHaveCount(1);
    await expect(row(page, 'Mobile app')).toBeVisible();
    await expectAccessible(page, 'roadmap searched by availability');

    // Current: the quarter chosen only.
    await page.locator('label', { hasText: /^Current$/ }).click();
    await expect(page.getByText('No matching aspects found')).toBeVisible();
    await page.getByLabel('Quarter', { exact: true }).selectOption(timeline[2]!);
    await expect(page.getByTestId('current-row')).toHaveCount(1);
    await expect(currentRow(page, 'Mobile app')).toContainText('Availability: Pilot for two faculties');
    await expectAccessible(page, 'current view searched by availability');

    await search.fill('generally available');
    await expect(page.getByText('No matching aspects found')).toBeVisible();
    await page.getByLabel('Quarter', { exact: true }).selectOption(timeline[0]!);
    await expect(page.getByTestId('current-row')).toHaveCount(1);
    await expect(currentRow(page, 'Web portal')).toBeVisible();
  });

  test('a new aspect is private unless its box is ticked', async ({ page, request }) => {
    const api = await adminApi(request);
    const { serviceId } = await seedService(api, `Private by default ${unique()}`, []);
    await openCatalog(page, serviceId);
    const dialog = page.getByRole('dialog', { name: 'Create Aspect' });
    const box = dialog.getByLabel('Public (visible in public snapshots)');

    await page.getByRole('button', { name: /^Add aspect to / }).click();
    await expect(box).not.toBeChecked();
    await dialog.getByRole('textbox', { name: 'Title' }).fill('Quiet aspect');
    await dialog.getByRole('button', { name: 'Create Aspect' }).click();
    await expect(dialog).toBeHidden();
    await expect(row(page, 'Quiet aspect').getByText('Private')).toBeVisible();

    await page.getByRole('button', { name: /^Add aspect to / }).click();
    await expect(box).not.toBeChecked();
    await dialog.getByRole('textbox', { name: 'Title' }).fill('Shown aspect');
    await box.check();
    await dialog.getByRole('button', { name: 'Create Aspect' }).click();
    await expect(dialog).toBeHidden();
    await expect(row(page, 'Shown aspect')).toBeVisible();
    await expect(row(page, 'Shown aspect').getByText('Private')).toHaveCount(0);

    const { aspects } = await api.send('GET', `/aspects/service/${serviceId}?showPrivate=true`);
    const flags = Object.fromEntries((aspects as { title: string; is_public: boolean }[]).map((a) => [a.title, a.is_public]));
    expect(flags).toEqual({ 'Quiet aspect': false, 'Shown aspect': true });
  });

  test('the availability editor links to the Quick Templates tab when there are none', async ({ page, request }) => {
    const api = await adminApi(request);
    const { serviceId, timeline } = await seedQuarters(api);
    await openCatalog(page, serviceId);

    await page.getByRole('button', { name: `Web portal, ${timeline[1]}: -` }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit Availability' });
    await expect(dialog.getByText('No quick templates defined. Add them in Service Settings.')).toBeVisible();
    const link = dialog.getByRole('link', { name: 'Service Settings' });
    await expect(link).toHaveAttribute('href', `/catalog/${serviceId}/settings?tab=templates`);
    await expectAccessible(page, 'availability modal with the templates link');
    await link.click();

    await expect(page).toHaveURL(new RegExp(`/catalog/${serviceId}/settings\\?tab=templates$`));
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await expect(page.getByRole('tab', { name: 'Quick Templates' })).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByText('Quick templates are ready-made availability texts')).toBeVisible();
    await expect(page.getByPlaceholder('Add new template...')).toBeVisible();
    await expectAccessible(page, 'quick templates tab from the link');

    // The tab chosen is in the address too, and an unknown tab opens Service Details.
    await page.getByRole('tab', { name: 'Actor Roles' }).click();
    await expect(page).toHaveURL(/[?&]tab=roles(&|$)/);
    await page.reload();
    await expect(page.getByRole('tab', { name: 'Actor Roles' })).toHaveAttribute('aria-selected', 'true');
    await page.goto(`/catalog/${serviceId}/settings?tab=nowhere`);
    await expect(page.getByRole('tab', { name: 'Service Details' })).toHaveAttribute('aria-selected', 'true');
  });

  test('a service description stored as markup shows as plain text', async ({ page, request }) => {
    const api = await adminApi(request);
    const { serviceId } = await seedService(api, `Described ${unique()}`, []);
    await api.send('PUT', `/services/${serviceId}`, { name: `Described ${unique()}`, description: '<p>Plain <strong>words</strong> &amp; more</p>' });
    await openCatalog(page, serviceId);
    await expect(page.locator('.page-description')).toHaveText('Plain words & more');

    await page.goto(`/catalog/${serviceId}/settings?tab=details`);
    await expect(page.getByRole('textbox', { name: 'Description' })).toHaveValue('Plain words & more');
  });

  test('the Demo service describes itself in plain text', async ({ page }) => {
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.getByRole('link', { name: 'Demo', exact: true }).click();
    await expect(page.locator('.page-description')).toHaveText(/^An example service/);
    await page.getByRole('link', { name: 'Settings' }).click();
    await expect(page.getByRole('textbox', { name: 'Description' })).toHaveValue(/^An example service[^<]*$/);
  });

  test('the super admin panel passes the accessibility checks while its user impersonates', async ({ page, request }) => {
    const u = unique();
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const { tenant } = await admin.send('POST', '/tenants', { name: `Looked-at Org ${u}`, slug: `looked-at-${u}` });
    const { user } = await admin.send('POST', '/admin/users', {
      email: `looked-at-${u}@example.com`,
      name: `Looked At ${u}`,
      role: 'reader',
      tenant_id: tenant.id,
      password: 'secret-pass',
    });
    // Started from another session of the same super admin: the panel's own session shows the note.
    const started = await admin.send('POST', '/impersonation/start', { userId: user.id, tenantId: tenant.id, reason: `Accessibility check ${u}` });
    try {
      await signIn(page, ADMIN.email, ADMIN.password, '/super-admin');
      const note = page.getByRole('alert').filter({ hasText: 'Currently impersonating' });
      await expect(note).toContainText(`Looked At ${u}`);
      await expectAccessible(page, 'super admin panel while impersonating');
    } finally {
      const stop = await request.post('/api/impersonation/stop', { headers: { authorization: `Bearer ${started.token}` } });
      expect(stop.status()).toBeLessThan(300);
    }
  });
});

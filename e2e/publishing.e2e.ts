import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import type { APIRequestContext } from '@playwright/test';
import { quarterOf } from '../common/quarters';
import { ADMIN, apiAs, expect, expectAccessible, FIRST_TENANT, loginThroughPage, test, signIn } from './fixtures';

const uid = () => randomBytes(3).toString('hex');

/** A service of the first tenant with a public and a private aspect, and a cell in the current quarter. */
async function seedService(request: APIRequestContext, name: string) {
  const api = await apiAs(request, ADMIN.email, ADMIN.password, FIRST_TENANT.slug);
  const slug = name.toLowerCase().replace(/\s+/g, '-');
  const { service } = await api.send('POST', '/services', { name, slug, description: 'Lending for everyone', serviceOwner: 'Library team' });
  const { category } = await api.send('POST', '/categories', { serviceId: service.id, name: 'Lending' });
  const { aspect } = await api.send('POST', '/aspects', {
    serviceId: service.id,
    categoryId: category.id,
    title: 'Renew online',
    description: '',
    isPublic: true,
  });
  await api.send('POST', '/aspects', { serviceId: service.id, categoryId: category.id, title: 'Secret vendor deal', description: '', isPublic: false });
  const quarter = quarterOf(new Date());
  await api.send('POST', '/availabilities', { aspectId: aspect.id, timeBucket: quarter, value: 'Beta' });
  return { api, service: service as { id: string; slug: string; name: string }, aspect, quarter };
}

test.describe('publishing', () => {
  test('an admin publishes a service; a signed-out visitor reads it with JavaScript off; unpublishing answers 404 at once', async ({
    page,
    browser,
    request,
    baseURL,
  }) => {
    test.setTimeout(90_000);
    const name = `Loans ${uid()}`;
    const { api, service } = await seedService(request, name);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await signIn(page, ADMIN.email, ADMIN.password, `/catalog/${service.id}/settings`);
    const panel = page.getByRole('region', { name: 'Public page' });
    await expect(panel.getByText('Not published')).toBeVisible();
    const toggle = panel.getByRole('switch', { name: 'Publish this service' });
    await toggle.click({ force: true });
    await expect(toggle).toBeChecked();
    const address = `${baseURL}/p/${FIRST_TENANT.slug}/${service.slug}`;
    await expect(panel.getByRole('textbox', { name: 'Public address' })).toHaveValue(address);
    await panel.getByRole('button', { name: 'Copy address' }).click();
    await expect(panel.getByRole('button', { name: 'Copied' })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(address);
    await expectAccessible(page, 'service settings with the public page panel');

    // A new edition is a public snapshot.
    await api.send('POST', '/snapshots', { serviceId: service.id, label: 'Spring edition', visibility: 'public', note: 'Our first public roadmap' });

    const visitor = await browser.newContext({ javaScriptEnabled: false });
    const reader = await visitor.newPage();
    const res = await reader.goto(address);
    expect(res?.status()).toBe(200);
    await expect(reader).toHaveTitle(`${name}: roadmap · ${FIRST_TENANT.name}`);
    await expect(reader.getByRole('heading', { level: 1, name })).toBeVisible();
    await expect(reader.getByRole('strong').filter({ hasText: 'Spring edition' })).toBeVisible();
    await expect(reader.getByRole('link', { name: 'Spring edition' })).toHaveAttribute('aria-current', 'page');
    await expect(reader.getByRole('heading', { name: 'Roadmap' })).toBeVisible();
    await expect(reader.getByRole('rowheader', { name: 'Renew online' }).first()).toBeVisible();
    await expect(reader.getByText('Secret vendor deal')).toHaveCount(0);
    await expect(reader.locator('link[rel="alternate"][type="application/atom+xml"]')).toHaveAttribute(
      'href',
      `/p/${FIRST_TENANT.slug}/${service.slug}/feed.atom`,
    );

    // Accessible, and fitting a 320 px screen (the tables scroll in their own box).
    const checkedContext = await browser.newContext();
    const checked = await checkedContext.newPage();
    await checked.goto(address);
    await expectAccessible(checked, 'public service page');
    await checked.setViewportSize({ width: 320, height: 640 });
    expect(await checked.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    await checked.goto(`${baseURL}/p/${FIRST_TENANT.slug}`);
    await expect(checked.getByRole('link', { name })).toBeVisible();
    await expectAccessible(checked, 'public tenant index');
    await checked.goto(`${baseURL}/p/${FIRST_TENANT.slug}/no-such-service`);
    await expect(checked.getByRole('heading', { name: 'Page not found' })).toBeVisible();
    await expectAccessible(checked, 'public 404 page');
    await checkedContext.close();

    // Unpublishing asks first, then the address answers 404 at once.
    await toggle.click({ force: true });
    const confirm = page.getByRole('dialog', { name: 'Unpublish service?' });
    await expectAccessible(page, 'unpublish confirmation');
    await confirm.getByRole('button', { name: 'Unpublish' }).click();
    await expect(panel.getByText('Not published')).toBeVisible();
    const gone = await reader.goto(address);
    expect(gone?.status()).toBe(404);
    await expect(reader.getByRole('heading', { name: 'Page not found' })).toBeVisible();
    await visitor.close();
  });

  test('a new edition says what changed since the previous one, in place and as a summary', async ({ browser, request, baseURL }) => {
    test.setTimeout(90_000);
    const api = await apiAs(request, ADMIN.email, ADMIN.password, FIRST_TENANT.slug);
    const slug = `campus-wifi-${uid()}`;
    const { service } = await api.send('POST', '/services', {
      name: 'Campus Wi-Fi',
      slug,
      description: 'Wireless network for students, staff and visitors across every campus building.',
      serviceOwner: 'Network team',
      subscriptionModel: 'Included for students and staff; day passes for visitors',
    });
    const timeline: string[] = service.timeline.slice(0, 4);
    const plan: Record<string, [string, string[]][]> = {
      Access: [
        ['Eduroam sign-in', ['Available', 'Available', 'Available', 'Available']],
        ['Visitor day pass', ['Pilot', 'Available', 'Available', 'Available']],
      ],
      Coverage: [
        ['Library and study rooms', ['Available', 'Available', 'Available', 'Available']],
        ['Outdoor areas', ['', 'Planned', 'Pilot', 'Available']],
        ['Halls of residence', ['Planned', 'Pilot', 'Available', 'Available']],
      ],
    };
    const ids: Record<string, string> = {};
    let position = 0;
    for (const [categoryName, rows] of Object.entries(plan)) {
      const { category } = await api.send('POST', '/categories', { serviceId: service.id, name: categoryName, position: position++ });
      for (const [title, values] of rows) {
        const { aspect } = await api.send('POST', '/aspects', { serviceId: service.id, categoryId: category.id, title, description: '', isPublic: true });
        ids[title] = aspect.id;
        for (const [i, value] of values.entries())
          if (value) await api.send('POST', '/availabilities', { aspectId: aspect.id, timeBucket: timeline[i], value });
      }
    }
    await api.send('POST', '/snapshots', { serviceId: service.id, label: 'Spring plan', visibility: 'public', note: '' });
    await api.send('POST', '/availabilities', { aspectId: ids['Outdoor areas'], timeBucket: timeline[1], value: 'Pilot in the main quad' });
    await api.send('POST', '/availabilities', { aspectId: ids['Halls of residence'], timeBucket: timeline[1], value: 'Available' });
    await api.send('POST', '/snapshots', { serviceId: service.id, label: 'Summer update', visibility: 'public', note: 'Outdoor pilot starts early.' });
    await api.send('PATCH', `/services/${service.id}/publish`);

    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${baseURL}/p/${FIRST_TENANT.slug}/${slug}`);
    const changes = page.getByRole('region', { name: 'What changed since the previous edition' });
    await expect(changes.getByText('2 availabilities changed', { exact: true })).toBeVisible();
    await expect(changes.getByText(/Outdoor areas, .*: Planned → Pilot in the main quad/)).toBeVisible();
    await expect(page.locator('td.changed')).toHaveCount(2);
    await expectAccessible(page, 'public page with changes');
    mkdirSync('test-results/screenshots', { recursive: true });
    await page.screenshot({ path: 'test-results/screenshots/public-page.png', fullPage: true });
    if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync('test-results/screenshots/public-page.png', 'docs/screenshots/public-page.png');
    await context.close();
  });

  test('an editor compares a snapshot with the live catalog: what was planned against what is recorded', async ({ page, request }) => {
    test.setTimeout(60_000);
    const { api, service, aspect, quarter } = await seedService(request, `Compare ${uid()}`);
    await api.send('POST', '/snapshots', { serviceId: service.id, label: 'Plan', visibility: 'internal', note: '' });
    await api.send('POST', '/availabilities', { aspectId: aspect.id, timeBucket: quarter, value: 'Delayed' });
    await signIn(page, ADMIN.email, ADMIN.password, `/catalog/${service.id}/settings`);
    const group = page.getByRole('group', { name: 'Compare snapshots' });
    await group.getByRole('combobox', { name: 'Compare' }).click();
    await page.getByRole('option', { name: /^Plan \(internal/ }).click();
    await expect(group.getByRole('combobox', { name: 'With' })).toHaveValue('Live catalog (now)');
    await group.getByRole('button', { name: 'Compare' }).click();
    const dialog = page.getByRole('dialog', { name: 'Compare snapshots' });
    await expect(dialog.getByText('1 availability changed', { exact: true })).toBeVisible();
    const cells = dialog.getByRole('table', { name: 'Changed cells' });
    await expect(cells.getByRole('columnheader', { name: 'What was planned' })).toBeVisible();
    await expect(cells.getByRole('columnheader', { name: 'What is recorded' })).toBeVisible();
    await expect(cells.getByRole('row', { name: new RegExp(`Renew online ${quarter} \\(begun\\) Beta Delayed`) })).toBeVisible();
    await expectAccessible(page, 'snapshot comparison');
  });

  test('an editor compares two snapshots: added, removed, renamed and moved aspects and changed cells, with counts', async ({ page, request }) => {
    test.setTimeout(60_000);
    const { api, service, aspect, quarter } = await seedService(request, `Pair ${uid()}`);
    const { aspect: goner } = await api.send('POST', '/aspects', {
      serviceId: service.id,
      categoryId: aspect.category_id,
      title: 'Fax renewals',
      isPublic: true,
    });
    await api.send('POST', '/snapshots', { serviceId: service.id, label: 'Autumn', visibility: 'internal', note: '' });
    const { category: extras } = await api.send('POST', '/categories', { serviceId: service.id, name: 'Extras' });
    await api.send('PUT', `/aspects/${aspect.id}`, { title: 'Renew anywhere', description: '', categoryId: extras.id });
    await api.send('POST', '/availabilities', { aspectId: aspect.id, timeBucket: quarter, value: 'Available' });
    await api.send('DELETE', `/aspects/${goner.id}`);
    await api.send('POST', '/aspects', { serviceId: service.id, categoryId: extras.id, title: 'Self check-out', isPublic: true });
    await api.send('POST', '/snapshots', { serviceId: service.id, label: 'Winter', visibility: 'public', note: '' });

    await signIn(page, ADMIN.email, ADMIN.password, `/catalog/${service.id}/settings`);
    const group = page.getByRole('group', { name: 'Compare snapshots' });
    await group.getByRole('combobox', { name: 'Compare' }).click();
    await page.getByRole('option', { name: /^Autumn \(internal/ }).click();
    await group.getByRole('combobox', { name: 'With' }).click();
    await page.getByRole('option', { name: /^Winter \(public/ }).click();
    await group.getByRole('button', { name: 'Compare' }).click();
    const dialog = page.getByRole('dialog', { name: 'Compare snapshots' });
    await expect(dialog.getByRole('status')).toHaveText('1 aspect added, 1 aspect removed, 1 aspect renamed, 1 aspect moved, 1 availability changed');
    for (const count of ['1 added', '1 removed', '1 renamed', '1 moved', '1 cells changed', '0 descriptions changed'])
      await expect(dialog.getByText(count, { exact: true })).toBeVisible();
    await expect(dialog.getByRole('table', { name: 'Added aspects' }).getByRole('row', { name: 'Self check-out Extras' })).toBeVisible();
    await expect(dialog.getByRole('table', { name: 'Removed aspects' }).getByRole('row', { name: 'Fax renewals Lending' })).toBeVisible();
    await expect(dialog.getByRole('table', { name: 'Renamed aspects' }).getByRole('row', { name: 'Renew online Renew anywhere' })).toBeVisible();
    await expect(dialog.getByRole('table', { name: 'Moved aspects' }).getByRole('row', { name: 'Renew anywhere Lending Extras' })).toBeVisible();
    const cells = dialog.getByRole('table', { name: 'Changed cells' });
    await expect(cells.getByRole('columnheader', { name: 'Before' })).toBeVisible();
    await expect(cells.getByRole('columnheader', { name: 'After' })).toBeVisible();
    await expect(cells.getByRole('row', { name: `Renew anywhere ${quarter} Beta Available` })).toBeVisible();
    // Two snapshots are not the live catalog: nothing is labelled as planned or recorded.
    await expect(dialog.getByText('What was planned')).toHaveCount(0);
    // The private aspect did not change: it is not listed.
    await expect(dialog.getByText('Secret vendor deal')).toHaveCount(0);
    await expectAccessible(page, 'comparison of two snapshots');
  });

  test('a tenant admin lists the origins allowed to embed the public pages', async ({ page, request }) => {
    test.setTimeout(60_000);
    const u = uid();
    const admin = await apiAs(request, ADMIN.email, ADMIN.password);
    const { tenant } = await admin.send('POST', '/tenants', { name: `Embed Org ${u}`, slug: `embed-${u}` });
    const email = `embed-admin-${u}@example.com`;
    await admin.send('POST', '/admin/users', { email, name: `Embed Admin ${u}`, role: 'admin', tenant_id: tenant.id, password: 'secret-pass' });
    await loginThroughPage(page, email, 'secret-pass');
    await expect(page).toHaveURL(/\/$/);
    await page.goto('/tenant-settings');
    const section = page.getByRole('region', { name: 'Public pages' });
    const field = section.getByRole('textbox', { name: 'Origins allowed to embed public pages' });
    await field.fill('intranet.example.org/path');
    await section.getByRole('button', { name: 'Save origins' }).click();
    await expect(section.getByText(/Each origin must be a web address/)).toBeVisible();
    await expectAccessible(page, 'tenant settings with an origin error');
    await field.fill('https://intranet.example.org\nhttps://www.example.org');
    await section.getByRole('button', { name: 'Save origins' }).click();
    await expect(page.getByText('Origins saved.')).toBeVisible();
    await page.reload();
    await expect(section.getByRole('textbox', { name: 'Origins allowed to embed public pages' })).toHaveValue(
      'https://intranet.example.org\nhttps://www.example.org',
    );
  });
});

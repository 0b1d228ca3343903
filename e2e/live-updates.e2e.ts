import type { Browser, Page } from '@playwright/test';
import { test, expect, ADMIN, FIRST_TENANT, expectAccessible, loginThroughPage, signIn } from './fixtures';
import { adminApi, openCatalog, row, rowTitles, seedService, unique, type Api } from './catalogHelpers';

/** Live updates arrive within a second; a little room for a busy machine. */
const LIVE = { timeout: 1500 };

/** A second person in their own browser context, signed in through the login page. */
async function secondPage(browser: Browser, baseURL: string | undefined) {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message.slice(0, 300)));
  return { page, context, errors };
}

async function newReader(api: Api, id: string) {
  const email = `live-reader-${id}@example.com`;
  await api.send('POST', '/users', { email, name: `Live Reader ${id}`, role: 'reader', password: 'reader-password' });
  return { email, password: 'reader-password' };
}

/** Resolves once the page follows the stream (its answer's headers have arrived); called before the page opens. */
function streamOpens(page: Page) {
  return page.waitForResponse((res) => new URL(res.url()).pathname === '/api/events' && res.status() === 200, { timeout: 20_000 });
}

test.describe('Live updates', () => {
  test.describe.configure({ timeout: 90_000 });

  test("a colleague's cell, new aspect and rename show on an open catalog without a reload", async ({ page, browser, request, baseURL }) => {
    const id = unique();
    const api = await adminApi(request);
    const { serviceId, categoryId, aspectIds } = await seedService(api, `Live ${id}`, [{ title: 'Shared feature' }]);
    const { service } = await api.send('GET', `/services/${serviceId}/full`);
    const quarter = (service.timeline as string[])[1];
    const reader = await newReader(api, id);

    const opened = streamOpens(page);
    await openCatalog(page, serviceId);
    const other = await secondPage(browser, baseURL);
    const otherOpened = streamOpens(other.page);
    await openCatalog(other.page, serviceId, reader.email, reader.password);
    await Promise.all([opened, otherOpened]);

    // The editor changes a cell through the page; the reader's page shows it.
    await page.getByRole('button', { name: `Shared feature, ${quarter}: -` }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit Availability' });
    await dialog.getByRole('textbox', { name: 'Availability' }).fill(`Ready ${id}`);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    await expect(row(other.page, 'Shared feature')).toContainText(`Ready ${id}`, LIVE);

    // Written through the API: measured from the write.
    await api.send('POST', '/availabilities', { aspectId: aspectIds[0], timeBucket: quarter, value: `Later ${id}` });
    await expect(row(other.page, 'Shared feature')).toContainText(`Later ${id}`, LIVE);

    await api.send('POST', '/aspects', { serviceId, categoryId, title: `Added ${id}`, description: '<p>New</p>', isPublic: true });
    await expect(row(other.page, `Added ${id}`)).toBeVisible(LIVE);
    await expect(row(page, `Added ${id}`)).toBeVisible(LIVE);

    await api.send('PUT', `/services/${serviceId}`, { name: `Renamed ${id}` });
    await expect(other.page.getByRole('heading', { level: 1, name: `Renamed ${id}` })).toBeVisible(LIVE);
    await expect(page.getByRole('heading', { level: 1, name: `Renamed ${id}` })).toBeVisible(LIVE);

    expect(other.errors, 'uncaught errors in the second page').toEqual([]);
    await other.context.close();
  });

  test('the dashboard shows a service a colleague created and renamed', async ({ page, request }) => {
    const id = unique();
    const api = await adminApi(request);
    const reader = await newReader(api, id);
    const opened = streamOpens(page);
    await loginThroughPage(page, reader.email, reader.password);
    await expect(page.getByRole('heading', { level: 1, name: FIRST_TENANT.name })).toBeVisible();
    await page.getByRole('textbox', { name: 'Search services' }).fill(id);
    await expect(page.getByText(`Live Dashboard ${id}`)).toHaveCount(0);
    await opened;

    const { service } = await api.send('POST', '/services', { name: `Live Dashboard ${id}`, slug: `live-dash-${id}` });
    await expect(page.getByRole('link', { name: `Live Dashboard ${id}`, exact: true })).toBeVisible(LIVE);

    await api.send('PUT', `/services/${service.id}`, { name: `Live Renamed ${id}` });
    await expect(page.getByRole('link', { name: `Live Renamed ${id}`, exact: true })).toBeVisible(LIVE);
    await expect(page.getByRole('link', { name: `Live Dashboard ${id}`, exact: true })).toHaveCount(0);
  });

  test('an open Edit Availability keeps what is typed and offers the value a colleague saved', async ({ page, request }) => {
    const id = unique();
    const api = await adminApi(request);
    const { serviceId, aspectIds } = await seedService(api, `Typing ${id}`, [{ title: 'Busy cell' }]);
    const { service } = await api.send('GET', `/services/${serviceId}/full`);
    const quarter = (service.timeline as string[])[0];
    await api.send('POST', '/availabilities', { aspectId: aspectIds[0], timeBucket: quarter, value: 'Planned' });

    const opened = streamOpens(page);
    await openCatalog(page, serviceId);
    await opened;
    await page.getByRole('button', { name: `Busy cell, ${quarter}: Planned` }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit Availability' });
    const field = dialog.getByRole('textbox', { name: 'Availability' });
    await field.fill(`My words ${id}`);

    await api.send('POST', '/availabilities', { aspectId: aspectIds[0], timeBucket: quarter, value: `Their words ${id}` });
    const notice = dialog.getByRole('status').filter({ hasText: 'Someone else changed this while you were editing.' });
    await expect(notice).toBeVisible(LIVE);
    await expect(notice.getByTestId('their-version')).toHaveText(`Their words ${id}`);
    await expect(field).toHaveValue(`My words ${id}`);
    await expectAccessible(page, 'availability editor with the changed notice');

    await notice.getByRole('button', { name: 'Use their version' }).click();
    await expect(field).toHaveValue(`Their words ${id}`);
    await expect(notice).toBeHidden();

    // Saved on top of their version: no conflict.
    await field.fill(`Agreed ${id}`);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('button', { name: `Busy cell, ${quarter}: Agreed ${id}` })).toBeVisible();
  });

  test('an open Edit Aspect keeps what is typed and offers the title a colleague saved', async ({ page, request }) => {
    const id = unique();
    const api = await adminApi(request);
    const { serviceId, aspectIds } = await seedService(api, `Aspect typing ${id}`, [{ title: 'Old title' }]);
    const opened = streamOpens(page);
    await openCatalog(page, serviceId);
    await opened;
    await row(page, 'Old title').getByRole('button', { name: 'Old title', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit Aspect' });
    const title = dialog.getByRole('textbox', { name: 'Title' });
    await title.fill(`Mine ${id}`);

    await api.send('PUT', `/aspects/${aspectIds[0]}`, { title: `Theirs ${id}`, description: '<p>Theirs</p>', isPublic: true });
    const notice = dialog.getByRole('status').filter({ hasText: 'Someone else changed this while you were editing.' });
    await expect(notice.getByTestId('their-version')).toHaveText(`Theirs ${id}`, LIVE);
    await expect(title).toHaveValue(`Mine ${id}`);

    // Kept: the save goes on top of their version.
    await notice.getByRole('button', { name: 'Keep mine' }).click();
    await expect(notice).toBeHidden();
    await dialog.getByRole('button', { name: 'Save Changes' }).click();
    await expect(dialog).toBeHidden();
    await expect(row(page, `Mine ${id}`)).toBeVisible();
  });

  test("Service Details keeps what is typed, offers a colleague's value for it, and takes their value into untouched fields", async ({ page, request }) => {
    const id = unique();
    const api = await adminApi(request);
    const { serviceId } = await seedService(api, `Details ${id}`, [{ title: 'Anything' }]);
    await signIn(page, ADMIN.email, ADMIN.password);
    const opened = streamOpens(page);
    await page.goto(`/catalog/${serviceId}/settings`);
    const name = page.getByRole('textbox', { name: 'Name' });
    const owner = page.getByRole('textbox', { name: 'Service Owner' });
    await expect(name).toHaveValue(`Details ${id}`);
    await opened;
    await name.fill(`My name ${id}`);

    await api.send('PUT', `/services/${serviceId}`, { name: `Their name ${id}`, serviceOwner: `Their team ${id}` });
    const notice = page.getByRole('status').filter({ hasText: 'Someone else changed this while you were editing.' });
    await expect(notice.getByTestId('their-version')).toHaveText(`Their name ${id}`, LIVE);
    await expect(notice).toContainText('Name:');
    await expect(name).toHaveValue(`My name ${id}`);
    await expect(owner).toHaveValue(`Their team ${id}`);
    await expectAccessible(page, 'service details with the changed notice');

    await notice.getByRole('button', { name: 'Use their version' }).click();
    await expect(name).toHaveValue(`Their name ${id}`);
    await expect(notice).toBeHidden();
  });

  test("a reader's stream never carries a private aspect's content, and the catalog never shows it", async ({ page, request }) => {
    const id = unique();
    const api = await adminApi(request);
    const { serviceId, categoryId } = await seedService(api, `Private ${id}`, [{ title: 'Open part' }]);
    const { service } = await api.send('GET', `/services/${serviceId}/full`);
    const reader = await newReader(api, id);
    await openCatalog(page, serviceId, reader.email, reader.password);
    await expect(row(page, 'Open part')).toBeVisible();

    const secretTitle = `Secret title ${id}`;
    const secretText = `Secret text ${id}`;
    // The reader's own stream, read raw for a while as the page would.
    const raw = page.evaluate(async () => {
      const token = localStorage.getItem('token');
      const tenant = JSON.parse(localStorage.getItem('activeTenant') ?? localStorage.getItem('user') ?? 'null');
      const slug: string | undefined = tenant?.slug ?? tenant?.tenant?.slug;
      const controller = new AbortController();
      const res = await fetch('/api/events', {
        headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream', ...(slug ? { 'X-Tenant-Slug': slug } : {}) },
        signal: controller.signal,
      });
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      setTimeout(() => controller.abort(), 2500);
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          text += decoder.decode(value, { stream: true });
        }
      } catch {
        /* aborted: the reading time is over */
      }
      return text;
    });
    await page.waitForTimeout(300);
    const { aspect } = await api.send('POST', '/aspects', { serviceId, categoryId, title: secretTitle, description: `<p>${secretText}</p>`, isPublic: false });
    await api.send('POST', '/availabilities', { aspectId: aspect.id, timeBucket: (service.timeline as string[])[0], value: secretText });

    const bytes = await raw;
    expect(bytes).toContain('event: catalog');
    expect(bytes).not.toContain(secretTitle);
    expect(bytes).not.toContain(secretText);
    expect(bytes).not.toContain(id);
    await page.waitForTimeout(500);
    await expect(page.getByText(secretTitle)).toHaveCount(0);
    await expect(page.getByText(secretText)).toHaveCount(0);
    await expect(row(page, 'Open part')).toBeVisible();
  });

  test('a person signed out elsewhere is taken to the login page without a click', async ({ page, request }) => {
    const id = unique();
    const api = await adminApi(request);
    const reader = await newReader(api, id);
    const opened = streamOpens(page);
    await loginThroughPage(page, reader.email, reader.password);
    await expect(page.getByRole('heading', { level: 1, name: FIRST_TENANT.name })).toBeVisible();
    await opened;

    const token = await page.evaluate(() => localStorage.getItem('token'));
    const res = await request.post('/api/auth/logout', { headers: { authorization: `Bearer ${token}` } });
    expect(res.status()).toBe(204);
    // Without a click: the stream tells the page (a loaded machine may take a few seconds).
    await expect(page).toHaveURL(/\/login$/, { timeout: 6000 });
    await expect(page.getByRole('button', { name: 'Log In' })).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
  });

  test('a person removed from the tenant they work in is taken back to their own tenant at once', async ({ page, request }) => {
    const id = unique();
    const api = await adminApi(request);
    const { session } = api;
    const { tenant } = await api.send('POST', '/tenants', { name: `Left Org ${id}`, slug: `left-${id}` });
    const email = `live-leaver-${id}@example.com`;
    const { user } = await api.send('POST', '/admin/users', {
      email,
      name: `Live Leaver ${id}`,
      role: 'reader',
      tenant_id: session.tenant.id,
      password: 'leaver-password',
    });
    await api.send('PATCH', `/admin/users/${user.id}/tenants`, { tenantIds: [session.tenant.id, tenant.id] });

    await loginThroughPage(page, email, 'leaver-password');
    await expect(page.getByRole('heading', { level: 1, name: FIRST_TENANT.name })).toBeVisible();
    await page.evaluate((t) => localStorage.setItem('activeTenant', JSON.stringify(t)), tenant);
    const opened = streamOpens(page);
    await page.reload();
    await expect(page.getByRole('heading', { level: 1, name: tenant.name })).toBeVisible();
    await opened;

    await api.send('PATCH', `/admin/users/${user.id}/tenants`, { tenantIds: [session.tenant.id] });
    await expect(page.getByRole('heading', { level: 1, name: FIRST_TENANT.name })).toBeVisible({ timeout: 6000 });
    await expect(page).toHaveURL(/\/$/);
  });
});

test.describe('Live updates on the settings and admin pages', () => {
  test.describe.configure({ timeout: 90_000 });

  test("a colleague's reorder shows on the catalog, an archive on Service Settings, a new user on the Super Admin Panel", async ({ page, request }) => {
    const id = unique();
    const api = await adminApi(request);
    const { serviceId, categoryId, aspectIds } = await seedService(api, `Settings live ${id}`, [{ title: 'First aspect' }, { title: 'Second aspect' }]);

    const opened = streamOpens(page);
    await openCatalog(page, serviceId);
    await opened;
    await expect.poll(() => rowTitles(page)).toEqual(['First aspect', 'Second aspect']);
    await api.send('PATCH', '/aspects/reorder', { categoryId, aspectIds: [aspectIds[1], aspectIds[0]] });
    await expect.poll(() => rowTitles(page), LIVE).toEqual(['Second aspect', 'First aspect']);

    const settingsOpened = streamOpens(page);
    await page.goto(`/catalog/${serviceId}/settings`);
    await expect(page.getByRole('button', { name: 'Archive Service' })).toBeVisible();
    await settingsOpened;
    await api.send('PATCH', `/services/${serviceId}/archive`);
    await expect(page.getByText('ARCHIVED', { exact: true })).toBeVisible(LIVE);
    await expect(page.getByRole('button', { name: 'Unarchive Service' })).toBeVisible(LIVE);

    const adminOpened = streamOpens(page);
    await page.goto('/super-admin');
    await page.getByRole('textbox', { name: 'Search users' }).fill(id);
    await expect(page.getByText(`Live Reader ${id}`)).toHaveCount(0);
    await adminOpened;
    await newReader(api, id);
    await expect(page.getByText(`live-reader-${id}@example.com`)).toBeVisible(LIVE);
  });
});

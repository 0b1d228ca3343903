import type { Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { ADMIN, apiAs, expect, test, signIn } from './fixtures';
import { gzipSync } from 'node:zlib';
import { XSS_CORPUS } from '../server/test/security/xssCorpus';
import { visitEveryRow } from './catalogHelpers';

/**
 * Suite 5 in a real browser: the hostile corpus is written through the API into a service's
 * description, aspect titles and descriptions and availability texts, then every screen that shows
 * them is opened in Chromium with a detector for executed script: window.__xss (every payload
 * pushes to it when it runs), dialogs (alert, confirm, prompt) and requests to /xss/.
 */
interface Detector {
  executions: () => Promise<number>;
  dialogs: string[];
  requests: string[];
}

async function armDetector(page: Page): Promise<Detector> {
  const dialogs: string[] = [];
  const requests: string[] = [];
  await page.addInitScript(() => {
    const w = window as unknown as { __xss: unknown[] };
    w.__xss = [];
    for (const name of ['alert', 'confirm', 'prompt'] as const) {
      const original = window[name].bind(window);
      (window as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        w.__xss.push(`${name}:${String(args[0])}`);
        return (original as (...a: unknown[]) => unknown)(...args);
      };
    }
  });
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('request', (req) => {
    const url = req.url();
    if (/\/xss\/|evil\.example|^javascript:|^data:text\/html/i.test(url)) requests.push(url);
  });
  page.on('popup', (popup) => requests.push(`popup ${popup.url()}`));
  return {
    executions: () => page.evaluate(() => (window as unknown as { __xss: unknown[] }).__xss.length),
    dialogs,
    requests,
  };
}

/**
 * axe-core on a screen full of hostile content. The corpus is malformed on purpose, and what the
 * sanitiser keeps of it is content an author wrote: a list item without its list (listitem) and a
 * link whose image was removed (link-name). Those two rules judge that content; every other rule
 * judges the screen.
 */
async function expectScreenAccessible(page: Page, context: string, include?: string) {
  const builder = new AxeBuilder({ page }).disableRules(['listitem', 'link-name']);
  const results = await (include ? builder.include(include) : builder).analyze();
  const summary = results.violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.nodes
        .map((n) => n.target.join(' '))
        .slice(0, 3)
        .join(', ')}`,
  );
  expect(summary, `axe violations ${context}`).toEqual([]);
}

async function expectNothingRan(page: Page, detector: Detector, where: string) {
  // Give delayed handlers (load, error, animation, toggle) time to fire.
  await page.waitForTimeout(750);
  expect(await detector.executions(), `${where}: window.__xss`).toBe(0);
  expect(detector.dialogs, `${where}: dialogs`).toEqual([]);
  expect(detector.requests, `${where}: requests`).toEqual([]);
}

/**
 * The service's card on the dashboard, found by its name: the tests before this one leave many
 * services, and the dashboard renders the cards near the viewport only.
 */
async function findOnDashboard(page: Page, name: string) {
  await page.getByRole('textbox', { name: 'Search services' }).fill(name);
  await expect(page.getByText(name, { exact: true }).first()).toBeVisible({ timeout: 20_000 });
}

test('hostile rich text written through the API never runs in the catalog, its editor or the dashboard', async ({ page, request }) => {
  test.setTimeout(300_000);
  const { send } = await apiAs(request, ADMIN.email, ADMIN.password);
  const stamp = Date.now().toString(36);
  const name = `XSS ${stamp}`;
  const { service } = await send('POST', '/services', { name, slug: `xss-${stamp}`, description: XSS_CORPUS.join('\n') });
  const { category } = await send('POST', '/categories', { serviceId: service.id, name: 'Hostile <img src=x onerror=window.__xss.push(1)>' });
  const everything = await send('POST', '/aspects', {
    serviceId: service.id,
    categoryId: category.id,
    title: 'All payloads',
    description: XSS_CORPUS.join('\n'),
  });
  const seed = async (payload: string, i: number) => {
    const { aspect } = await send('POST', '/aspects', {
      serviceId: service.id,
      categoryId: category.id,
      title: `${i} ${payload}`.slice(0, 200),
      description: payload,
      isPublic: i % 3 !== 0,
    });
    await send('POST', '/availabilities', { aspectId: aspect.id, timeBucket: service.timeline[i % service.timeline.length], value: payload });
  };
  for (let i = 0; i < XSS_CORPUS.length; i += 8) {
    await Promise.all(XSS_CORPUS.slice(i, i + 8).map((payload, j) => seed(payload, i + j)));
  }

  const detector = await armDetector(page);
  await signIn(page, ADMIN.email, ADMIN.password);
  await findOnDashboard(page, name);
  await expectNothingRan(page, detector, 'dashboard');

  await page.goto(`/catalog/${service.id}`);
  await expect(page.getByRole('button', { name: 'All payloads', exact: true })).toBeVisible({ timeout: 20_000 });
  // Scroll through every row, hovering everything the payloads could hang a handler on, then tab.
  const visited = await visitEveryRow(page, 'Roadmap', async (row) => {
    await row.locator('.roadmap-description-cell').hover({ force: true });
    await row.locator('th').hover({ force: true });
  });
  expect(visited).toBe(XSS_CORPUS.length + 1);
  await page.getByRole('region', { name: 'Roadmap', exact: true }).evaluate((el) => (el.scrollTop = 0));
  for (let i = 0; i < 30; i++) await page.keyboard.press('Tab');
  await expectNothingRan(page, detector, 'catalog');
  await expectScreenAccessible(page, 'catalog with hostile content');

  // The rich-text editor loads the stored description of the aspect holding every payload.
  await page.getByRole('button', { name: 'All payloads', exact: true }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.locator('.ProseMirror, [contenteditable="true"]').first()).toBeVisible();
  await dialog.locator('.ProseMirror, [contenteditable="true"]').first().click();
  await page.keyboard.press('End');
  await expectNothingRan(page, detector, 'aspect editor');
  await expectScreenAccessible(page, 'aspect editor with hostile content', '[role="dialog"]');
  // Pasting the raw corpus as HTML into the editor, then saving and reloading, runs nothing either.
  await dialog
    .locator('.ProseMirror, [contenteditable="true"]')
    .first()
    .evaluate((el, html) => {
      const data = new DataTransfer();
      data.setData('text/html', html);
      data.setData('text/plain', html);
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    }, XSS_CORPUS.join('\n'));
  await expectNothingRan(page, detector, 'aspect editor after pasting the corpus');
  await dialog.getByRole('button', { name: 'Save Changes' }).click();
  await expect(dialog).toBeHidden();
  await page.reload();
  await expect(page.getByRole('button', { name: 'All payloads', exact: true })).toBeVisible({ timeout: 20_000 });
  await expectNothingRan(page, detector, 'catalog after saving pasted content');

  await page.goto('/');
  await expectNothingRan(page, detector, 'dashboard after the catalog');
  const executions = (await detector.executions()) + detector.dialogs.length + detector.requests.length;
  console.log(
    `[figure] stored-xss-browser: ${executions} executions of ${XSS_CORPUS.length} payloads (service description, category name, aspect titles and descriptions, availability texts) on the dashboard, the catalog and the aspect editor`,
  );
  expect(everything.aspect.description).not.toMatch(/<script/i);
});

test('a hostile .catalog file imported through the API never runs in the catalog', async ({ page, request }) => {
  test.setTimeout(180_000);
  const { session } = await apiAs(request, ADMIN.email, ADMIN.password);
  const stamp = Date.now().toString(36);
  const aspects = XSS_CORPUS.map((payload, i) => ({
    id: `a${i}`,
    category_id: `c${i % 3}`,
    title: `${i} ${payload}`.slice(0, 200),
    description: payload,
    is_public: true,
    position: i,
  }));
  const timeline = ['2030-Q1', '2030-Q2', '2030-Q3', '2030-Q4'];
  const doc = {
    format: 'service-catalog',
    version: 1,
    service: {
      name: `XSS import ${stamp}`,
      slug: `xss-import-${stamp}`,
      description: XSS_CORPUS.join('\n'),
      service_owner: XSS_CORPUS[0],
      subscription_model: XSS_CORPUS[1],
      icon_url: null,
      timeline,
    },
    categories: [0, 1, 2].map((i) => ({ id: `c${i}`, name: XSS_CORPUS[i + 20].slice(0, 200), position: i })),
    aspects,
    availabilities: aspects.map((a, i) => ({ aspect_id: a.id, time_bucket: timeline[i % timeline.length], value: XSS_CORPUS[i] })),
    roles: XSS_CORPUS.slice(0, 5).map((p, i) => ({ role_name: p.slice(0, 200), position: i })),
    templates: XSS_CORPUS.slice(5, 10).map((p, i) => ({ template_text: p.slice(0, 200), position: i })),
  };
  const res = await request.post('/api/services/import', {
    headers: { authorization: `Bearer ${session.token}` },
    multipart: { file: { name: 'hostile.catalog', mimeType: 'application/octet-stream', buffer: gzipSync(Buffer.from(JSON.stringify(doc))) } },
  });
  expect(res.status(), await res.text()).toBe(201);
  const { service } = await res.json();

  const detector = await armDetector(page);
  await signIn(page, ADMIN.email, ADMIN.password);
  await findOnDashboard(page, `XSS import ${stamp}`);
  await page.goto(`/catalog/${service.id}`);
  await expect(page.getByTestId('roadmap-table')).toHaveAttribute('aria-rowcount', String(1 + 3 + XSS_CORPUS.length), { timeout: 20_000 });
  const visited = await visitEveryRow(page, 'Roadmap', (row) => row.locator('.roadmap-description-cell').hover({ force: true }));
  expect(visited).toBe(XSS_CORPUS.length);
  await expectNothingRan(page, detector, 'catalog of an imported file');
});

test('the hostile corpus never runs on a public page, in an older edition or in the tenant index', async ({ browser, request, baseURL }) => {
  test.setTimeout(240_000);
  const { send } = await apiAs(request, ADMIN.email, ADMIN.password);
  const stamp = Date.now().toString(36);
  const slug = `xss-public-${stamp}`;
  const { service } = await send('POST', '/services', {
    name: `XSS public ${stamp}`,
    slug,
    description: XSS_CORPUS.join('\n'),
    serviceOwner: XSS_CORPUS[0],
    subscriptionModel: XSS_CORPUS[1],
  });
  const { category } = await send('POST', '/categories', { serviceId: service.id, name: XSS_CORPUS[2].slice(0, 200) });
  const ids: string[] = [];
  for (let i = 0; i < XSS_CORPUS.length; i += 8) {
    await Promise.all(
      XSS_CORPUS.slice(i, i + 8).map(async (payload, j) => {
        const { aspect } = await send('POST', '/aspects', {
          serviceId: service.id,
          categoryId: category.id,
          title: `${i + j} ${payload}`.slice(0, 200),
          description: payload,
          isPublic: true,
        });
        ids[i + j] = aspect.id;
        await send('POST', '/availabilities', { aspectId: aspect.id, timeBucket: service.timeline[0], value: payload });
      }),
    );
  }
  await send('POST', '/snapshots', { serviceId: service.id, label: XSS_CORPUS[3].slice(0, 200), visibility: 'public', note: XSS_CORPUS[4] });
  // The second edition changes every cell: the changes list shows old and new hostile texts.
  for (let i = 0; i < ids.length; i += 8) {
    await Promise.all(
      ids
        .slice(i, i + 8)
        .map((id, j) => send('POST', '/availabilities', { aspectId: id, timeBucket: service.timeline[0], value: XSS_CORPUS[(i + j + 1) % XSS_CORPUS.length] })),
    );
  }
  await send('POST', '/snapshots', { serviceId: service.id, label: XSS_CORPUS[5].slice(0, 200), visibility: 'public', note: XSS_CORPUS[6] });
  await send('PATCH', `/services/${service.id}/publish`);
  const tenantSlug = (await send('GET', '/auth/me')).tenant.slug as string;

  const context = await browser.newContext();
  const page = await context.newPage();
  const detector = await armDetector(page);
  const address = `${baseURL}/p/${tenantSlug}/${slug}`;
  await page.goto(address);
  await expect(page.getByRole('heading', { name: 'What changed since the previous edition' })).toBeVisible();
  // Every element gets the events a payload could hang a handler on; then the page is scrolled through.
  await page.evaluate(() => {
    for (const el of document.querySelectorAll('*')) {
      for (const type of ['mouseover', 'mouseenter', 'focus', 'animationstart']) el.dispatchEvent(new Event(type, { bubbles: true }));
    }
    window.scrollTo(0, document.body.scrollHeight);
  });
  for (let i = 0; i < 30; i++) await page.keyboard.press('Tab');
  await expectNothingRan(page, detector, 'public page');
  await expectScreenAccessible(page, 'public page with hostile content');
  const older = await page.locator('a[href*="/editions/"]').first().getAttribute('href');
  await page.goto(`${baseURL}${older}`);
  await expectNothingRan(page, detector, 'older public edition');
  await page.goto(`${baseURL}/p/${tenantSlug}`);
  await expectNothingRan(page, detector, 'public tenant index');
  const executions = (await detector.executions()) + detector.dialogs.length + detector.requests.length;
  console.log(
    `[figure] stored-xss-public-pages: ${executions} executions of ${XSS_CORPUS.length} payloads on a public page, an older edition and the tenant index`,
  );
  await context.close();
});

import type { APIRequestContext, Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { ADMIN, apiAs, expect, loginThroughPage, test, signIn } from './fixtures';
import { seedService, unique } from './catalogHelpers';
import { MAX_TOKEN_NAME_LENGTH } from '../common/schemas/integrations';

/**
 * Every screen and its main states, at the four sizes of issue 24, with a tenant, a user, a service,
 * a category and an aspect whose names are 120 characters long: each passes axe with 0 violations,
 * the page never scrolls sideways, and no control of the header is clipped. The data is made once;
 * each size has one browser context of its own.
 */
const SCREENS = [
  { width: 1440, height: 900 },
  { width: 1280, height: 720 },
  { width: 390, height: 844 },
  { width: 320, height: 640 },
];

const sized = (s: { width: number; height: number }) => `${s.width}x${s.height}`;

/** A name of exactly 120 characters, words and one long unbroken run included. */
const longName = (start: string) => `${start} ${'Supercalifragilisticexpialidocious'} ${'with a very long descriptive name indeed '.repeat(4)}`.slice(0, 120);

const PASSWORD = 'secret-pass';

interface World {
  tenantName: string;
  owner: { email: string; name: string };
  /** A reader of the long tenant, whom the super admin impersonates. */
  target: { id: string; email: string; name: string };
  tenantId: string;
  service: { id: string; name: string; slug: string };
  aspectTitle: string;
  categoryName: string;
  timeline: string[];
  snapshotLabel: string;
  /** The long service exported as a .catalog file, for the import's preview. */
  catalogFile: Buffer;
}

let world: World;

async function seed(request: APIRequestContext): Promise<World> {
  const admin = await apiAs(request, ADMIN.email, ADMIN.password);
  const u = unique();
  const tenantName = longName(`Tenant ${u}`);
  const { tenant } = await admin.send('POST', '/tenants', { name: tenantName, slug: `screens-${u}` });
  const owner = { email: `screens-owner-${u}@example.com`, name: longName(`Owner ${u}`) };
  await admin.send('POST', '/admin/users', { email: owner.email, name: owner.name, role: 'admin', tenant_id: tenant.id, password: PASSWORD });
  const targetName = longName(`Reader ${u}`);
  const targetEmail = `screens-reader-${u}@example.com`;
  const { user: target } = await admin.send('POST', '/admin/users', {
    email: targetEmail,
    name: targetName,
    role: 'reader',
    tenant_id: tenant.id,
    password: PASSWORD,
  });

  const api = await apiAs(request, owner.email, PASSWORD);
  const serviceName = longName(`Service ${u}`);
  const aspectTitle = longName(`Aspect ${u}`);
  const seeded = await seedService(api, serviceName, [
    { title: aspectTitle, description: `<p>${longName('Described')} ${longName('At length')}</p>` },
    { title: 'Single sign-on', description: '<p>One account for every tool.</p>' },
    { title: 'Reporting', isPublic: false },
  ]);
  const categoryName = longName(`Category ${u}`);
  await api.send('PUT', `/categories/${seeded.categoryId}`, { name: categoryName });
  const { service } = await api.send('PUT', `/services/${seeded.serviceId}`, {
    name: serviceName,
    description: `<p>${longName('Service described')} ${longName('And again')}</p>`,
    timeline: { first: '2030-Q1', last: '2031-Q4' },
  });
  const timeline = service.timeline as string[];
  for (const [i, q] of timeline.entries()) {
    await api.send('POST', '/availabilities', {
      aspectId: seeded.aspectIds[0],
      timeBucket: q,
      value: i % 2 ? longName(`Pilot in ${q}`) : 'Generally available',
    });
    if (i < 3) await api.send('POST', '/availabilities', { aspectId: seeded.aspectIds[1], timeBucket: q, value: 'Beta' });
  }
  await api.send('POST', '/actor-roles', { serviceId: service.id, roleName: longName('Role') });
  await api.send('POST', '/quick-templates', { serviceId: service.id, templateText: longName('Template') });
  // A token of the longest name allowed, limited to the long service: Tenant Settings and the panel's API Tokens list it.
  await api.send('POST', '/api-tokens', { name: longName(`Token ${u}`).slice(0, MAX_TOKEN_NAME_LENGTH), role: 'editor', serviceIds: [service.id] });
  const snapshotLabel = longName(`Snapshot ${u}`);
  await api.send('POST', '/snapshots', { serviceId: service.id, label: snapshotLabel, visibility: 'internal', note: longName('Note') });

  const exported = await request.get(`/api/services/${service.id}/export`, {
    headers: { authorization: `Bearer ${api.session.token}`, 'x-tenant-slug': tenant.slug },
  });
  expect(exported.status()).toBe(200);
  return {
    tenantName,
    owner,
    target: { id: target.id, email: targetEmail, name: targetName },
    tenantId: tenant.id,
    service: { id: service.id, name: serviceName, slug: service.slug },
    aspectTitle,
    categoryName,
    timeline,
    snapshotLabel,
    catalogFile: await exported.body(),
  };
}

test.beforeAll(async ({ playwright }, testInfo) => {
  test.setTimeout(120_000);
  const request = await playwright.request.newContext({ baseURL: testInfo.project.use.baseURL });
  try {
    world = await seed(request);
  } finally {
    await request.dispose();
  }
});

/**
 * The screen as it stands: axe finds nothing, the page does not scroll sideways, and every control
 * and name in the header lies inside the window, not cut off. The axe run is expectAccessible's, but
 * these checks are soft: one run of the sweep names every screen at fault, not only the first.
 */
async function expectScreen(page: Page, context: string) {
  const layout = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const header = document.querySelector('header.page-header');
    const parts = header ? [...header.querySelectorAll('a, button, select, h1, [data-testid="user-name"], [data-testid="tenant-name"]')] : [];
    // What runs past the window's right edge: the outermost such elements, to name in a failure.
    // (Content a scrolling box holds, such as a wide table in its own scroll container, does not count.)
    const held = (el: Element) => {
      for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) if (getComputedStyle(up).overflowX !== 'visible') return true;
      return false;
    };
    const past = [...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > width + 0.5 && !held(el));
    const outermost = past.filter((el) => !past.includes(el.parentElement!));
    return {
      overflow: document.documentElement.scrollWidth - innerWidth,
      past: outermost.slice(0, 5).map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} '${(el.textContent ?? '').trim().slice(0, 30)}'`),
      clipped: parts
        .map((el) => {
          const r = el.getBoundingClientRect();
          const inside = r.width > 0 && r.left >= -0.5 && r.right <= width + 0.5;
          // A closed select cuts a long name short by design (its title holds it); its box must still fit.
          const whole = el.tagName === 'SELECT' || el.scrollWidth <= el.clientWidth + 1;
          return inside && whole ? null : `'${(el.textContent ?? '').trim().slice(0, 40)}' (${Math.round(r.left)}..${Math.round(r.right)} of ${width})`;
        })
        .filter(Boolean),
    };
  });
  expect.soft(layout.overflow, `${context}: the page scrolls sideways, past its edge: ${layout.past.join(', ')}`).toBeLessThanOrEqual(0);
  expect.soft(layout.clipped, `${context}: header controls clipped`).toEqual([]);
  // As expectAccessible: the settled screen, not a modal halfway through its opening transition.
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));
  // Every rule runs; only the violations are gathered in full, as the sweep runs axe some thirty times a size.
  const results = await new AxeBuilder({ page }).options({ resultTypes: ['violations'] }).analyze();
  const summary = results.violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.nodes
        .map((n) => n.target.join(' '))
        .slice(0, 3)
        .join(', ')}`,
  );
  expect.soft(summary, `axe violations ${context}`).toEqual([]);
}

type Dialog = ReturnType<Page['getByRole']>;

/**
 * Opens a dialog by `open`, lets `ready` bring it to the state to check (loaded, a file chosen),
 * checks the screen, lets `then` check a later state, and closes the dialog with Escape.
 */
async function withDialog(
  page: Page,
  name: string | RegExp,
  context: string,
  open: () => Promise<void>,
  steps: { ready?: (d: Dialog) => Promise<void>; then?: (d: Dialog) => Promise<void> } = {},
) {
  await open();
  const dialog = page.getByRole('dialog', { name });
  await expect(dialog).toBeVisible();
  if (steps.ready) await steps.ready(dialog);
  await expectScreen(page, context);
  if (steps.then) await steps.then(dialog);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
}

for (const screen of SCREENS) {
  test.describe(`At ${sized(screen)}`, () => {
    test.use({ viewport: screen });
    test.describe.configure({ timeout: 180_000 });

    test('every screen and its main states pass axe, without sideways scrolling or a clipped header', async ({ page }) => {
      const at = (what: string) => `${what} at ${sized(screen)}`;
      const w = world;

      // The login page, its fields' errors and a refused sign-in.
      await page.goto('/login');
      await expect(page.getByRole('button', { name: 'Log In' })).toBeVisible();
      await expectScreen(page, at('login'));
      await page.getByRole('button', { name: 'Log In' }).click();
      await expect(page.getByRole('textbox', { name: 'Email' })).toHaveAttribute('aria-invalid', 'true');
      await expectScreen(page, at('login with field errors'));
      await page.getByRole('textbox', { name: 'Email' }).fill(w.owner.email);
      await page.getByRole('textbox', { name: 'Password', exact: true }).fill('not-the-password');
      await page.getByRole('button', { name: 'Log In' }).click();
      await expect(page.getByRole('alert').filter({ hasText: 'Sign-in failed' })).toBeVisible();
      await expectScreen(page, at('login, sign-in refused'));

      // The dashboard of the long tenant, as its admin.
      await loginThroughPage(page, w.owner.email, PASSWORD);
      await expect(page.getByRole('heading', { level: 1, name: w.tenantName })).toBeVisible();
      await expect(page.getByTestId('service-card').first()).toBeVisible();
      await expectScreen(page, at('dashboard cards'));
      await page.locator('label', { hasText: /^List$/ }).click();
      await expect(page.getByTestId('service-list').getByRole('link', { name: w.service.name })).toBeVisible();
      await expectScreen(page, at('dashboard list'));
      const search = page.getByPlaceholder('Search services...');
      await search.fill('no-such-service-anywhere');
      await expect(page.getByText('No matching services found.')).toBeVisible();
      await expectScreen(page, at('dashboard, nothing found'));
      await search.fill('');
      await withDialog(page, 'Create Service', at('create service modal'), () => page.getByRole('button', { name: '+ New Service' }).click(), {
        then: async (dialog) => {
          await dialog.getByRole('button', { name: 'Create Service' }).click();
          await expect(dialog.getByText('Service name is required')).toBeVisible();
          await expectScreen(page, at('create service modal with errors'));
        },
      });
      await withDialog(page, 'Import Service', at('import preview'), () => page.getByRole('button', { name: 'Import', exact: true }).click(), {
        ready: async (dialog) => {
          await dialog.locator('input[type="file"]').setInputFiles({ name: 'long.catalog', mimeType: 'application/octet-stream', buffer: w.catalogFile });
          // The tenant has the name already: the preview proposes a free one.
          await expect(dialog.getByRole('textbox', { name: 'Name' })).not.toHaveValue('');
          await expect(dialog.getByRole('textbox', { name: 'Name' })).not.toHaveValue(w.service.name);
        },
      });

      // The catalog: the roadmap and its editors.
      await page.goto(`/catalog/${w.service.id}`);
      await expect(page.getByRole('heading', { level: 1, name: w.service.name })).toBeVisible();
      await expect(page.getByTestId('aspect-row').first()).toBeVisible();
      await expectScreen(page, at('roadmap'));
      await withDialog(page, 'Edit Availability', at('edit availability modal'), () =>
        page.getByRole('button', { name: `Single sign-on, ${w.timeline[0]}: Beta` }).click(),
      );
      await withDialog(page, 'Edit Aspect', at('edit aspect modal'), () => page.getByRole('button', { name: w.aspectTitle, exact: true }).click());
      await withDialog(page, 'Create Category', at('add category modal'), () => page.getByRole('button', { name: '+ Category' }).click());

      // The current view, with its quarter picker.
      await page.locator('label', { hasText: /^Current$/ }).click();
      const picker = page.getByLabel('Quarter', { exact: true });
      await expect(picker).toBeVisible();
      await expect(page.getByTestId('current-row').first()).toBeVisible();
      await expectScreen(page, at('current view'));
      await picker.selectOption(w.timeline[1]!);
      await expect(page.getByTestId('current-table').locator('caption')).toHaveText(`Availability for ${w.timeline[1]}`);
      await expectScreen(page, at('current view, another quarter'));

      // Service settings: each tab, the snapshots and the service's actions.
      const tabs = [
        ['details', 'Service Details'],
        ['roles', 'Actor Roles'],
        ['templates', 'Quick Templates'],
        ['users', 'User Assignments'],
      ] as const;
      await page.goto(`/catalog/${w.service.id}/settings`);
      await expect(page.getByRole('heading', { level: 1, name: `${w.service.name} Settings` })).toBeVisible();
      for (const [value, label] of tabs) {
        await page.getByRole('tab', { name: label }).click();
        await expect(page).toHaveURL(new RegExp(`[?&]tab=${value}(&|$)`));
        await expect(page.getByRole('tabpanel')).toBeVisible();
        await expect(page.getByRole('table', { name: 'Snapshots' })).toBeVisible();
        await expectScreen(page, at(`service settings, ${label}`));
      }
      await withDialog(page, /^Snapshot: /, at('snapshot view'), () => page.getByRole('button', { name: `View snapshot ${w.snapshotLabel}` }).click(), {
        ready: (dialog) => expect(dialog.getByTestId('aspect-row').first()).toBeVisible(),
      });
      await withDialog(page, 'Create Snapshot', at('create snapshot modal'), () => page.getByRole('button', { name: 'Create Snapshot' }).click());
      await withDialog(page, 'Move to Another Tenant', at('move modal'), () => page.getByRole('button', { name: 'Move to Another Tenant' }).click());

      // Tenant settings: the users and the audit log.
      await page.goto('/tenant-settings');
      await expect(page.getByRole('heading', { level: 1, name: 'Tenant Settings' })).toBeVisible();
      await expect(page.getByRole('region', { name: 'Audit Log' }).getByRole('row').nth(1)).toBeVisible();
      await expect(page.getByRole('cell', { name: w.target.email, exact: true })).toBeVisible();
      await expectScreen(page, at('tenant settings'));

      // The super admin panel: tenants, users, audit log.
      await page.getByRole('button', { name: 'Log Out' }).click();
      await expect(page).toHaveURL(/\/login$/);
      await signIn(page, ADMIN.email, ADMIN.password, '/super-admin');
      await expect(page.getByRole('heading', { level: 1, name: 'Super Admin Panel' })).toBeVisible();
      await page.getByLabel('Search users').fill(w.target.email);
      const targetRow = page.getByRole('row', { name: new RegExp(w.target.email) });
      await expect(targetRow).toBeVisible();
      await expectScreen(page, at('super admin panel'));
      // Every tenant's API tokens: the long tenant's, found by its name.
      const tokens = page.getByRole('region', { name: 'API Tokens', exact: true });
      await tokens.getByLabel('Search API tokens').fill(w.tenantName.slice(0, 40));
      const tokenRow = tokens.getByRole('row', { name: new RegExp(w.service.name.slice(0, 40)) });
      await expect(tokenRow).toHaveCount(1);
      await expectScreen(page, at('super admin API tokens'));
      await withDialog(page, 'Revoke API token', at('revoke API token confirmation'), () => tokenRow.getByRole('button', { name: /^Revoke / }).click());
      // The audit log of the long tenant.
      const log = page.getByRole('region', { name: 'Audit Log' });
      const logOf = log.getByRole('combobox', { name: 'Audit log of' });
      await logOf.click();
      await logOf.fill(w.tenantName.slice(0, 20));
      // The one option the search leaves, picked by keyboard: a long option may open under the panel's buttons.
      await expect(page.getByRole('listbox', { name: 'Audit log of' }).getByRole('option', { name: w.tenantName })).toBeVisible();
      await expect(page.getByRole('listbox', { name: 'Audit log of' }).getByRole('option')).toHaveCount(1);
      await logOf.press('ArrowDown');
      await logOf.press('Enter');
      await expect(log.getByRole('row').nth(1)).toBeVisible();
      await logOf.press('Escape');
      await expectScreen(page, at('super admin audit log'));

      // The impersonation: its confirmation, then the banner on the user's screens.
      const impersonate = targetRow.getByRole('button', { name: 'Impersonate' });
      await impersonate.scrollIntoViewIfNeeded();
      await impersonate.click();
      const confirm = page.getByRole('dialog', { name: 'Impersonate User' });
      await expect(confirm).toBeVisible();
      await expectScreen(page, at('impersonation confirmation'));
      await confirm.getByRole('textbox', { name: 'Reason' }).fill(longName('Checking the screens'));
      await confirm.getByRole('button', { name: 'Start' }).click();
      await expect(page).toHaveURL(/\/$/);
      const banner = page.getByRole('region', { name: 'Impersonation' });
      await expect(banner).toContainText(`You are impersonating ${w.target.name}`);
      await expect(page.getByTestId('service-card').first()).toBeVisible();
      await expectScreen(page, at('dashboard while impersonating'));
      await page.goto(`/catalog/${w.service.id}`);
      await expect(page.getByTestId('aspect-row').first()).toBeVisible();
      await expect(banner).toBeVisible();
      await expectScreen(page, at('catalog while impersonating'));
      await banner.getByRole('button', { name: 'Stop Impersonation' }).click();
      await expect(page).toHaveURL(/\/super-admin$/);
      await expect(banner).toHaveCount(0);

      // The note on the panel while another session of the same super admin impersonates.
      const admin = await apiAs(page.request, ADMIN.email, ADMIN.password);
      const started = await admin.send('POST', '/impersonation/start', { userId: w.target.id, tenantId: w.tenantId, reason: longName('Elsewhere') });
      try {
        await page.reload();
        const note = page.getByRole('alert').filter({ hasText: 'Currently impersonating' });
        await expect(note).toContainText(w.target.name);
        await expectScreen(page, at('super admin panel, currently impersonating'));
      } finally {
        const stop = await page.request.post('/api/impersonation/stop', { headers: { authorization: `Bearer ${started.token}` } });
        expect(stop.status()).toBeLessThan(300);
      }
    });
  });
}

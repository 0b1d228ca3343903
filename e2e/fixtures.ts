import { test as base, expect, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';

export const ADMIN = { email: process.env.E2E_ADMIN_EMAIL ?? 'admin@example.com', password: process.env.E2E_ADMIN_PASSWORD ?? 'admin-password-e2e' };
export const FIRST_TENANT = { name: 'My Organisation', slug: 'my-organisation' };

/** Signs in through the real login page. */
export async function loginThroughPage(page: Page, email: string, password: string) {
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log In' }).click();
}

/** The signed-in browser storage of each person this worker signed in as (token, user, tenant in use). */
const storedSessions = new Map<string, [string, string][]>();

/**
 * Opens `path` signed in as a person. The first time in a worker it signs in through the real login
 * page and keeps what the browser stored; afterwards it opens `path` with that stored session, one
 * page load instead of three. A stored session that has ended since (signed out, revoked) is
 * answered 401 by the server, and the person signs in through the page again.
 */
export async function signIn(page: Page, email: string, password: string, path = '/') {
  const key = `${email}\n${password}`;
  const stored = storedSessions.get(key);
  if (stored) {
    await page.addInitScript(
      ({ entries, flag }) => {
        try {
          if (sessionStorage.getItem(flag)) return;
          sessionStorage.setItem(flag, '1');
          for (const [k, v] of entries) localStorage.setItem(k, v);
        } catch {
          /* a document without storage (about:blank) */
        }
      },
      { entries: stored, flag: `e2e-stored-session:${email}` },
    );
    const me = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/auth/me');
    await page.goto(path);
    if ((await me).ok()) return;
    storedSessions.delete(key);
    await page.waitForURL(/\/login/);
  }
  await loginThroughPage(page, email, password);
  await expect(page).toHaveURL(/\/$/);
  storedSessions.set(key, await page.evaluate(() => Object.entries(localStorage)));
  if (path !== '/') await page.goto(path);
}

/**
 * A violation in markup the product does not make (a third-party page it serves) and cannot
 * change: the rule and a piece of the offending elements' HTML, with the reason it stays.
 */
export interface KnownViolation {
  id: string;
  html: string;
  why: string;
}

/** Fails the test on any axe-core violation of the current screen, but for known ones in third-party markup. */
export async function expectAccessible(page: Page, context = '', known: readonly KnownViolation[] = []) {
  // Check the settled screen, not a modal halfway through its opening transition.
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));
  const results = await new AxeBuilder({ page }).analyze();
  const violations = results.violations
    .map((v) => ({ ...v, nodes: v.nodes.filter((n) => !known.some((k) => k.id === v.id && n.html.includes(k.html))) }))
    .filter((v) => v.nodes.length > 0);
  const summary = violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.nodes
        .map((n) => n.target.join(' '))
        .slice(0, 3)
        .join(', ')}`,
  );
  expect(summary, `axe violations ${context}`).toEqual([]);
}

/** A signed-in API client for seeding data through the product's own API. */
export async function apiAs(request: APIRequestContext, email: string, password: string, tenantSlug?: string) {
  const res = await request.post('/api/auth/login', { data: { email, password } });
  expect(res.status(), await res.text()).toBe(200);
  const session = await res.json();
  const headers = (slug = tenantSlug ?? session.tenant?.slug) => ({
    authorization: `Bearer ${session.token}`,
    ...(slug ? { 'x-tenant-slug': slug } : {}),
  });
  const send = async (method: string, url: string, data?: unknown, slug?: string) => {
    const r = await request.fetch(`/api${url}`, { method, headers: headers(slug), data });
    const body = r.status() === 204 ? null : await r.json().catch(() => null);
    if (r.status() >= 400) throw new Error(`${method} ${url} -> ${r.status()}: ${JSON.stringify(body)}`);
    return body;
  };
  return { session, send };
}

/**
 * Creates `count` users of a tenant through the super admin's API, a few at a time, named
 * `${name} 000`, `${name} 001`... with addresses `${slugOf(name)}-000-${tag}@example.com`. Without a
 * password they sign in through the identity provider, which spares the password hashing.
 */
export async function seedUsers(send: Awaited<ReturnType<typeof apiAs>>['send'], tenantId: string, count: number, name: string, tag: string) {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const emails: string[] = [];
  for (let from = 0; from < count; from += 10) {
    const batch = Array.from({ length: Math.min(10, count - from) }, (_, i) => String(from + i).padStart(3, '0'));
    await Promise.all(
      batch.map((n) => {
        const email = `${slug}-${n}-${tag}@example.com`;
        emails.push(email);
        return send('POST', '/admin/users', { email, name: `${name} ${n}`, role: 'reader', tenant_id: tenantId });
      }),
    );
  }
  return emails.sort();
}

/**
 * Scrolls a windowed, paged panel to its end until `row` is in the page (each end asks for the
 * next page), then checks that it is in view.
 */
export async function scrollPanelUntil(page: Page, panel: Locator, row: Locator) {
  // The page scrolls to the panel's end, and the panel to its last row.
  const toEnd = () =>
    panel.evaluate((el) => {
      el.scrollIntoView({ block: 'end' });
      el.scrollTo({ top: el.scrollHeight });
    });
  for (let i = 0; i < 40 && (await row.count()) === 0; i++) {
    await toEnd();
    // The next page's rows come in; the row may be among them (at most a short wait per scroll).
    await row.waitFor({ state: 'attached', timeout: 150 }).catch(() => {});
  }
  // The page that brought the row in made the panel taller: its end is further down now.
  await expect(async () => {
    await toEnd();
    await expect(row).toBeInViewport({ timeout: 1_000 });
  }).toPass({ timeout: 10_000 });
}

/**
 * Every test's page fails the test on an uncaught error in the page (a render loop, a crash
 * showing the error screen), even where the test's own checks still pass.
 */
export const test = base.extend<{ page: Page }>({
  page: async ({ page }, use) => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message.slice(0, 300)));
    await use(page);
    expect(errors, 'uncaught errors in the page').toEqual([]);
  },
});
export { expect };

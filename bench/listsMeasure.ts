/**
 * How the lists bench (bench/lists.ts) takes its figures: API calls timed by a client over loopback,
 * and pages opened and searched in Chromium (bench/listsPage.ts instruments the page).
 */
import { gunzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { SEARCH_DEBOUNCE_MS } from '../common/limits';
import { Client, median } from './http';
import { ADMIN, rawGet, type RunningServer } from './server';
import { listInstrument, type KeyTimes, type ListPageConfig } from './listsPage';

export const VIEWPORT = { width: 1280, height: 860 };
const KB = 1024;
/** Quiet time after which a list counts as settled. */
export const QUIET_MS = 200;
/** The keys typed into each search box, each timed. */
export const KEYS = ['1', '2', '3', 'Backspace', 'Backspace', 'Backspace'];

// ---------------------------------------------------------------------------------------------
// API figures

export interface ApiFigure {
  ms: number;
  kb: number;
  gzipKb: number;
  status: number;
}

interface ApiCall {
  client: Client;
  path: string;
  slug: string | undefined;
}

/**
 * For each call: the median time of `calls` GETs (after two not counted), the answer's JSON size,
 * and its gzip size on the wire. The calls take turns, so that a shared machine's slower moments
 * fall on each of them alike rather than on whichever ran then.
 */
export async function apiFigureEach(targets: ApiCall[], calls: number): Promise<ApiFigure[]> {
  const headersOf = (t: ApiCall): Record<string, string> => (t.slug ? { 'x-tenant-slug': t.slug } : {});
  const firsts: { status: number; body: Buffer }[] = [];
  for (const t of targets) {
    const first = await t.client.fetch(t.path, { headers: headersOf(t) });
    firsts.push({ status: first.status, body: Buffer.from(await first.arrayBuffer()) });
    await (await t.client.fetch(t.path, { headers: headersOf(t) })).arrayBuffer();
  }
  const times: number[][] = targets.map(() => []);
  for (let i = 0; i < calls; i++) {
    for (const [n, t] of targets.entries()) {
      if (firsts[n]!.status !== 200) continue;
      const started = performance.now();
      const res = await t.client.fetch(t.path, { headers: headersOf(t) });
      await res.arrayBuffer();
      times[n]!.push(performance.now() - started);
      if (res.status !== 200) throw new Error(`GET ${t.path} answered ${res.status}`);
    }
  }
  return Promise.all(
    targets.map(async (t, n) => {
      const { status, body } = firsts[n]!;
      if (status !== 200) return { ms: NaN, kb: NaN, gzipKb: NaN, status };
      const raw = await rawGet(t.client.base + t.path, { ...headersOf(t), authorization: `Bearer ${t.client.token}`, 'accept-encoding': 'gzip' });
      const gzip = raw.headers['content-encoding'] === 'gzip';
      const json = gzip ? gunzipSync(raw.body) : raw.body;
      return { ms: median(times[n]!), kb: Math.max(body.length, json.length) / KB, gzipKb: raw.body.length / KB, status: 200 };
    }),
  );
}

/** One call's figure (see apiFigureEach). */
export async function apiFigure(client: Client, path: string, slug: string | undefined, calls: number): Promise<ApiFigure> {
  return (await apiFigureEach([{ client, path, slug }], calls))[0]!;
}

// ---------------------------------------------------------------------------------------------
// Browser figures

export async function signedIn(browser: Browser, base: string, email: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  await page.goto(`${base}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(ADMIN.password);
  await page.getByRole('button', { name: 'Log In' }).click();
  await page.waitForURL(`${base}/`);
  await page.close();
  return context;
}

interface PageRun {
  shown: number;
  apiCalls: string[];
  /** Per search box: the times of each key of KEYS, or null when the box is not in the page. */
  searches: (KeyTimes[] | null)[];
}

/** A search box, by its accessible name. */
export interface SearchBox {
  name: string | RegExp;
}

/**
 * Opens `path` in a new page of the context, waits for every text of `firstTexts` to be shown,
 * then types KEYS into each search box in turn (each box emptied and settled first).
 */
async function openAndType(context: BrowserContext, base: string, path: string, firstTexts: string[], boxes: SearchBox[]): Promise<PageRun> {
  const page = await context.newPage();
  try {
    await page.addInitScript({ content: 'globalThis.__name = (f) => f;' });
    const config: ListPageConfig = { debounceMs: SEARCH_DEBOUNCE_MS, firstTexts, quietMs: QUIET_MS };
    await page.addInitScript(listInstrument, config);
    await page.goto(base + path);
    const shown = await within(
      page.evaluate(() => (window as any).__lists.shown as Promise<{ painted: number }>),
      120_000,
      `${path}: ${firstTexts.join(', ')} shown`,
    );
    await within(
      page.evaluate(() => (window as any).__lists.idle(performance.now())),
      60_000,
      `${path} settled`,
    );
    const searches: PageRun['searches'] = [];
    for (const box of boxes) searches.push(await typeInto(page, box));
    const apiCalls = await page.evaluate(() => (window as any).__lists.apiCalls as string[]);
    return { shown: shown.painted, apiCalls, searches };
  } finally {
    await page.close();
  }
}

/** The promise, or an error once `ms` have passed. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not done within ${ms / 1000} s`)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

async function typeInto(page: Page, box: SearchBox): Promise<KeyTimes[] | null> {
  const input = page.getByRole('textbox', { name: box.name });
  if ((await input.count()) !== 1) return null;
  await input.click();
  if ((await input.inputValue()) !== '') {
    await input.fill('');
    await within(
      page.evaluate(() => (window as any).__lists.idle(performance.now())),
      60_000,
      'search emptied',
    );
  }
  const times: KeyTimes[] = [];
  for (const key of KEYS) {
    // Armed first, so that the key cannot reach the page before the listener.
    await page.evaluate(() => void ((window as any).__lists.armed = (window as any).__lists.keystroke()));
    await page.keyboard.press(key);
    const t = await within(
      page.evaluate(() => (window as any).__lists.armed as Promise<KeyTimes>),
      60_000,
      `typing ${key} into ${String(box.name)}`,
    );
    if (t.timedOut) throw new Error(`typing ${key} into ${String(box.name)}: the page did not settle within 20 s`);
    times.push(t);
  }
  return times;
}

export interface Side3 {
  shown: number[];
  searches: (KeyTimes[] | null)[][];
  apiCalls: string[];
}

/** `runs` measured openings (after one not counted) of a page in a context. */
export async function pageRuns(
  context: BrowserContext,
  base: string,
  path: string,
  firstTexts: string[],
  boxes: SearchBox[],
  runs: number,
  log: (l: string) => void,
  label: string,
): Promise<Side3> {
  const warm = await openAndType(context, base, path, firstTexts, boxes);
  const out: Side3 = { shown: [], searches: [], apiCalls: warm.apiCalls };
  for (let r = 0; r < runs; r++) {
    const run = await openAndType(context, base, path, firstTexts, boxes);
    out.shown.push(run.shown);
    out.searches.push(run.searches);
    log(
      `${label} run ${r + 1}: shown ${run.shown.toFixed(0)} ms; ` +
        run.searches
          .map((s, i) => (s ? `box ${i + 1} keys ${s.map((k) => `${k.settled.toFixed(0)}/${k.input.toFixed(0)}`).join(' ')}` : `box ${i + 1} missing`))
          .join('; '),
    );
  }
  return out;
}

/** Median over runs for each key, then the median and the largest of those (a run's missing box: null). */
export function keyStats(side: Side3, box: number): { median: number; slowest: number; slowestInput: number } | null {
  const runs = side.searches.map((s) => s[box]).filter((s): s is KeyTimes[] => s !== null && s !== undefined);
  if (!runs.length) return null;
  const perKey = KEYS.map((_, k) => median(runs.map((r) => r[k]!.settled)));
  const perKeyInput = KEYS.map((_, k) => median(runs.map((r) => r[k]!.input)));
  return { median: median(perKey), slowest: Math.max(...perKey), slowestInput: Math.max(...perKeyInput) };
}

export const firstOf = async (client: Client, path: string, slug: string | undefined, pick: (body: any) => string | undefined): Promise<string> => {
  const res = await client.fetch(path, { headers: slug ? { 'x-tenant-slug': slug } : {} });
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
  const text = pick(await res.json());
  if (!text) throw new Error(`GET ${path}: no first row`);
  return text;
};

/** The panel's first rows (a tenant and a user), and the panel measured. */
export async function measurePanel(
  browser: Browser,
  server: RunningServer,
  admin: Client,
  runs: number,
  log: (l: string) => void,
  label: string,
): Promise<Side3> {
  // The first tenant in the panel's order (name, then id); a server without tenant paging answers them all.
  const tenant = await firstOf(admin, '/api/admin/panel-data?tenantsLimit=1&limit=1', undefined, (b) => b.tenants?.[0]?.name).catch(() =>
    firstOf(admin, '/api/admin/panel-data?limit=1', undefined, (b) => b.tenants?.[0]?.name),
  );
  const user = await firstOf(admin, '/api/admin/users?search=&limit=1', undefined, (b) => b.users?.[0]?.name);
  const context = await signedIn(browser, server.url, ADMIN.email);
  try {
    return await pageRuns(context, server.url, '/super-admin', [tenant, user], [{ name: 'Search users' }, { name: /^Search tenants/ }], runs, log, label);
  } finally {
    await context.close();
  }
}

/** The panel's API calls as the page made them (its panel-data call), else the documented ones. */
export function panelCall(calls: string[]): string {
  return calls.find((c) => c.startsWith('/api/admin/panel-data')) ?? '/api/admin/panel-data?includeArchived=false&limit=1';
}

/** The first page of the panel's tenant table as the page asked for it (unsearched, from the start), when it pages them. */
export function panelTenantsCall(calls: string[]): string | undefined {
  const lists = calls.filter((c) => /^\/api\/admin\/tenants\?/.test(c) && /[?&]search=(&|$)/.test(c) && !/[?&]after=/.test(c));
  return lists.find((c) => /[?&]includeArchived=false/.test(c)) ?? lists[0];
}

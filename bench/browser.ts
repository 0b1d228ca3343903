/**
 * Browser figures of the large roadmap (600 aspects, 12 quarters), in headless Chromium against the
 * real server serving the built web app. Every time is taken inside the page (performance.now,
 * requestAnimationFrame, Resource Timing), so the test driver's own delays are not part of it:
 *
 * - load: from the last byte of the /full response (its Resource Timing responseEnd) to the table
 *   painted and a click on the first aspect's title painted with its Edit Aspect dialog;
 * - search: from the search's debounce timer firing to the filtered table painted, for several
 *   terms (each checked against the rows the page must show);
 * - scroll: the frames of a scroll of the table's panel from its top to its end, one step per frame;
 * - view switch: from a real click on Current (and back on Roadmap) to the other table painted.
 *
 * "Painted" is the end of the first frame that shows the change: a requestAnimationFrame callback,
 * then a task queued from it, which runs once that frame's style, layout and paint are done.
 *
 *   node --import tsx bench/browser.ts   (BENCH_SCALE, BENCH_RUNS, BENCH_PORT as npm run bench)
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { build } from 'vite';
import { SEARCH_DEBOUNCE_MS } from '../common/limits';
import { filterCatalog, groupCatalog } from '../web/pages/Catalog/catalogGroups';
import type { Aspect, Category } from '../web/api/catalog';
import { SCALES, buildTenant, type BenchScale } from './data';
import { Client, median, percentile } from './http';
import type { Figure } from './measure';
import { ADMIN, startServer } from './server';
import { instrument, scroll, type LoadTimes, type PageConfig, type ScrollFrames, type Settled } from './browserPage';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const VIEWPORT = { width: 1280, height: 860 };
/** Pixels scrolled per frame: a fast flick (about 6,000 pixels a second). */
const SCROLL_STEP_PX = 100;
/** The issue's budget for the JavaScript of the login page (also enforced by bench/bundle.slow.test.ts). */
const LOGIN_JS_BUDGET_KB = 250;

export interface BrowserOptions {
  scale: BenchScale;
  /** Measured runs (a fresh browser context each); at least 5. */
  runs: number;
  port: number;
  log: (line: string) => void;
}

/** Builds the web app for production into `outDir` (as npm start serves it), this checkout's or the one at `root`. */
export async function buildWebApp(outDir: string, root = ROOT): Promise<void> {
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile: join(root, 'vite.config.ts'), mode: 'production', logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
}

export function chromiumPath(): string | undefined {
  for (const p of [process.env.CHROME_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']) if (p && existsSync(p)) return p;
  return undefined;
}

/** The search terms and the titles each must leave in the table, in order (the page's own rules). */
function searchCases(categories: Category[], aspects: Aspect[], timeline: string[]): { term: string; titles: string[] }[] {
  const catalog = groupCatalog(categories, aspects, timeline);
  // The roadmap, where the search runs, shows every quarter of the timeline.
  const titles = (term: string) => filterCatalog(catalog, term, timeline).flatMap((g) => g.aspects.map((a) => a.title));
  // A narrow title match, a wide description match, a category match, no match, then cleared.
  const terms = ['aspect 42:', 'aspect 1', 'category 7', 'no aspect is called this', ''];
  const cases = terms.map((term) => ({ term, titles: titles(term) }));
  for (let i = 1; i < cases.length; i++) {
    if (cases[i]!.titles.length === cases[i - 1]!.titles.length)
      throw new Error(`search terms "${cases[i - 1]!.term}" and "${cases[i]!.term}" leave as many rows`);
  }
  return cases;
}

export async function signIn(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/login`);
  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(ADMIN.password);
  await page.getByRole('button', { name: 'Log In' }).click();
  await page.waitForURL(`${base}/`);
}

/** Fails when the viewport shows an empty gap where rows should be. */
async function expectAllInView(page: Page, when: string): Promise<void> {
  const gaps = await page.evaluate(() => (window as any).__bench.gapsInView());
  if (gaps) throw new Error(`${gaps} gaps were in view ${when}`);
}

const settle = (page: Page) => page.evaluate(() => (window as any).__bench.painted());

/** Types a search term (or clears the box) and answers the debounce-to-painted times. */
async function search(page: Page, term: string, expected: number): Promise<Settled> {
  const box = page.getByPlaceholder('Search aspects...');
  await page.evaluate(() => ((window as any).__bench.debounceFiredAt = undefined));
  const watch = page.evaluate((rows) => {
    const b = (window as any).__bench;
    return (async () => {
      const committed: number = await b.when(() => b.debounceFiredAt !== undefined && b.rowCount() === rows);
      return { start: b.debounceFiredAt as number, committed, painted: await b.painted() };
    })();
  }, expected);
  watch.catch(() => undefined); // a failure below is the one to report
  if (term) {
    await box.fill('');
    await box.pressSequentially(term, { delay: 20 });
  } else {
    await box.fill('');
  }
  return watch;
}

/** Clicks a view's label like a person (a real pointer event) and answers click-to-painted times. */
async function switchView(page: Page, label: 'Current' | 'Roadmap', testId: string): Promise<Settled> {
  const watch = page.evaluate((id) => {
    const b = (window as any).__bench;
    return (async () => {
      const clicked = new Promise<number>((resolve) => document.addEventListener('click', (e) => resolve(e.timeStamp), { capture: true, once: true }));
      const committed: number = await b.when(() => document.querySelector(`[data-testid="${id}"]`) !== null);
      return { start: await clicked, committed, painted: await b.painted() };
    })();
  }, testId);
  watch.catch(() => undefined); // a failure below is the one to report
  await page.locator('label', { hasText: new RegExp(`^${label}$`) }).click();
  return watch;
}

interface Run {
  load: LoadTimes;
  search: { term: string; rows: number; times: Settled }[];
  scroll: ScrollFrames;
  /** The same scroll over a static page of as many rows, without the app: what the machine allows. */
  staticScroll: ScrollFrames;
  toCurrent: Settled;
  toRoadmap: Settled;
}

/** A page without scripts or styles beyond a table of `rows` rows as tall as the roadmap's. */
function staticPage(rows: number, columns: number, height: number): string {
  const cells = Array.from({ length: columns }, (_, i) => `<td>cell ${i}</td>`).join('');
  const body = Array.from({ length: rows }, (_, i) => `<tr style="height:${height}px"><th>Row ${i}</th>${cells}</tr>`).join('');
  const panel = 'overflow:auto;max-height:calc(100dvh - 8rem)';
  return `<!doctype html><html><head><title>Static</title></head><body><div class="roadmap-scroll" style="${panel}"><table style="width:100%;table-layout:fixed">${body}</table></div></body></html>`;
}

async function newBenchPage(context: BrowserContext, config: PageConfig): Promise<Page> {
  const page = await context.newPage();
  // The functions sent to the page are compiled by tsx, which names them through a __name helper.
  await page.addInitScript({ content: 'globalThis.__name = (f) => f;' });
  await page.addInitScript(instrument, config);
  return page;
}

async function oneRun(
  browser: Browser,
  base: string,
  serviceId: string,
  cases: { term: string; titles: string[] }[],
  rows: number,
  check: boolean,
): Promise<Run> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  try {
    const config: PageConfig = { debounceMs: SEARCH_DEBOUNCE_MS, loadRows: rows };
    const page = await newBenchPage(context, config);
    await signIn(page, base);
    await page.goto(`${base}/catalog/${serviceId}`);
    const load = (await page.evaluate(() => (window as any).__bench.load)) as LoadTimes;
    if (check) await expectAllInView(page, 'after loading');
    await page.getByRole('dialog', { name: 'Edit Aspect' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await settle(page);

    const results: Run['search'] = [];
    for (const c of cases) {
      const times = await search(page, c.term, c.titles.length);
      if (check) {
        // The rows in the page are the first of those expected, in order, and the table counts them all.
        const shown = await page.getByTestId('aspect-row').locator('.roadmap-title-button, .roadmap-title').allTextContents();
        const count = await page.evaluate(() => (window as any).__bench.rowCount());
        if (count !== c.titles.length || JSON.stringify(shown) !== JSON.stringify(c.titles.slice(0, shown.length)) || (c.titles.length && !shown.length)) {
          throw new Error(`search "${c.term}" showed ${count} rows (${shown.length} in the page), not the ${c.titles.length} expected`);
        }
        await expectAllInView(page, `after the search "${c.term}"`);
      }
      results.push({ term: c.term, rows: c.titles.length, times });
      await settle(page);
    }
    if ((await page.evaluate(() => (window as any).__bench.rowCount())) !== rows) throw new Error('the cleared search did not show every row');

    const frames = await scroll(page, SCROLL_STEP_PX);
    const height = await page.evaluate(() => document.querySelector('.roadmap-scroll')!.scrollHeight);
    await page.evaluate(() => (document.querySelector('.roadmap-scroll')!.scrollTop = 0));
    await settle(page);
    const toCurrent = await switchView(page, 'Current', 'current-table');
    await settle(page);
    const toRoadmap = await switchView(page, 'Roadmap', 'roadmap-table');
    await settle(page);

    const bare = await newBenchPage(context, config);
    await bare.route('**/static-rows', (route) => route.fulfill({ contentType: 'text/html', body: staticPage(rows, 13, Math.round(height / rows)) }));
    await bare.goto(`${base}/static-rows`);
    const staticScroll = await scroll(bare, SCROLL_STEP_PX);
    return { load, search: results, scroll: frames, staticScroll, toCurrent, toRoadmap };
  } finally {
    await context.close();
  }
}

/** Builds the web app and the bench tenant, then measures `runs` fresh page loads in Chromium. */
export async function measureBrowser(o: BrowserOptions): Promise<{ figures: Figure[]; notes: string[] }> {
  const work = mkdtempSync(join(tmpdir(), 'catalog-browser-'));
  const webRoot = join(work, 'web');
  o.log('building the web app');
  await buildWebApp(webRoot);
  const server = await startServer({ port: o.port, dataDir: join(work, 'data'), webRoot });
  try {
    const client = new Client(server.url);
    await client.signIn(ADMIN.email, ADMIN.password);
    o.log('building the bench tenant through the API');
    const tenant = await buildTenant(client, o.scale);
    return await measureRuns(client, tenant.largeId, o.runs, o.log);
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** The JavaScript files the login page loads (as the browser requests them) and their size gzipped. */
async function loginJavaScript(browser: Browser, client: Client): Promise<{ files: number; gzipKb: number }> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  try {
    const page = await context.newPage();
    await page.goto(`${client.base}/login`);
    await page.getByRole('button', { name: 'Log In' }).waitFor();
    await page.waitForLoadState('networkidle');
    const urls = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((e) => e.name)
        .filter((u) => new URL(u).pathname.endsWith('.js')),
    );
    let bytes = 0;
    for (const url of new Set(urls)) {
      const res = await fetch(url);
      if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
      bytes += gzipSync(Buffer.from(await res.arrayBuffer())).length;
    }
    return { files: new Set(urls).size, gzipKb: bytes / 1024 };
  } finally {
    await context.close();
  }
}

/** Measures `runs` fresh page loads of a service's catalog in Chromium, on a server already running. */
export async function measureRuns(
  client: Client,
  serviceId: string,
  runCount: number,
  log: (line: string) => void,
): Promise<{ figures: Figure[]; notes: string[] }> {
  const full = (await client.json('GET', `/api/services/${serviceId}/full`)).body;
  const aspects: Aspect[] = full.resolved_data.aspects;
  const cases = searchCases(full.categories, aspects, full.resolved_data.timeline);
  const browser = await chromium.launch({ headless: true, executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  try {
    const runs: Run[] = [];
    // One run first to warm the server's caches and the browser; it is not counted, but its
    // search results are checked row by row.
    await oneRun(browser, client.base, serviceId, cases, aspects.length, true);
    for (let r = 0; r < runCount; r++) {
      const run = await oneRun(browser, client.base, serviceId, cases, aspects.length, false);
      runs.push(run);
      const l = run.load;
      log(
        `run ${r + 1}: load ${(l.dialogPainted - l.responseEnd).toFixed(0)} ms (render ${(l.rendered - l.responseEnd).toFixed(0)}, paint ${(l.painted - l.rendered).toFixed(0)}, click ${(l.dialogPainted - l.clicked).toFixed(0)}); ` +
          `search (rows: changed/painted) ${run.search.map((s) => `${s.rows}:${(s.times.committed - s.times.start).toFixed(0)}/${(s.times.painted - s.times.start).toFixed(0)}`).join(' ')} ms; ` +
          `scroll p95 ${percentile(run.scroll.frames, 95).toFixed(0)} max ${Math.max(...run.scroll.frames).toFixed(0)} long ${run.scroll.frames.filter((f) => f > 50).length}; ` +
          `views ${(run.toCurrent.painted - run.toCurrent.start).toFixed(0)}/${(run.toRoadmap.painted - run.toRoadmap.start).toFixed(0)} ms`,
      );
    }
    const login = await loginJavaScript(browser, client);
    return { figures: browserFigures(runs, login), notes: browserNotes(runs, cases, full, browser.version(), login) };
  } finally {
    await browser.close();
  }
}

const med = (runs: Run[], f: (r: Run) => number) => median(runs.map(f));

function browserFigures(runs: Run[], login: { gzipKb: number }): Figure[] {
  const terms = runs[0]!.search.map((s) => s.term);
  const perTerm = terms.map((_, i) => med(runs, (r) => r.search[i]!.times.painted - r.search[i]!.times.start));
  return [
    {
      name: 'Large roadmap: /full received to table painted and a click answered (ms)',
      value: med(runs, (r) => r.load.dialogPainted - r.load.responseEnd),
      unit: 'ms',
      target: { value: 500, atMost: true },
    },
    {
      name: 'Search: debounce fired to filtered table painted, slowest term (ms)',
      value: Math.max(...perTerm),
      unit: 'ms',
      target: { value: 50, atMost: true },
    },
    {
      name: 'Search: debounce fired to filtered table painted, median over terms (ms)',
      value: median(perTerm),
      unit: 'ms',
      target: { value: 50, atMost: true },
    },
    {
      name: 'Scroll through 600 rows: frames over 50 ms',
      value: med(runs, (r) => r.scroll.frames.filter((f) => f > 50).length),
      unit: 'frames',
      target: { value: 0, atMost: true },
    },
    {
      name: 'Scroll through 600 rows: frames showing an empty gap in view',
      value: med(runs, (r) => r.scroll.gapFrames),
      unit: 'frames',
      target: { value: 0, atMost: true },
    },
    { name: 'Scroll through 600 rows: p95 frame (ms)', value: med(runs, (r) => percentile(r.scroll.frames, 95)), unit: 'ms' },
    { name: 'Scroll through 600 rows: longest frame (ms)', value: med(runs, (r) => Math.max(...r.scroll.frames)), unit: 'ms' },
    {
      name: 'Scroll through 600 rows: frames over 50 ms on a static page of as many rows (the machine)',
      value: med(runs, (r) => r.staticScroll.frames.filter((f) => f > 50).length),
      unit: 'frames',
    },
    { name: 'Scroll through 600 rows: p95 frame on the static page (ms)', value: med(runs, (r) => percentile(r.staticScroll.frames, 95)), unit: 'ms' },
    { name: 'View switch to Current: click to table painted (ms)', value: med(runs, (r) => r.toCurrent.painted - r.toCurrent.start), unit: 'ms' },
    { name: 'View switch back to Roadmap: click to table painted (ms)', value: med(runs, (r) => r.toRoadmap.painted - r.toRoadmap.start), unit: 'ms' },
    { name: 'JavaScript loaded by the login page (KB gzip)', value: login.gzipKb, unit: 'KB', target: { value: LOGIN_JS_BUDGET_KB, atMost: true } },
  ];
}

function browserNotes(runs: Run[], cases: { term: string; titles: string[] }[], full: any, version: string, login: { files: number }): string[] {
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  const load = (f: (l: LoadTimes) => number) => ms(med(runs, (r) => f(r.load)));
  const termLine = cases
    .map((c, i) => `"${c.term || '(cleared)'}" ${c.titles.length} rows ${ms(med(runs, (r) => r.search[i]!.times.painted - r.search[i]!.times.start))}`)
    .join(', ');
  return [
    `Chromium ${version}, headless, 1280 × 860; ${runs.length} runs, each in a fresh browser context after one run not counted; medians shown.`,
    `Large service: ${full.categories.length} categories, ${full.resolved_data.aspects.length} aspects, ${full.resolved_data.timeline.length} quarters, signed in as a super admin (editable rows with drag handles).`,
    `Load, split: parse and render to the table in the page ${load((l) => l.rendered - l.responseEnd)}, its first frame ${load((l) => l.painted - l.rendered)}, the click on the first aspect's title to its Edit Aspect dialog painted ${load((l) => l.dialogPainted - l.clicked)} (the dialog then fades in).`,
    `Search (debounce ${SEARCH_DEBOUNCE_MS} ms), per term: ${termLine}. Each term's rows were checked against the page's search rules.`,
    `Scroll, of the table's own panel from its top to its end: ${med(runs, (r) => r.scroll.frames.length).toFixed(0)} frames over ${(med(runs, (r) => r.scroll.distance) / 1000).toFixed(1)} thousand pixels, ${SCROLL_STEP_PX} px per frame, ` +
      `one frame being the time between two requestAnimationFrame callbacks; long animation frames over 50 ms (Chromium's own count): ${med(runs, (r) => r.scroll.longAnimationFrames).toFixed(0)}. ` +
      `The static page (a plain table of as many rows, as tall, no script, in a scrolling panel like the table's) scrolled the same way in the same browser shows what the machine itself allows.`,
    `Login page: ${login.files} JavaScript files as the browser requests them, sizes gzipped at the default level (bench/bundle.slow.test.ts checks the same budget on the build).`,
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const scale = SCALES[process.env.BENCH_SCALE === 'small' ? 'small' : 'full'];
  const result = await measureBrowser({
    scale,
    runs: Math.max(5, Number(process.env.BENCH_RUNS ?? 5)),
    port: Number(process.env.BENCH_PORT ?? 3190),
    log: (line) => console.log(`[bench] ${line}`),
  });
  for (const f of result.figures) console.log(`${f.name}: ${f.value.toFixed(1)}`);
  for (const n of result.notes) console.log(`- ${n}`);
}

/**
 * The roadmap grid in headless Chromium (bench/grid.ts, the browser half): the 600-aspect,
 * 12-quarter roadmap of the real server serving the production build. Every time is taken inside
 * the page, so the driver's own delays are not part of it:
 *
 * - keyboard moves: each move's keydown is dispatched at the start of a frame (a
 *   requestAnimationFrame callback) on the focused cell, as the browser delivers a key, and the
 *   move's frame lasts until that frame is painted (a task queued from the callback runs once its
 *   style, layout and paint are done); the frames between moves are timed too, rAF to rAF, so a
 *   render that falls outside the move's own frame (the row window following the focus) shows. The
 *   baseline is the same frames with no move, measured in the same page;
 * - a one-cell edit: Enter in the in-place editor to the cell's "Saved" painted (the baseline);
 * - the whole roadmap pasted: Ctrl+V (a real key press) to "Pasted 7200 cells." painted, the batch
 *   request's own time (Resource Timing), and on to the roadmap read back from the server painted.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import { buildWebApp, chromiumPath, signIn } from './browser';
import { catalogFile, importCatalog } from './data';
import { Client, median, percentile } from './http';
import type { GridFigure } from './grid';
import { ADMIN, checkoutAt, startServer } from './server';

export interface GridBrowserOptions {
  port: number;
  /** Measured rounds of moves and pastes, after one not counted. */
  runs: number;
  log: (line: string) => void;
  /** A web build to serve instead of building one (for trying changes quickly). */
  webRoot?: string;
  /** Where the page's CPU profiles of the last round's moves and paste go (BENCH_CPU_PROFILE_DIR), if anywhere. */
  profileDir?: string;
  /** A commit to measure next to this checkout, in the same run (BENCH_GRID_BEFORE). */
  before?: string;
}

const ASPECTS = 600;
const QUARTERS = 12;
const CATEGORIES = 12;
const VIEWPORT = { width: 1280, height: 860 };
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** One frame at 60 Hz: the budget of a frame. */
export const FRAME_MS = 16;
/** The bound for the whole roadmap pasted, committed and shown. */
export const PASTE_TARGET_MS = 1000;
/** Frames left between two moves: the frames after a move (the row window following it) are timed too. */
const FRAMES_BETWEEN = 2;

/**
 * The moves of one round: down through the rows (most of them, so the row window follows the focus
 * and categories are crossed), across the quarters, and back up.
 */
export function moveKeys(): string[] {
  const keys: string[] = [];
  for (let i = 0; i < 40; i++) keys.push('ArrowDown');
  for (let i = 0; i < 6; i++) keys.push('ArrowRight');
  for (let i = 0; i < 4; i++) keys.push('PageDown');
  for (let i = 0; i < 30; i++) keys.push('ArrowDown');
  for (let i = 0; i < 6; i++) keys.push('ArrowLeft');
  for (let i = 0; i < 14; i++) keys.push('ArrowUp');
  return keys;
}

interface MoveFrames {
  /** Each move's frame: from its keydown at the frame's start to that frame painted. */
  moves: number[];
  /** Every frame of the round, rAF to rAF. */
  frames: number[];
  /** The same, a frame with no move: from its start to painted. */
  idle: number[];
  idleFrames: number[];
}

/** Runs in the page: the moves of `keys`, one every FRAMES_BETWEEN + 1 frames, timed (see MoveFrames). */
function movesInPage({ keys, between, dispatch }: { keys: string[]; between: number; dispatch: boolean }): Promise<{ work: number[]; frames: number[] }> {
  return new Promise((resolve) => {
    const work: number[] = [];
    const stamps: number[] = [];
    let frame = 0;
    let next = 0;
    const tick = (t: number) => {
      stamps.push(t);
      if (frame++ % (between + 1) === 0) {
        if (next === keys.length) {
          resolve({ work, frames: stamps.slice(1).map((s, i) => s - stamps[i]!) });
          return;
        }
        const key = keys[next++]!;
        const start = performance.now();
        if (dispatch) {
          const target = document.activeElement ?? document.body;
          target.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
        }
        setTimeout(() => work.push(performance.now() - start), 0);
      }
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

/** `promise`, or an error saying what did not happen within `ms`. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

async function timeMoves(page: Page, keys: string[]): Promise<MoveFrames> {
  const moved = await within(120_000, 'the moves', page.evaluate(movesInPage, { keys, between: FRAMES_BETWEEN, dispatch: true }));
  const idle = await within(120_000, 'the frames with no move', page.evaluate(movesInPage, { keys, between: FRAMES_BETWEEN, dispatch: false }));
  return { moves: moved.work, frames: moved.frames, idle: idle.work, idleFrames: idle.frames };
}

/** Runs in the page: resolves, once `ready` holds after a DOM change, with the time the next frame is painted. */
function paintedWhen(readySource: string): Promise<number> {
  const ready = new Function(`return (${readySource})`) as () => boolean;
  const painted = () => new Promise<number>((resolve) => requestAnimationFrame(() => setTimeout(() => resolve(performance.now()), 0)));
  return new Promise((resolve) => {
    if (ready()) return void painted().then(resolve);
    const observer = new MutationObserver(() => {
      if (!ready()) return;
      observer.disconnect();
      void painted().then(resolve);
    });
    observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
  });
}

/** Arms the page to record the time of the next keydown of `key` (its event time). */
async function armKey(page: Page, key: string): Promise<void> {
  await page.evaluate((k) => {
    const w = window as unknown as { __keyAt?: number };
    w.__keyAt = undefined;
    const listener = (e: KeyboardEvent) => {
      if (e.key.toLowerCase() !== k.toLowerCase()) return;
      w.__keyAt = e.timeStamp;
      window.removeEventListener('keydown', listener, true);
    };
    window.addEventListener('keydown', listener, true);
  }, key);
}
const keyAt = (page: Page) => page.evaluate(() => (window as unknown as { __keyAt: number }).__keyAt);

interface EditTimes {
  saved: number;
}

/** Types a value into the active cell and commits it with Enter: Enter to the cell's "Saved" painted. */
async function oneCell(page: Page, value: string): Promise<EditTimes> {
  await page.keyboard.type(value.slice(0, 1));
  await page.keyboard.type(value.slice(1));
  await armKey(page, 'Enter');
  const saved = page.evaluate(paintedWhen, `document.querySelector('.roadmap-cell-saved') !== null`);
  await page.keyboard.press('Enter');
  const at = await within(60_000, 'the one-cell edit saved', saved);
  const start = await keyAt(page);
  // Back to the cell edited, for the next round; its "Saved" mark goes after a moment.
  await page.keyboard.press('ArrowUp');
  await page.waitForFunction(() => document.querySelector('.roadmap-cell-saved') === null);
  return { saved: at - start };
}

interface PasteTimes {
  shown: number;
  request: number;
  readBack: number;
}

/** The first aspect's first quarter becomes the active cell, the selection a single cell. */
async function toFirstQuarter(page: Page): Promise<void> {
  await page.locator('[data-testid="roadmap-table"] [tabindex="0"][data-cell]').focus();
  for (const key of ['Escape', 'Control+Home', 'ArrowDown', 'ArrowRight', 'ArrowRight']) await page.keyboard.press(key);
}

const statusText = (page: Page) => page.getByTestId('grid-status').textContent();

/** The whole roadmap pasted on the first quarter of the first aspect (see the module's comment). */
async function paste(page: Page, round: number): Promise<PasteTimes> {
  const tsv = Array.from({ length: ASPECTS }, (_, r) => Array.from({ length: QUARTERS }, (_, c) => `R${round} ${r}-${c}`).join('\t')).join('\r\n') + '\r\n';
  await toFirstQuarter(page);
  // The status says something else first, so that the paste's own message is a change to wait for.
  await page.keyboard.press('Control+C');
  await page.getByTestId('grid-status').getByText('Copied 1 cell.').waitFor();
  await page.evaluate((text) => navigator.clipboard.writeText(text), tsv);
  await page.evaluate(() => performance.clearResourceTimings());
  await armKey(page, 'v');
  const shown = page.evaluate(paintedWhen, `document.querySelector('[data-testid="grid-status"]')?.textContent === 'Pasted ${ASPECTS * QUARTERS} cells.'`);
  await page.keyboard.press('Control+V');
  const shownAt = await within(60_000, 'the paste shown', shown).catch(async (err: unknown) => {
    throw new Error(`${String(err)}; the grid says: ${await statusText(page)}`);
  });
  const start = await keyAt(page);
  // The roadmap read again after the write (the cached /full made stale): its response, then its frame.
  await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => /\/full$/.test(new URL(e.name).pathname)), undefined, {
    timeout: 60_000,
  });
  const readBackAt = await within(
    60_000,
    'the roadmap read again painted',
    page.evaluate(async () => {
      const painted = () => new Promise<number>((resolve) => requestAnimationFrame(() => setTimeout(() => resolve(performance.now()), 0)));
      // The response is handled in a task after it arrives; two frames cover its render.
      await painted();
      return painted();
    }),
  );
  const batch = resourceEntry(await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.toJSON())), /\/availabilities\/batch$/);
  return { shown: shownAt - start, request: batch.responseEnd - batch.startTime, readBack: readBackAt - start };
}

function resourceEntry(entries: { name: string; startTime: number; responseEnd: number }[], path: RegExp) {
  const entry = entries.find((e) => path.test(new URL(e.name).pathname));
  if (!entry) throw new Error(`no resource timing for ${path}`);
  return entry;
}

/** A CPU profile of the page (Chrome DevTools Protocol), written where `stop` says. */
async function startProfile(page: Page): Promise<{ stop: (file: string) => Promise<void> }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  return {
    stop: async (file) => {
      const { profile } = await cdp.send('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      await cdp.detach();
    },
  };
}

interface Round {
  moves: MoveFrames;
  edit: EditTimes;
  paste: PasteTimes;
}

/** A server and its page, signed in on the 600 x 12 roadmap. */
interface Target {
  /** What it runs: 'now', or the commit it was checked out at. */
  label: string;
  page: Page;
  stop: () => Promise<void>;
}

/** Builds the web app of `root` (this checkout, or another commit's), starts its server on a fresh embedded database, imports the roadmap and opens it. */
async function openTarget(browser: Browser, o: GridBrowserOptions, label: string, root: string | undefined, port: number, work: string): Promise<Target> {
  const dir = join(work, label);
  const webRoot = root === undefined && o.webRoot ? o.webRoot : join(dir, 'web');
  if (webRoot !== o.webRoot) {
    o.log(`grid: building the web app (${label})`);
    await buildWebApp(webRoot, root);
  }
  const server = await startServer({ port, dataDir: join(dir, 'data'), webRoot, root });
  try {
    const client = new Client(server.url);
    await client.signIn(ADMIN.email, ADMIN.password);
    const { id } = await importCatalog(client, catalogFile({ name: 'Grid', categories: CATEGORIES, aspects: ASPECTS, quarters: QUARTERS }));
    const context = await browser.newContext({ viewport: VIEWPORT });
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const page = await context.newPage();
    await page.addInitScript({ content: 'globalThis.__name = (f) => f;' });
    await signIn(page, server.url);
    await page.goto(`${server.url}/catalog/${id}`);
    await page.locator(`[data-testid="roadmap-table"][aria-rowcount="${1 + CATEGORIES + ASPECTS}"]`).waitFor({ timeout: 60_000 });
    return { label, page, stop: () => server.stop() };
  } catch (err) {
    await server.stop();
    throw err;
  }
}

/** One round on a target: the moves, a one-cell edit, the whole roadmap pasted. */
async function oneRound(target: Target, round: number, profileDir: string | undefined): Promise<Round> {
  const { page } = target;
  // The page in front: a page behind may get no animation frames.
  await page.bringToFront();
  await toFirstQuarter(page);
  const profile = profileDir ? await startProfile(page) : null;
  const moves = await timeMoves(page, moveKeys());
  await profile?.stop(join(profileDir!, `grid-moves-${target.label}.cpuprofile`));
  await toFirstQuarter(page);
  await page.keyboard.press('ArrowRight');
  const edit = await oneCell(page, `Edit ${round}`);
  const pasteProfile = profileDir ? await startProfile(page) : null;
  const pasted = await paste(page, round);
  await pasteProfile?.stop(join(profileDir!, `grid-paste-${target.label}.cpuprofile`));
  return { moves, edit, paste: pasted };
}

/**
 * Builds the web app, imports the 600 x 12 roadmap and measures it in Chromium: `runs` rounds
 * after one not counted; with `before`, the product at that commit too, on a server of its own,
 * the rounds taking turns so that both meet the same load.
 */
export async function measureGridBrowser(o: GridBrowserOptions): Promise<{ figures: GridFigure[]; notes: string[] }> {
  const work = mkdtempSync(join(tmpdir(), 'catalog-grid-'));
  const browser = await chromium.launch({ headless: true, executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  const targets: Target[] = [];
  const notes: string[] = [];
  try {
    targets.push(await openTarget(browser, o, 'now', undefined, o.port, work));
    if (o.before) {
      try {
        targets.push(await openTarget(browser, o, o.before, checkoutAt(o.before, work), o.port + 1, work));
      } catch (err) {
        notes.push(`The product at ${o.before} could not be run next to this one (${String(err).split('\n')[0]}): no same-run comparison.`);
      }
    }
    const rounds = new Map<string, Round[]>(targets.map((t) => [t.label, []]));
    for (let round = 0; round <= o.runs; round++) {
      for (const target of [...targets]) {
        let r: Round;
        try {
          r = await oneRound(target, round, round === o.runs ? o.profileDir : undefined);
        } catch (err) {
          if (target === targets[0]) throw err;
          // The product at the other commit failed a round: the figures go on without it.
          notes.push(`The product at ${target.label} failed round ${round} (${String(err).split('\n')[0]}): no same-run comparison.`);
          targets.splice(targets.indexOf(target), 1);
          await target.stop();
          continue;
        }
        const m = r.moves.moves;
        o.log(
          `grid ${target.label} round ${round}${round ? '' : ' (not counted)'}: move frames p50 ${median(m).toFixed(1)} / p95 ${percentile(m, 95).toFixed(1)} / max ${Math.max(...m).toFixed(1)} ms ` +
            `(no move ${median(r.moves.idle).toFixed(1)}), longest frame ${Math.max(...r.moves.frames).toFixed(1)} ms; one cell ${r.edit.saved.toFixed(0)} ms; ` +
            `paste shown ${r.paste.shown.toFixed(0)} ms (request ${r.paste.request.toFixed(0)}), read back ${r.paste.readBack.toFixed(0)} ms`,
        );
        if (round) rounds.get(target.label)!.push(r);
      }
    }
    const before = targets[1] && rounds.get(targets[1].label)!.length === o.runs ? rounds.get(targets[1].label) : undefined;
    notes.unshift(
      `Chromium ${browser.version()}, headless, ${VIEWPORT.width} × ${VIEWPORT.height}; the roadmap of ${ASPECTS} aspects in ${CATEGORIES} categories by ${QUARTERS} quarters ` +
        `(rich descriptions, every cell filled), imported into a server on a fresh embedded database, signed in as a super admin; ${o.runs} rounds after one not counted, ` +
        `each ${moveKeys().length} moves (${[...new Set(moveKeys())].join(', ')}), one cell typed and a paste of the whole roadmap.`,
    );
    if (before)
      notes.push(
        `"Before" is the product at ${targets[1]!.label} (git archive of that commit, this checkout's node_modules, its own web build, server and embedded database), ` +
          'measured in the same run, its rounds taking turns with these.',
      );
    return { figures: gridBrowserFigures(rounds.get('now')!, before, targets[1]?.label), notes };
  } finally {
    await browser.close();
    for (const t of targets) await t.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** The figures of the rounds, each against the same at `beforeLabel` when measured. */
function gridBrowserFigures(rounds: Round[], before: Round[] | undefined, beforeLabel: string | undefined): GridFigure[] {
  const moves = (rs: Round[]) => rs.flatMap((r) => r.moves.moves);
  const frames = (rs: Round[]) => rs.flatMap((r) => r.moves.frames);
  const paste = (rs: Round[], f: (p: PasteTimes) => number) => median(rs.map((r) => f(r.paste)));
  const then = (f: (rs: Round[]) => number) => (before && beforeLabel ? { value: f(before), what: `at ${beforeLabel}` } : undefined);
  const figure = (section: string, name: string, f: (rs: Round[]) => number, target?: number): GridFigure => ({
    section,
    name,
    value: f(rounds),
    unit: 'ms',
    ...(then(f) ? { baseline: then(f) } : {}),
    ...(target !== undefined ? { target } : {}),
  });
  const KEYS = 'Keyboard moves';
  const PASTE = 'Paste in the browser';
  return [
    figure(KEYS, `A move's frame, keydown to that frame painted: median of ${moves(rounds).length} moves (ms)`, (rs) => median(moves(rs)), FRAME_MS),
    figure(KEYS, "A move's frame: p95 (ms)", (rs) => percentile(moves(rs), 95), FRAME_MS),
    figure(KEYS, "A move's frame: longest (ms)", (rs) => Math.max(...moves(rs)), FRAME_MS),
    figure(KEYS, 'A frame with no move, its start to painted: median (ms; what the machine takes)', (rs) => median(rs.flatMap((r) => r.moves.idle))),
    figure(KEYS, 'Every frame while moving, rAF to rAF: p99 (ms)', (rs) => percentile(frames(rs), 99)),
    figure(KEYS, 'Every frame while moving: longest (ms)', (rs) => Math.max(...frames(rs))),
    figure(KEYS, 'Every frame with no move, rAF to rAF: longest (ms; what the machine takes)', (rs) => Math.max(...rs.flatMap((r) => r.moves.idleFrames))),
    figure(PASTE, 'One cell typed: Enter to its "Saved" painted (ms; the single-cell write)', (rs) => median(rs.map((r) => r.edit.saved))),
    figure(PASTE, `600 x 12 paste: Ctrl+V to "Pasted ${ASPECTS * QUARTERS} cells." painted (ms)`, (rs) => paste(rs, (p) => p.shown), PASTE_TARGET_MS),
    figure(PASTE, 'Of which the batch request, sent to answered (ms)', (rs) => paste(rs, (p) => p.request)),
    figure(PASTE, 'Ctrl+V to the roadmap read again from the server painted (ms)', (rs) => paste(rs, (p) => p.readBack)),
  ];
}

/**
 * The sections of docs/performance.md measured for the issues since the API figures (bench/report.ts):
 * the lists that grow, the change stream, publishing, webhooks and the roadmap grid.
 */
import type { GridFigure } from './grid';
import type { ListFigure } from './lists';
import { FIGURE_HEADER, measured, num, row, type BenchResults } from './reportFormat';

/** One table per section of `figures`, in the order the sections first appear: its heading, header rows and rows. */
function bySection<F extends { section: string }>(figures: F[], header: string[], row: (f: F) => string): string[] {
  return [...new Set(figures.map((f) => f.section))].flatMap((section) => [
    `### ${section}`,
    '',
    ...header,
    ...figures.filter((f) => f.section === section).map(row),
    '',
  ]);
}

/** A grid figure's row: its value, the same measured in the same run to set it against, and the issue's bound. */
function gridRow(f: GridFigure): string {
  const against = f.baseline
    ? `${num(f.baseline.value)} (${f.baseline.what}): ${(f.value / f.baseline.value).toFixed(f.value / f.baseline.value < 10 ? 2 : 0)}×`
    : '';
  const ok = gridMeets(f) ? 'met' : 'not met';
  const verdict =
    f.maxShare !== undefined && f.baseline
      ? `${ok} (target ≤ ${f.maxShare.toFixed(2)}×)`
      : f.target === undefined
        ? ''
        : `${ok} (target ≤ ${f.target} ${f.unit})`;
  return `| ${f.name} | ${num(f.value)} | ${against} | ${verdict} |`;
}

/** Whether a grid figure meets its bound: a share of its baseline (maxShare), else its target; undefined when it has neither. */
export function gridMeets(f: GridFigure): boolean | undefined {
  if (f.maxShare !== undefined && f.baseline) return f.value / f.baseline.value <= f.maxShare;
  return f.target === undefined ? undefined : f.value <= f.target;
}

/** The roadmap grid (bench/grid.ts): one table per part, then what was found about the targets not met. */
export function gridSection(g: NonNullable<BenchResults['grid']>): string[] {
  const out = [
    '## The roadmap grid (issue 28)',
    '',
    'Issue 28 (bench/grid.ts, `BENCH_STEPS=grid`). In the browser (bench/gridBrowser.ts): the 600-aspect, 12-quarter',
    'roadmap in headless Chromium against the real server serving the production build, every time taken inside the',
    "page. A move's keydown is dispatched at the start of a frame on the focused cell, and its frame lasts until that",
    'frame is painted; the frames between moves are timed too, so that a render after the move (the row window',
    "following the focus) shows. The frame's bound is 16 ms whatever the machine; the machine's own frames with no",
    'move, measured in the same page, say how much of a slow figure is the machine (decision 0141). The paste is a real',
    "Ctrl+V of the whole roadmap (7,200 cells), timed to the grid's own status saying it is stored. On the server: the",
    "same paste through `app.inject` in the bench's process, as the API tests call it, on the embedded database (in",
    "memory) and on PostgreSQL, against one cell's write measured in the same run, and other tenants' reads while the",
    'largest CSV apply runs. The 10,000-aspect .catalog import is measured in real server processes against the product',
    "at the commit whose import the issue measured, in turns on the same machine: the issue's bounds, 2 s on PostgreSQL",
    'and 3 s embedded against 3.4 s and 5.4 s there, are shares of that import (decision 0140).',
    '',
    measured(g.machine, `; medians of ${g.machine.runs} runs`),
    '',
  ];
  out.push(...bySection(g.figures, ['| figure | value | against | target |', '|---|---:|---|---|'], gridRow));
  out.push(...g.notes.map((n) => `- ${n}`), '');
  return out;
}

/** A list figure measured, with its value and its 20-item baseline. */
type MeasuredList = ListFigure & { value: number; baseline: number };

const isMeasured = (f: ListFigure): f is MeasuredList => !f.skipped && f.value !== null && f.baseline !== null;

/** Whether a measured list figure is under each of its bounds (the ratio to its 20-item figure, its value). */
function listMeets(f: MeasuredList): boolean {
  const ratio = f.baseline > 0 ? f.value / f.baseline : Infinity;
  return (f.maxRatio === undefined || ratio < f.maxRatio) && (f.maxValue === undefined || f.value < f.maxValue);
}

/** The list figures measured with a target, those of them not met, and how many were not measured. */
export function listTargets(figures: ListFigure[]): { targeted: MeasuredList[]; failing: MeasuredList[]; skipped: number } {
  const targeted = figures.filter(isMeasured).filter((f) => f.maxRatio !== undefined || f.maxValue !== undefined);
  return { targeted, failing: targeted.filter((f) => !listMeets(f)), skipped: figures.filter((f) => !isMeasured(f)).length };
}

/** A list figure's row: the large value, the 20-item one, their ratio, and the targets that apply. */
function listRow(f: ListFigure): string {
  const value = (v: number | null) => (v === null || !Number.isFinite(v) ? '–' : num(v));
  if (!isMeasured(f)) return `| ${f.name} | ${value(f.value)} | ${value(f.baseline)} | | ${f.skipped ?? 'not measured'} |`;
  const ratio = f.baseline > 0 ? f.value / f.baseline : Infinity;
  const bounds: string[] = [];
  if (f.maxRatio !== undefined) bounds.push(`< ${f.maxRatio}×`);
  if (f.maxValue !== undefined) bounds.push(f.unit === 'KB' && f.maxValue === 1024 ? '< 1 MB' : `< ${f.maxValue} ${f.unit}`);
  const verdict = bounds.length ? `${listMeets(f) ? 'met' : 'not met'} (target ${bounds.join(', ')})` : (f.note ?? '');
  return `| ${f.name} | ${value(f.value)} | ${value(f.baseline)} | ${Number.isFinite(ratio) ? `${ratio.toFixed(ratio < 10 ? 2 : 0)}×` : '–'} | ${verdict} |`;
}

/** The change stream (bench/stream.ts): one table per part, rows as the api step's, with their targets. */
export function streamSection(s: NonNullable<BenchResults['stream']>): string[] {
  const m = s.machine;
  const out = [
    '## Change stream across processes',
    '',
    'Issue 26 (bench/stream.ts, `BENCH_STEPS=stream`): three real server processes on one fresh PostgreSQL',
    "database, their caches' backstop at ten minutes (CACHE_MAX_AGE_MS=600000), so that only the change",
    'stream (decision 0115) carries a write through one process to the others. Times are taken by a client',
    'over loopback; throughput with wrk at 10 connections; resident memory from /proc/<pid>/status.',
    '',
    measured(
      m,
      `; scale ${m.scale}${m.scale === 'small' ? " (BENCH_SCALE=small: 50 writes, 1,000 streams and the small large service, to prove the bench; the issue's figures need the full scale)" : ''}`,
    ),
    '',
  ];
  out.push(...bySection(s.figures, FIGURE_HEADER, row));
  out.push(...s.notes.map((n) => `- ${n}`), '');
  return out;
}

export function listsSection(l: NonNullable<BenchResults['lists']>): string[] {
  const m = l.machine;
  const out = [
    '## Lists that grow',
    '',
    'The lists of decision 0114 at the sizes of issue 25 (bench/lists.ts, `BENCH_STEPS=lists`), on PostgreSQL: a fresh',
    "database whose schema the server's migrations made, the data then written with set-based SQL as the",
    'database owner. Each figure is set against the same page or call with 20 items, measured in the same',
    'run: the ratio is the figure, the absolute numbers move with the machine. Page times are taken in',
    'headless Chromium inside the page (performance.now, requestAnimationFrame); API times by a client over',
    'loopback.',
    '',
    measured(
      m,
      `; scale ${m.scale}${m.scale === 'small' ? " (BENCH_SCALE=small: 1/20 of the issue's sizes, to prove the bench; the issue's figures need the full scale)" : ''}; medians of ${m.runs} runs`,
    ),
    '',
  ];
  out.push(...bySection(l.figures, ['| figure | value | 20 items | ratio | target |', '|---|---:|---:|---:|---|'], listRow));
  const { targeted, failing, skipped } = listTargets(l.figures);
  out.push(
    `Targets met: ${targeted.length - failing.length} of ${targeted.length} figures measured with a target${skipped ? ` (${skipped} not measured, see their rows)` : ''}.`,
    '',
  );
  out.push(...l.notes.map((n) => `- ${n}`), '');
  return out;
}

/** Where the browser and event-loop figures are bounded, for the list above. */
export const BROWSER_LIMITS: string[] = [
  '- Search and scrolling (decision 0108): before 2835d56 every row was in the page, those far from',
  '  the viewport in brief, so clearing a search created 600 rows and laid the whole table out',
  '  again (about 90 ms before its frame in a Chromium trace: script 50, style 15, layout 35; 123 ms',
  '  debounce to painted), and each step of the row window while scrolling laid out 600 rows. Now a',
  '  run of far rows is one empty row as tall as they are. Runs of the change on 2026-11-22 measured',
  '  the clearing at 36 to 44 ms and 16 scroll frames over 50 ms, against 123 ms and 30 frames in',
  '  the report before it (27ba0a2, a machine of the same kind). A category far from the viewport',
  '  sets up no drag-and-drop context (it has no row in the page to drag): the clearing measured 44',
  '  ms before that and 36 ms after, one run of five each.',
  '  What is left of a search is React rendering the rows near the viewport and the category rows,',
  '  then the window measured and placed once more before the frame (a CPU profile of the 111-row',
  '  term: about 34 ms of script and layout, the layout forced by measuring the rows about 6 of',
  '  them, nothing else over 2); the slowest term is the one that brings the most rows near the',
  '  viewport. Since 800fe8f the debounce renders only the table; the header, toolbar and dialogs',
  '  rendered again with it before (the term that leaves no row: about 11 ms before, 7 since).',
  '  The view switches move with the run: back to Roadmap measured 36 ms in the report before',
  '  this one and 52 here; the code before and after 800fe8f, 20 switches each in one A/B run,',
  '  measured medians of 48.5 and 49.8 ms.',
  '  Scrolling (c2aebc2): the long frames were the browser painting the table again, not script. A',
  '  Chromium trace of the scroll showed 60 to 150 ms of raster in the frame or two after each step',
  '  of the window (8.9 s of raster over the whole scroll, 5.1 s since), and long animation frames',
  '  with no script in them. The rows were measured with offsetHeight, which rounds to whole',
  '  pixels, so a gap was up to half a pixel off for each row it stood for, and every step of the',
  '  window moved the rows after it, in view too, by a fraction of a pixel. Measured from their',
  '  boxes, the gaps are exact and nothing in view moves (a browser test checks it): 16 to 30 long',
  "  frames became none, the p95 frame the static page's.",
  '  Tried and not kept, before that was found: a window step of 600 pixels instead of 1,600, and',
  "  the window's moves while scrolling rendered as a React transition (a browser test run under",
  "  it once ended in React's update-depth error); neither changed the count beyond the noise.",
  '- Event-loop delay under the mixed load: at cc32a99 the longest delays were 722 ms embedded and',
  "  344 ms on PostgreSQL, while the server used a fraction of one core and the machine's load",
  '  average was above its two cores, so most of them were the process waiting for a core; a CPU',
  '  profile of the server taken with the inspector during a 60-second run of the same load found no',
  '  stretch of JavaScript or garbage collection longer than about 20 ms. At 93f6036, on a quiet',
  '  machine (load average 0.6 at the end), the longest was 31 ms embedded and 32 ms on PostgreSQL.',
];

/** Publishing (bench/publishing.ts, docs/decisions/0124-publishing-figures.md): each figure against its baseline of the same run. */
export function publishingSection(p: NonNullable<BenchResults['publishing']>): string[] {
  const { page, compare } = p;
  return [
    '## Publishing',
    '',
    'Issue 27 (bench/publishing.ts, `BENCH_STEPS=publishing`). The warm public page is',
    '`GET /p/{tenant}/{service}` of a published service whose latest public edition has 100 aspects',
    `(${(page.bytes / 1024).toFixed(1)} KB of HTML), already rendered and held, through the full server with the public rate limit`,
    'counting every request, measured with wrk at 10 connections and compared with the bare `node:http`',
    'server answering the same bytes with the same headers, in the same run. The comparison is',
    '`compareCatalogs` over two frozen catalogs of 600 aspects (12 categories, 8 quarters, some aspects',
    'added, removed, renamed and moved, a tenth of the cells changed), compared with `JSON.parse` of one',
    'of them; median of 101 runs after 20 not counted.',
    '',
    measured(p.machine, `; ${p.machine.runs} runs of ${p.machine.seconds} s`),
    '',
    '| figure | value | baseline | ratio |',
    '|---|---:|---:|---:|',
    `| warm public page throughput (req/s) | ${num(page.rps)} | ${num(page.bareRps)} (bare server) | ${(page.rps / page.bareRps).toFixed(2)} |`,
    `| compare two 600-aspect snapshots (ms) | ${compare.compareMs.toFixed(2)} | ${compare.parseMs.toFixed(2)} (JSON.parse of one) | ${(compare.compareMs / compare.parseMs).toFixed(1)} |`,
    '',
    `- The comparison found ${compare.changes} changes between the two catalogs.`,
    '- The public page answer takes the rate limit, the held page, the conditional-request check and the headers of every response; the bare server only writes the bytes.',
    '',
  ];
}

/** Webhooks (bench/webhooks.ts): writes off and on, delivery latency and throughput, per database. */
export function webhookSection(w: NonNullable<BenchResults['webhooks']>): string[] {
  const lines = [
    '## Webhooks',
    '',
    'Issue 29 (bench/webhooks.ts, `BENCH_STEPS=webhooks`): one server, a receiver on 127.0.0.1 answering 200 at once,',
    'deliveries queued by the database in the writing transaction and sent by the server (decisions 0131, 0132).',
    '',
    measured(w.machine, ''),
    '',
  ];
  for (const r of w.results) {
    lines.push(`### ${r.database}`, '', '| figure | value | note |', '|---|---|---|');
    for (const f of r.figures) lines.push(`| ${f.what} | ${f.value} | ${f.note ?? ''} |`);
    lines.push('', ...r.notes.map((n) => `- ${n}`), '');
  }
  return lines;
}

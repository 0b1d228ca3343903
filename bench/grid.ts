/**
 * The roadmap grid's figures (issue 28; `BENCH_STEPS=grid`, docs/performance.md "The roadmap grid"):
 *
 * - in the browser (bench/gridBrowser.ts): keyboard moves on the 600-aspect, 12-quarter roadmap,
 *   frame by frame, and the whole roadmap pasted, Ctrl+V to shown; with BENCH_GRID_BEFORE=<commit>,
 *   the product at that commit measured next to this one in the same run;
 * - on the server, through app.inject in this process as the API tests call it (a request waits for
 *   whatever holds the event loop or the database, which is what the figures are about), on the
 *   embedded database and on PostgreSQL (BENCH_GRID_DATABASE_URL, else DATABASE_URL, else
 *   postgres://postgres@127.0.0.1:5432/postgres; a fresh database made and dropped): a 600 x 12
 *   paste in one batch call against one cell's write, where the paste's write statement spends its
 *   time (EXPLAIN ANALYZE, rolled back), and other tenants' simple reads while the largest CSV
 *   apply the limits allow runs (1,000 aspects by 40 quarters: 40,000 cells) against the same
 *   reads alone;
 * - the 10,000-aspect .catalog import in real server processes against the product at the commit
 *   whose import the issue measured, in turns, on both databases (bench/importAgainst.ts; it uses
 *   the third and fourth ports from BENCH_PORT).
 *
 *   npx tsx bench/grid.ts   (BENCH_RUNS, BENCH_PORT, BENCH_GRID_BEFORE, BENCH_CPU_PROFILE_DIR)
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { sql, type SQL } from 'drizzle-orm';
import { MAX_BATCH_ASPECTS, MAX_TIMELINE_QUARTERS } from '../common/limits';
import type { Executor } from '../server/db/client';
import { writeCellsOfService } from '../server/db/queries/catalog';
import { aspects as aspectsTable } from '../server/db/schema';
import { multipartFile } from '../server/routes/servicePortability/multipart';
import { buildTestApp, call, type TestApp } from '../server/test/app';
import { createCategory, createService, createWorld } from '../server/test/factories';
import { measureGridBrowser, PASTE_TARGET_MS } from './gridBrowser';
import { ISSUE_IMPORT_COMMIT, measureImportAgainst } from './importAgainst';
import { median, percentile } from './http';

/** A figure of the grid: its value, the same measured in the same run to set it against, and the issue's bound (at most). */
export interface GridFigure {
  section: string;
  name: string;
  value: number;
  unit: string;
  baseline?: { value: number; what: string };
  target?: number;
  /** The issue's bound as a share of the baseline (at most): the value over the baseline's. */
  maxShare?: number;
}

export interface GridOptions {
  runs: number;
  port: number;
  /** A PostgreSQL server on which a fresh database is made for the server figures. */
  databaseUrl: string;
  /** A commit whose browser figures are measured next to this checkout's. */
  before?: string;
  profileDir?: string;
  log: (line: string) => void;
}

/** The bound of the issue for other tenants' reads while an import runs (p99). */
const READ_TARGET_MS = 200;
const ASPECTS = 600;
const QUARTERS = 12;

function quartersFrom(year: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${year + Math.floor(i / 4)}-Q${(i % 4) + 1}`);
}

async function seedAspects(t: TestApp, tenantId: string, serviceId: string, count: number, perCategory: number): Promise<string[]> {
  const ids: string[] = [];
  for (let c = 0; c * perCategory < count; c++) {
    const category = await createCategory(t.db, tenantId, serviceId, `Category ${c}`, c);
    const rows = Array.from({ length: Math.min(perCategory, count - c * perCategory) }, (_, i) => ({
      tenantId,
      serviceId,
      categoryId: category.id,
      title: `Aspect ${c}-${i}`,
      description: '',
      isPublic: true,
      position: i,
    }));
    const inserted = await t.db.insert(aspectsTable).values(rows).returning({ id: aspectsTable.id });
    ids.push(...inserted.map((r) => r.id));
  }
  return ids;
}

interface StatementTimes {
  totalMs: number;
  /** Time in triggers, by what they do. */
  changeStreamMs: number;
  foreignKeysMs: number;
  webhooksMs: number;
}

/**
 * Where the paste's write statement spends its time: the statement writeCellsOfService sends, run
 * under EXPLAIN ANALYZE in a transaction that is rolled back.
 */
async function explainWrite(t: TestApp, tenantId: string, serviceId: string, cells: { aspectId: string; timeBucket: string; value: string }[]) {
  let plan: unknown;
  await t.db
    .transaction(async (tx) => {
      const explaining = {
        execute: async (query: SQL) => {
          const res = await tx.execute(sql`explain (analyze, format json) ${query}`);
          plan = (res as unknown as { rows: Record<string, unknown>[] }).rows[0]!['QUERY PLAN'];
          return res;
        },
      } as unknown as Executor;
      await writeCellsOfService(explaining, tenantId, serviceId, cells, 'bench');
      tx.rollback();
    })
    .catch((err: unknown) => {
      if (!/rollback/i.test(String(err))) throw err;
    });
  const [top] = (typeof plan === 'string' ? JSON.parse(plan) : plan) as { 'Execution Time': number; Triggers?: { 'Trigger Name': string; Time: number }[] }[];
  const times: StatementTimes = { totalMs: top!['Execution Time'], changeStreamMs: 0, foreignKeysMs: 0, webhooksMs: 0 };
  for (const trigger of top!.Triggers ?? []) {
    const name = trigger['Trigger Name'];
    if (name.startsWith('catalog_announce')) times.changeStreamMs += trigger.Time;
    else if (name.startsWith('catalog_webhook')) times.webhooksMs += trigger.Time;
    else if (name.startsWith('RI_ConstraintTrigger')) times.foreignKeysMs += trigger.Time;
  }
  return times;
}

/** The server figures on one database (null: the embedded one). */
async function measureServer(o: GridOptions, databaseBase: string | null): Promise<{ figures: GridFigure[]; notes: string[] }> {
  const database = databaseBase ? 'PostgreSQL' : 'embedded database (PGlite, in memory)';
  const section = `Server, ${database}`;
  const t = await buildTestApp({}, databaseBase);
  try {
    const world = await createWorld(t.app, t.db);
    const tenantId = world.tenant.id;
    const editor = world.tokens.editor;

    const timeline = quartersFrom(2026, QUARTERS);
    const service = await createService(t.db, tenantId, { timeline });
    const ids = await seedAspects(t, tenantId, service.id, ASPECTS, 30);
    const one: number[] = [];
    for (let i = 0; i < 21; i++) {
      const start = performance.now();
      const res = await call(t.app, 'POST', '/api/availabilities', {
        token: editor,
        body: { aspectId: ids[i % ids.length], timeBucket: timeline[0], value: `One ${i}` },
      });
      one.push(performance.now() - start);
      if (res.statusCode !== 200) throw new Error(`one cell: ${res.statusCode} ${res.body}`);
    }
    // Each paste replaces the one before, expecting its texts, as the grid sends it (the first, not
    // counted, fills the cells whatever they hold).
    const cellsOf = (run: number) =>
      ids.flatMap((aspectId, r) =>
        timeline.map((timeBucket, c) => ({
          aspectId,
          timeBucket,
          value: `Run ${run} R${r}C${c}`,
          ...(run ? { expectedValue: `Run ${run - 1} R${r}C${c}` } : {}),
        })),
      );
    const paste: number[] = [];
    for (let run = 0; run <= o.runs; run++) {
      const start = performance.now();
      const res = await call(t.app, 'POST', '/api/availabilities/batch', { token: editor, body: { serviceId: service.id, cells: cellsOf(run) } });
      if (run) paste.push(performance.now() - start);
      if (res.statusCode !== 200 || res.json().changed !== ASPECTS * QUARTERS) throw new Error(`paste: ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
    const explained = await explainWrite(
      t,
      tenantId,
      service.id,
      cellsOf(o.runs + 1).map(({ aspectId, timeBucket, value }) => ({ aspectId, timeBucket, value })),
    );
    o.log(
      `grid, ${database}: one cell ${median(one).toFixed(1)} ms; 600 x 12 paste ${median(paste).toFixed(0)} ms; its statement ${explained.totalMs.toFixed(0)} ms`,
    );

    // Other tenants' reads while the largest CSV apply runs.
    const otherService = await createService(t.db, world.other.id);
    const read = async () => {
      const start = performance.now();
      const res = await call(t.app, 'GET', `/api/services/${otherService.id}`, { token: world.tokens.otherAdmin });
      if (res.statusCode !== 200) throw new Error(`read: ${res.statusCode}`);
      return performance.now() - start;
    };
    const idle: number[] = [];
    for (let i = 0; i < 300; i++) idle.push(await read());
    const quarters = quartersFrom(2026, MAX_TIMELINE_QUARTERS);
    const big = await createService(t.db, tenantId, { timeline: quarters });
    const lines = [['Category', 'Aspect', 'Description', 'Public', ...quarters].join(',')];
    for (let r = 0; r < MAX_BATCH_ASPECTS; r++)
      lines.push([`Group ${Math.floor(r / 50)}`, `Item ${r}`, 'Imported', 'Yes', ...quarters.map((q) => `V${r} ${q}`)].join(','));
    const { body, headers } = multipartFile(Buffer.from(lines.join('\r\n') + '\r\n'), 'big.csv');
    // Open loop: a read is sent every 20 ms whatever the earlier ones do, so a stall shows in every
    // read it holds up, not in one read alone.
    const during: Promise<number>[] = [];
    const timer = setInterval(() => during.push(read()), 20);
    const start = performance.now();
    const applied = await call(t.app, 'POST', `/api/services/${big.id}/csv-import?apply=true`, { token: editor, body, headers });
    const applyMs = performance.now() - start;
    clearInterval(timer);
    const latencies = await Promise.all(during);
    if (applied.statusCode !== 200) throw new Error(`apply: ${applied.statusCode} ${applied.body.slice(0, 300)}`);
    const cellsApplied = applied.json().preview.cells_changed.length as number;
    o.log(`grid, ${database}: CSV apply ${applyMs.toFixed(0)} ms; reads during it p99 ${percentile(latencies, 99).toFixed(1)} ms`);

    const oneCell = { value: median(one), what: "one cell's write" };
    const alone = (f: (xs: number[]) => number) => ({ value: f(idle), what: 'the same reads alone' });
    const figure = (name: string, value: number, extra: Partial<GridFigure> = {}): GridFigure => ({ section, name, value, unit: 'ms', ...extra });
    return {
      figures: [
        figure(`One cell's write, POST /api/availabilities: median of ${one.length} (ms)`, median(one)),
        figure(`600 x 12 paste, ${ASPECTS * QUARTERS} cells in one POST /api/availabilities/batch: median of ${paste.length} (ms)`, median(paste), {
          baseline: oneCell,
          target: PASTE_TARGET_MS,
        }),
        figure("The paste's write statement under EXPLAIN ANALYZE, rolled back (ms)", explained.totalMs),
        figure("Of which the change stream's statement triggers (ms)", explained.changeStreamMs),
        figure("Of which the history rows' foreign-key checks (ms)", explained.foreignKeysMs),
        figure(`Another tenant's simple read alone, p50 of ${idle.length} (ms)`, median(idle)),
        figure(`Another tenant's reads during the largest CSV apply, one every 20 ms (${latencies.length}): p50 (ms)`, median(latencies), {
          baseline: alone(median),
        }),
        figure('The same: p99 (ms)', percentile(latencies, 99), { baseline: alone((xs) => percentile(xs, 99)), target: READ_TARGET_MS }),
        figure('The same: longest (ms)', Math.max(...latencies), { baseline: alone((xs) => Math.max(...xs)) }),
        figure(`That CSV apply: ${MAX_BATCH_ASPECTS} aspects x ${MAX_TIMELINE_QUARTERS} quarters, ${cellsApplied} cells (ms)`, applyMs),
      ],
      notes: explained.webhooksMs > 1 ? [`${database}: the webhook triggers took ${explained.webhooksMs.toFixed(1)} ms of the paste's statement.`] : [],
    };
  } finally {
    await t.close();
  }
}

/** Every figure of the grid: the browser's, then the server's on each database. */
export async function measureGrid(o: GridOptions): Promise<{ figures: GridFigure[]; notes: string[] }> {
  o.log('grid: the 600 x 12 roadmap in Chromium');
  const browser = await measureGridBrowser({ port: o.port, runs: o.runs, log: o.log, before: o.before, profileDir: o.profileDir });
  const figures = [...browser.figures];
  const notes = [...browser.notes];
  for (const base of [null, o.databaseUrl]) {
    o.log(`grid: the server on ${base ? 'PostgreSQL' : 'the embedded database'}`);
    try {
      const server = await measureServer(o, base);
      figures.push(...server.figures);
      notes.push(...server.notes);
    } catch (err) {
      if (!base) throw err;
      notes.push(`PostgreSQL at ${base.replace(/\/\/[^@]*@/, '//')} could not be used (${String(err).split('\n')[0]}): its server figures are not measured.`);
    }
  }
  o.log(`grid: the 10,000-aspect import against ${ISSUE_IMPORT_COMMIT}`);
  // The browser's servers take the first two ports.
  const imports = await measureImportAgainst({ runs: o.runs, port: o.port + 2, databaseUrl: o.databaseUrl, log: o.log });
  figures.push(...imports.figures);
  notes.push(...imports.notes);
  return { figures, notes: [...notes, ...inTheWay(figures)] };
}

/** What stands in the way of the targets not met, with the figures of this run. */
function inTheWay(figures: GridFigure[]): string[] {
  const value = (section: string, start: string) => figures.find((f) => f.section.startsWith(section) && f.name.startsWith(start))?.value;
  const ms = (v: number | undefined) => (v === undefined ? 'not measured' : `${v.toFixed(0)} ms`);
  const statement = (db: string) =>
    `${ms(value(`Server, ${db}`, "Of which the change stream's"))} of ${ms(value(`Server, ${db}`, "The paste's write statement"))} on ${db === 'PostgreSQL' ? 'PostgreSQL' : 'the embedded database'}`;
  return [
    "Keyboard moves: a move renders the rows it leaves and enters and nothing else. Each row reads its own slice of the grid's store " +
      '(the active cell, the selection, the editor, the save states); the table holds neither the active row nor the focused one as its state ' +
      '(each category pins its active row when that row is in a gap, and the row window pins the focused row only while it is outside the window), ' +
      'so a move does not render the table and its layout effect does not measure every row. The row window following the focus down, as when ' +
      "scrolling (decision 0108), grows two rows a frame beyond the rows in view, so no frame renders a large step of it; a category's drag items " +
      'are all its aspects, so a step does not render its sortable rows again; and PageDown moves a screen (0126), onto a row already in the page. ' +
      "The machine's own frames (no move) are the floor: on a busy machine every frame is late.",
    'Paste: the cells are written in one statement (their texts, history rows and the service version). Under EXPLAIN ANALYZE the change ' +
      `stream's statement triggers take ${statement('embedded database (PGlite, in memory)')} and ${statement('PostgreSQL')}. Since ` +
      'migration 0014 the tables of a roadmap (categories, aspects, availabilities) announce a statement from the distinct (tenant, service) ' +
      'pairs of its rows; the general function of migration 0008 turned each of the 7,200 old and 7,200 new rows into JSON and sorted them ' +
      '(663 ms of 2931 ms on the embedded database and 224 ms of 522 ms on PostgreSQL at 888bca6). The rest is the upsert and the history rows ' +
      "themselves (the history rows' foreign-key checks are in the table), validating the 7,200 cells and the 870 KB request. In the browser " +
      "the real server's embedded database is on disk, so its paste is slower than the in-memory one; the read of the roadmap again after the " +
      'paste comes after the status says it is stored.',
    'Imports on the embedded database: it has one session. A .catalog import is written in short steps into a hidden service that is ' +
      'made visible at the end (decision 0136), so other requests pass between its steps. A CSV apply larger than one step (1,000 cells) is ' +
      'written in steps too, after its journal (decision 0139): all or nothing in its outcome, a failure or a stop undoing what was written, ' +
      'while people see the service fill in. As one transaction, every other request that needed the database waited for all of it.',
  ];
}

export function gridOptionsFromEnv(log: (line: string) => void): GridOptions {
  return {
    runs: Number(process.env.BENCH_RUNS ?? 3),
    port: Number(process.env.BENCH_PORT ?? 3190),
    databaseUrl: process.env.BENCH_GRID_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    before: process.env.BENCH_GRID_BEFORE || undefined,
    profileDir: process.env.BENCH_CPU_PROFILE_DIR || undefined,
    log,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await measureGrid(gridOptionsFromEnv((line) => console.log(`[bench] ${line}`)));
  for (const f of result.figures)
    console.log(`${f.section} | ${f.name}: ${f.value.toFixed(1)}${f.baseline ? ` (${f.baseline.what} ${f.baseline.value.toFixed(1)})` : ''}`);
  for (const n of result.notes) console.log(`- ${n}`);
}

/**
 * npm run bench: measures the product's figures and writes docs/performance.md (and the results
 * behind it, docs/performance.json). The steps, all by default, or those in BENCH_STEPS:
 *
 * - api: builds the bench tenant through the API, measures every figure against a bare node:http
 *   server answering the same bytes (bench/measure.ts);
 * - memory: RSS and event-loop delay under a mixed read/write load (bench/memory.ts);
 * - browser: the large roadmap in headless Chromium, and the login page's JavaScript (bench/browser.ts);
 * - pglite: resident memory of the embedded database's settings (bench/pgliteMemory.ts);
 * - lists: the lists that grow (10,000 services, tenants and tenant users, 100,000 users, a cell
 *   changed 100,000 times, 1,000 snapshots) against the same with 20 items, on PostgreSQL: a fresh
 *   database on BENCH_LISTS_DATABASE_URL, else DATABASE_URL, else postgres://postgres@127.0.0.1:5432
 *   (bench/lists.ts).
 * - stream: the change stream across three server processes on a fresh PostgreSQL database (on
 *   BENCH_STREAM_DATABASE_URL, else DATABASE_URL, else postgres://postgres@127.0.0.1:5432):
 *   propagation, warm reads with it, and 10,000 idle SSE streams on one process (bench/stream.ts;
 *   it uses BENCH_PORT and the next three ports).
 * - publishing: the warm public page against the bare server, and comparing two 600-aspect
 *   snapshots (bench/publishing.ts).
 *
 * - webhooks: writes with webhooks off and on, delivery latency and throughput to a local receiver
 *   (bench/webhooks.ts), on the embedded database and, with DATABASE_URL, on PostgreSQL.
 * - grid: the roadmap grid (bench/grid.ts): keyboard moves and a whole-roadmap paste on the
 *   600-aspect roadmap in Chromium (BENCH_GRID_BEFORE=<commit>: that commit measured next to this
 *   one), the batch write and other tenants' reads during the largest CSV apply on the embedded
 *   database and on PostgreSQL (BENCH_GRID_DATABASE_URL, else DATABASE_URL, else
 *   postgres://postgres@127.0.0.1:5432), and the 10,000-aspect import against the commit whose
 *   import the issue measured (bench/importAgainst.ts); it uses BENCH_PORT and the next three ports.
 * - testdb: opening a test file's database, migrated from nothing against copied from the run's
 *   template, on the embedded database and, with TEST_DATABASE_URL, on PostgreSQL (bench/testDatabases.ts).
 *
 * BENCH_SCALE=small (quick proof that everything works) or full (default); BENCH_RUNS (runs per
 * figure, median taken; default 3, at least 5 for the browser); BENCH_SECONDS (seconds per wrk
 * run); BENCH_MEMORY_SECONDS (the mixed load's duration, default 300); BENCH_PORT (default 3190,
 * the baseline uses the next port); DATABASE_URL: also measure api and memory on PostgreSQL, each
 * in a fresh database created on that server and dropped afterwards; BENCH_CPU_PROFILE_DIR: every
 * server the bench starts writes a CPU profile of each of its threads there (node --cpu-prof).
 */
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { measureBrowser } from './browser';
import { gridOptionsFromEnv, measureGrid } from './grid';
import { SCALES } from './data';
import { ensureWrk } from './http';
import { listsOptionsFromEnv, measureLists } from './lists';
import { measure } from './measure';
import { benchDatabase, measureMemory, memoryOptionsFromEnv } from './memory';
import { measurePgliteMemory } from './pgliteMemory';
import { renderReport, type BenchResults, type DatabaseFigures, type Machine } from './report';
import { measureStream, streamOptionsFromEnv } from './stream';
import { measurePublishing } from './publishing';
import { measureWebhooks, webhookOptionsFromEnv } from './webhooks';
import { measureTestDatabases } from './testDatabases';

const log = (line: string) => console.log(`[bench] ${line}`);
const STEPS = ['api', 'memory', 'browser', 'pglite', 'lists', 'stream', 'publishing', 'webhooks', 'grid', 'testdb'] as const;
const EMBEDDED = 'Embedded (PGlite in a worker thread)';
const RESULTS = fileURLToPath(new URL('../docs/performance.json', import.meta.url));
const REPORT = fileURLToPath(new URL('../docs/performance.md', import.meta.url));

function machineNow(scale: string, runs: number, seconds: number): Machine {
  return {
    commit: safe(() => execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim()),
    cpus: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}`,
    memory: `${(totalmem() / 1024 ** 3).toFixed(1)} GB`,
    load: loadavg()
      .map((l) => l.toFixed(1))
      .join(' '),
    node: process.version,
    date: new Date().toISOString(),
    scale,
    runs,
    seconds,
  };
}

/** Runs `measureOn` on the embedded database, then on a fresh PostgreSQL database when DATABASE_URL is set. */
async function perDatabase(
  prefix: string,
  measureOn: (databaseUrl?: string) => Promise<{ figures: DatabaseFigures['figures']; notes: string[] }>,
): Promise<DatabaseFigures[]> {
  log(`${prefix}: embedded database`);
  const embedded = await measureOn();
  const out: DatabaseFigures[] = [{ database: EMBEDDED, figures: embedded.figures, notes: embedded.notes }];
  const base = process.env.DATABASE_URL;
  if (base) {
    const database = await benchDatabase(base, prefix);
    try {
      log(`${prefix}: PostgreSQL`);
      const postgres = await measureOn(database.url);
      out.push({ database: 'PostgreSQL', figures: postgres.figures, notes: postgres.notes });
    } finally {
      await database.drop();
    }
  }
  return out;
}

async function main() {
  const scaleName = process.env.BENCH_SCALE === 'small' ? 'small' : 'full';
  const scale = SCALES[scaleName];
  const runs = Number(process.env.BENCH_RUNS ?? 3);
  const seconds = Number(process.env.BENCH_SECONDS ?? (scaleName === 'small' ? 2 : 5));
  const port = Number(process.env.BENCH_PORT ?? 3190);
  const steps = (process.env.BENCH_STEPS ?? STEPS.join(',')).split(',').map((s) => s.trim());
  const unknown = steps.filter((s) => !(STEPS as readonly string[]).includes(s));
  if (unknown.length) throw new Error(`unknown BENCH_STEPS ${unknown.join(', ')}: use ${STEPS.join(', ')}`);
  if (steps.includes('api') && !ensureWrk()) throw new Error('wrk is needed: apt-get install wrk (as root)');
  /** Records one step's results: the file is read again first, so the other steps keep theirs even if another run wrote them meanwhile. */
  const save = <K extends keyof BenchResults>(step: K, value: BenchResults[K]) => {
    const results: BenchResults = existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')) : {};
    results[step] = value;
    writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(REPORT, renderReport(results));
  };

  if (steps.includes('api')) {
    const machine = machineNow(scaleName, runs, seconds);
    const common = { scale, runs, seconds, port, log };
    save('api', { machine, results: await perDatabase('catalog_bench', (databaseUrl) => measure({ ...common, databaseUrl })) });
  }
  if (steps.includes('memory')) {
    const options = { ...memoryOptionsFromEnv(log), scale, port };
    const machine = machineNow(scaleName, 1, options.seconds);
    save('memory', { machine, results: await perDatabase('catalog_bench_memory', (databaseUrl) => measureMemory({ ...options, databaseUrl })) });
  }
  if (steps.includes('browser')) {
    const browserRuns = Math.max(5, runs);
    const machine = machineNow(scaleName, browserRuns, 0);
    log('browser: the large roadmap in Chromium');
    save('browser', { machine, ...(await measureBrowser({ scale, runs: browserRuns, port, log })) });
  }
  if (steps.includes('pglite')) {
    const pgliteRuns = scaleName === 'small' ? 1 : runs;
    log('embedded database memory settings');
    save('pglite', { machine: machineNow(scaleName, pgliteRuns, 0), rows: await measurePgliteMemory(pgliteRuns) });
  }
  if (steps.includes('lists')) {
    const options = { ...listsOptionsFromEnv(log), port };
    log(`lists: ${options.scaleName} scale on PostgreSQL`);
    const machine = machineNow(scaleName, options.runs, 0);
    const { figures, notes } = await measureLists(options);
    save('lists', { machine, figures, notes });
  }
  if (steps.includes('stream')) {
    if (!ensureWrk()) throw new Error('wrk is needed: apt-get install wrk (as root)');
    const options = { ...streamOptionsFromEnv(log), port };
    log(`stream: ${options.scaleName} scale on PostgreSQL`);
    const machine = machineNow(scaleName, options.runs, options.seconds);
    const { figures, notes } = await measureStream(options);
    save('stream', { machine, figures, notes });
  }
  if (steps.includes('publishing')) {
    if (!ensureWrk()) throw new Error('wrk is needed: apt-get install wrk (as root)');
    log('publishing: the warm public page and comparing two 600-aspect snapshots');
    const machine = machineNow(scaleName, runs, seconds);
    save('publishing', { machine, ...(await measurePublishing({ port, seconds, runs, log })) });
  }
  if (steps.includes('webhooks')) {
    const options = webhookOptionsFromEnv(log, port);
    const machine = machineNow(scaleName, 1, 0);
    const results: NonNullable<BenchResults['webhooks']>['results'] = [];
    for (const databaseUrl of [undefined, process.env.DATABASE_URL].filter((u, i) => i === 0 || u)) {
      const database = databaseUrl ? await benchDatabase(databaseUrl, 'catalog_bench_hooks') : null;
      try {
        log(`webhooks: ${database ? 'PostgreSQL' : 'embedded database'}`);
        results.push({ database: database ? 'PostgreSQL' : EMBEDDED, ...(await measureWebhooks({ ...options, databaseUrl: database?.url })) });
      } finally {
        await database?.drop();
      }
    }
    save('webhooks', { machine, results });
  }
  if (steps.includes('grid')) {
    const options = { ...gridOptionsFromEnv(log), runs, port };
    log(`grid: the 600 x 12 roadmap${options.before ? `, next to ${options.before}` : ''}`);
    const machine = machineNow(scaleName, runs, 0);
    save('grid', { machine, ...(await measureGrid(options)) });
  }
  if (steps.includes('testdb')) {
    log('testdb: opening a test database, migrated against copied from the template');
    const machine = machineNow(scaleName, runs, 0);
    save('testdb', { machine, rows: await measureTestDatabases(runs) });
  }
  log(`wrote ${REPORT}`);
}

function safe(run: () => string): string {
  try {
    return run();
  } catch {
    return 'unknown';
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

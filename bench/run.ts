/**
 * npm run bench: builds the bench tenant through the API, measures every figure against a bare
 * node:http server answering the same bytes, and writes docs/performance.md.
 *
 * BENCH_SCALE=small (quick proof that everything works) or full (default); BENCH_RUNS (runs per
 * figure, median taken; default 3); BENCH_SECONDS (seconds per wrk run); BENCH_PORT (default
 * 3190, the baseline uses the next port); DATABASE_URL: also measure on PostgreSQL, in a fresh
 * database created on that server and dropped afterwards.
 */
import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { SCALES } from './data';
import { ensureWrk } from './http';
import { measure, type Figure } from './measure';
import { measurePgliteMemory, type MemoryRow } from './pgliteMemory';
import { renderReport } from './report';

const log = (line: string) => console.log(`[bench] ${line}`);

async function adminQuery(url: string, text: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

async function main() {
  const scaleName = process.env.BENCH_SCALE === 'small' ? 'small' : 'full';
  const scale = SCALES[scaleName];
  const runs = Number(process.env.BENCH_RUNS ?? 3);
  const seconds = Number(process.env.BENCH_SECONDS ?? (scaleName === 'small' ? 2 : 5));
  const port = Number(process.env.BENCH_PORT ?? 3190);
  if (!ensureWrk()) throw new Error('wrk is needed: apt-get install wrk (as root)');
  const machine = {
    commit: safe(() => execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim()),
    cpus: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}`,
    memory: `${(totalmem() / 1024 ** 3).toFixed(1)} GB`,
    load: loadavg().map((l) => l.toFixed(1)).join(' '),
    node: process.version,
    date: new Date().toISOString(),
    scale: scaleName,
    runs,
    seconds,
  };
  const common = { scale, runs, seconds, writes: scaleName === 'small' ? 200 : 1000, port, log };
  const results: { database: string; figures: Figure[]; notes: string[] }[] = [];

  log(`embedded database, scale ${scaleName}`);
  results.push({ database: 'Embedded (PGlite in a worker thread)', ...(await measure(common)) });

  const base = process.env.DATABASE_URL;
  if (base) {
    const name = `catalog_bench_${randomBytes(4).toString('hex')}`;
    await adminQuery(base, `create database ${name}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    try {
      log(`PostgreSQL, scale ${scaleName}`);
      results.push({ database: 'PostgreSQL', ...(await measure({ ...common, databaseUrl: url.toString() })) });
    } finally {
      await adminQuery(base, `drop database if exists ${name} with (force)`);
    }
  }

  log('embedded database memory settings');
  const memory: MemoryRow[] = await measurePgliteMemory(scaleName === 'small' ? 1 : runs);

  const out = fileURLToPath(new URL('../docs/performance.md', import.meta.url));
  writeFileSync(out, renderReport(machine, results, memory));
  log(`wrote ${out}`);
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

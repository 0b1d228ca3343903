/** docs/performance.md from one bench run. */
import type { Figure } from './measure';
import type { MemoryRow } from './pgliteMemory';

export interface Machine {
  commit: string;
  cpus: string;
  memory: string;
  load: string;
  node: string;
  date: string;
  scale: string;
  runs: number;
  seconds: number;
}

const num = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));

function row(f: Figure): string {
  let ratio = '';
  let verdict = '';
  if (f.baseline !== undefined) {
    const r = f.baseline > 0 ? f.value / f.baseline : 0;
    ratio = `${(r * 100).toFixed(r < 0.1 ? 1 : 0)}% of ${num(f.baseline)}`;
    verdict = r >= 0.8 ? 'met (≥ 80%)' : 'not met (target ≥ 80%)';
  } else if (f.target) {
    const ok = f.target.atMost ? f.value <= f.target.value : f.value >= f.target.value;
    ratio = `${(f.value / f.target.value).toFixed(2)} × target`;
    verdict = `${ok ? 'met' : 'not met'} (target ${f.target.atMost ? '≤' : '≥'} ${f.target.value} ${f.unit})`;
  }
  return `| ${f.name} | ${num(f.value)} | ${ratio} | ${verdict} |`;
}

export function renderReport(m: Machine, results: { database: string; figures: Figure[]; notes: string[] }[], memory: MemoryRow[]): string {
  const lines = [
    '# Performance',
    '',
    'Written by `npm run bench` (bench/run.ts); run it again to refresh every figure. Each figure is',
    `the median of ${m.runs} runs. Throughput is measured with wrk at 10 connections for ${m.seconds} s per run`,
    'and compared with a bare `node:http` server answering the same bytes from memory with the same',
    'tool, concurrency and encoding, measured in the same run: the ratio is the figure, the absolute',
    'numbers move with the machine. Times are measured by the client over loopback, so they include',
    'the transfer of the body; server time is at most that.',
    '',
    `- Commit: ${m.commit}, ${m.date}`,
    `- Machine: ${m.cpus}, ${m.memory} memory, load average at start ${m.load}; Node ${m.node}`,
    `- Scale: ${m.scale}${m.scale === 'small' ? ' (BENCH_SCALE=small: a smaller tenant and import, to prove the bench; the issue\'s figures need the full scale)' : ''}`,
    '',
  ];
  for (const r of results) {
    lines.push(`## ${r.database}`, '', '| figure | value | ratio | target |', '|---|---:|---|---|');
    lines.push(...r.figures.map(row), '');
    lines.push(...r.notes.map((n) => `- ${n}`), '');
  }
  lines.push(
    '## What stands in the way of the targets not met',
    '',
    '- Warm reads (`/full`, `/services`): the body is served from memory, but every request still',
    '  runs its checks on the database: the session (user, memberships, revocation), the tenant, and',
    '  for `/full` the service row with the caller\'s service role: three statements. On the',
    '  embedded database they go one at a time over its single connection to the database\'s thread,',
    '  so requests per second are bounded by those round trips, not by the bytes; each round trip',
    '  costs two thread wake-ups, which grow with the machine\'s load. Folding the session and tenant',
    '  checks into one statement (server/plugins/session.ts, tenant.ts) would cut the round trips',
    '  by a third to a half.',
    '- On PostgreSQL as well, those checks (token verification, three statements through',
    '  node-pg and Drizzle, routing) cost the server far more per request than the bare server\'s',
    '  write of a buffer. Reaching 80% of the limit needs the per-request authorization without a',
    '  database round trip (for instance session and membership held in memory and checked against',
    '  a version), which this product does not do: it reads them on every request by design, so a',
    '  revocation or demotion takes effect at once.',
    '- Event-loop stalls during imports: the import unpacks off the loop but parses and validates',
    '  the whole document (JSON.parse, the zod schema) and builds its inserts on the event loop',
    '  (server/commands/importService.ts); a 10,000-aspect file is about 130,000 objects.',
    '- Requests during an import: the import holds the embedded database\'s only connection for its',
    '  whole transaction. The event loop keeps turning (the database runs in its own thread), but',
    '  every request that needs the database (all API calls, for the session check) waits for the',
    '  import to commit.',
    '- Figures measured on a loaded machine (see the load average above) are several times worse',
    '  than on an idle one; the ratios against the bare server, measured in the same run, are the',
    '  figures to compare.',
    '',
    '## Embedded database memory',
    '',
    'Resident memory of a process that opens PGlite (bench/pgliteProbe.ts), in MB: on a new data',
    'directory (PGlite creates the database in the process), on an existing one, and after a small',
    'workload (60,000 rows of 300 characters inserted, then 20 sorted reads of 5,000 rows), with',
    'the workload\'s time.',
    '',
    '| settings | new database | existing database | after the workload | workload (ms) |',
    '|---|---:|---:|---:|---:|',
    ...memory.map((r) => `| ${r.variant} | ${num(r.freshRssMb)} | ${num(r.reopenRssMb)} | ${num(r.afterWorkRssMb)} | ${num(r.workMs)} |`),
    '',
  );
  return lines.join('\n');
}

/**
 * The bench's results as docs/performance.json holds them, and the rows and lines that
 * docs/performance.md is made of (bench/report.ts, bench/reportSections.ts).
 */
import type { GridFigure } from './grid';
import type { ListFigure } from './lists';
import type { PublishingFigures } from './publishing';
import type { Figure } from './measure';
import type { MemoryRow } from './pgliteMemory';
import type { StreamFigure } from './stream';
import type { TestDatabaseRow } from './testDatabases';
import type { WebhookFigure } from './webhooks';

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

export interface DatabaseFigures {
  database: string;
  figures: Figure[];
  notes: string[];
}

export interface BenchResults {
  /** Throughput, latency, imports and start-up through the API, per database. */
  api?: { machine: Machine; results: DatabaseFigures[] };
  /** RSS and event-loop delay under the mixed load, per database. */
  memory?: { machine: Machine; results: DatabaseFigures[] };
  /** The large roadmap in Chromium, and the login page's JavaScript. */
  browser?: { machine: Machine; figures: Figure[]; notes: string[] };
  /** Resident memory of the embedded database's settings. */
  pglite?: { machine: Machine; rows: MemoryRow[] };
  /** Lists that grow (bench/lists.ts): each figure against the same with 20 items. */
  lists?: { machine: Machine; figures: ListFigure[]; notes: string[] };
  /** The change stream across three processes on PostgreSQL (bench/stream.ts). */
  stream?: { machine: Machine; figures: StreamFigure[]; notes: string[] };
  /** Public pages and snapshot comparison (bench/publishing.ts). */
  publishing?: { machine: Machine } & PublishingFigures;
  /** Webhooks: writes with them off and on, delivery latency and throughput (bench/webhooks.ts). */
  webhooks?: { machine: Machine; results: { database: string; figures: WebhookFigure[]; notes: string[] }[] };
  /** The roadmap grid: keyboard moves and a whole-roadmap paste in Chromium, the batch write and imports on the server (bench/grid.ts). */
  grid?: { machine: Machine; figures: GridFigure[]; notes: string[] };
  /** Opening a test file's database (bench/testDatabases.ts). */
  testdb?: { machine: Machine; rows: TestDatabaseRow[] };
}

export const num = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(1));

/** One section per database: its figures, then its notes. */
export function perDatabase(results: DatabaseFigures[]): string[] {
  return results.flatMap((d) => [`### ${d.database}`, '', ...table(d.figures), ...d.notes.map((n) => `- ${n}`), '']);
}

/** A figure against the bare server meets its target at this share of the bare server's figure. */
export const BARE_SHARE = 0.8;

/** Whether a figure meets its target: its own bound, or BARE_SHARE of its bare-server baseline; undefined when it has neither. */
export function meets(f: Figure): boolean | undefined {
  if (f.baseline !== undefined) return (f.baseline > 0 ? f.value / f.baseline : 0) >= BARE_SHARE;
  if (!f.target) return undefined;
  const t = f.target;
  const size = t.within ? Math.abs(f.value) : f.value;
  return t.within || t.atMost ? size <= t.value : size >= t.value;
}

export function row(f: Figure): string {
  let ratio = '';
  let verdict = '';
  if (f.baseline !== undefined) {
    const r = f.baseline > 0 ? f.value / f.baseline : 0;
    ratio = `${(r * 100).toFixed(r < 0.1 ? 1 : 0)}% of ${num(f.baseline)}`;
    verdict = meets(f) ? 'met (≥ 80%)' : 'not met (target ≥ 80%)';
  } else if (f.target) {
    const t = f.target;
    const size = t.within ? Math.abs(f.value) : f.value;
    const ok = meets(f);
    ratio = t.value > 0 ? `${(size / t.value).toFixed(2)} × target` : '';
    const limit = Number.isInteger(t.value) ? String(t.value) : num(t.value);
    const bound = t.within ? `within ±${limit} ${f.unit}` : t.value === 0 && t.atMost ? 'none' : `${t.atMost ? '≤' : '≥'} ${limit} ${f.unit}`;
    verdict = `${ok ? 'met' : 'not met'} (target ${bound})`;
  }
  return `| ${f.name} | ${num(f.value)} | ${ratio} | ${verdict} |`;
}

/** The header rows of a table of figures (`row`). */
export const FIGURE_HEADER = ['| figure | value | ratio | target |', '|---|---:|---|---|'];

export function table(figures: Figure[]): string[] {
  return [...FIGURE_HEADER, ...figures.map(row), ''];
}

export function measured(m: Machine, extra = ''): string {
  return `Measured at commit ${m.commit}, ${m.date}, on ${m.cpus} with ${m.memory} memory (load average at start ${m.load}), Node ${m.node}${extra}.`;
}

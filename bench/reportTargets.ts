/**
 * The table at the top of docs/performance.md: each target, the figure last measured for it and
 * whether it is met, taken from the same results as the sections below it (bench/report.ts).
 */
import type { GridFigure } from './grid';
import type { Figure } from './measure';
import { meets, num, type BenchResults, type DatabaseFigures } from './reportFormat';
import { gridMeets, listTargets } from './reportSections';

/** A target's figure as the table shows it, and whether every value in it meets the target. */
interface Verdict {
  figure: string;
  met: boolean;
}

/** One row: the target in words, and its verdict from the results (null when they hold none for it). */
interface Target {
  target: string;
  measure: (r: BenchResults) => Verdict | null;
}

/** A number as the table writes it: one decimal under 100, whole numbers grouped by thousands above. */
const amount = (v: number) => (Math.abs(v) >= 100 ? Math.round(v).toLocaleString('en-US') : num(v));
const share = (f: Figure) => `${Math.round((f.value / f.baseline!) * 100)}%`;
const withUnit = (unit: string) => (f: { value: number }) => `${amount(f.value)} ${unit}`;

function find<F extends { name: string }>(figures: F[] | undefined, name: RegExp): F | null {
  return figures?.find((f) => name.test(f.name)) ?? null;
}

/** The figure `name` of each database (embedded, then PostgreSQL), or null when a database lacks it. */
function eachDatabase(results: DatabaseFigures[] | undefined, name: RegExp): Figure[] | null {
  if (!results?.length) return null;
  const found = results.map((d) => find(d.figures, name));
  return found.every((f) => f !== null) ? (found as Figure[]) : null;
}

/** The figures' values, one per database, and whether each meets its target. */
function verdict(figures: Figure[] | null, show: (f: Figure) => string, extra?: (r: Figure[]) => string): Verdict | null {
  if (!figures) return null;
  return { figure: figures.map(show).join(' / ') + (extra ? extra(figures) : ''), met: figures.every((f) => meets(f) === true) };
}

/** A figure of each database against the bare server, and the same against the bare server sending the product's headers. */
function bareShare(name: RegExp, sameHeaders?: { name: RegExp; words: string }): Target['measure'] {
  return (r) => {
    const same = sameHeaders && eachDatabase(r.api?.results, sameHeaders.name);
    return verdict(eachDatabase(r.api?.results, name), share, () => (same ? ` (${same.map(share).join(' / ')} ${sameHeaders.words})` : ''));
  };
}

const api =
  (name: RegExp, unit: string): Target['measure'] =>
  (r) =>
    verdict(eachDatabase(r.api?.results, name), withUnit(unit));

/** Browser and stream figures: one value each, met when every one meets its target. */
function single(figures: Figure[] | undefined, names: RegExp[], show: (values: Figure[]) => string): Verdict | null {
  const found = names.map((name) => find(figures, name));
  if (found.some((f) => f === null)) return null;
  const all = found as Figure[];
  return { figure: show(all), met: all.every((f) => meets(f) === true) };
}

/** Grid figures: the one named in each section matched, met when each meets its bound. */
function grid(r: BenchResults, sections: RegExp, name: RegExp, show: (f: GridFigure) => string): Verdict | null {
  const found = [...new Set(r.grid?.figures.filter((f) => sections.test(f.section)).map((f) => f.section))].map((section) =>
    find(
      r.grid!.figures.filter((f) => f.section === section),
      name,
    ),
  );
  if (!found.length || found.some((f) => f === null)) return null;
  const all = found as GridFigure[];
  return { figure: all.map(show).join(' / '), met: all.every((f) => gridMeets(f) === true) };
}

/** A webhook figure's ratio (`0.98×`) against the bound its note states (`target ≤ 1.10`). */
function webhookRatio(f: { value: string; note?: string } | undefined): { text: string; met: boolean } | null {
  const bound = /target ≤ ([\d.]+)/.exec(f?.note ?? '')?.[1];
  if (!f || bound === undefined) return null;
  return { text: f.value, met: parseFloat(f.value) <= Number(bound) };
}

function webhooks(r: BenchResults): Verdict | null {
  const results = r.webhooks?.results ?? [];
  const overall = results.map((d) => webhookRatio(d.figures.find((f) => /^Writes' p99 on \/ off$/.test(f.what))));
  const blocks = results.map((d) => webhookRatio(d.figures.find((f) => /^Writes' p99 on \/ off, median of the block pairs/.test(f.what))));
  if (!results.length || overall.some((x) => x === null)) return null;
  const pairs = blocks.every((x) => x !== null) ? ` (median of block pairs ${blocks.map((x) => x!.text).join(' / ')})` : '';
  return { figure: overall.map((x) => x!.text).join(' / ') + pairs, met: overall.every((x) => x!.met) };
}

function lists(r: BenchResults): Verdict | null {
  if (!r.lists) return null;
  const { targeted, failing, skipped } = listTargets(r.lists.figures);
  if (!targeted.length) return null;
  const worst = (values: number[], show: (v: number) => string) => (values.length ? [show(Math.max(...values))] : []);
  const worsts = [
    ...worst(
      targeted.filter((f) => f.maxRatio !== undefined).map((f) => f.value / f.baseline),
      (v) => `${v.toFixed(2)}×`,
    ),
    ...worst(
      targeted.filter((f) => f.maxValue !== undefined && f.unit === 'ms').map((f) => f.value),
      (v) => `${num(v)} ms`,
    ),
    ...worst(
      targeted.filter((f) => f.maxValue !== undefined && f.unit === 'KB').map((f) => f.value),
      (v) => `${Math.round(v).toLocaleString('en-US')} KB`,
    ),
  ];
  const notMeasured = skipped ? `, ${skipped} not measured` : '';
  return {
    figure: `${targeted.length - failing.length} of ${targeted.length} figures met (worst ${worsts.join(', ')}${notMeasured})`,
    met: failing.length === 0 && skipped === 0,
  };
}

/** The targets of the issues, in the order the table lists them. */
export const TARGETS: Target[] = [
  {
    target: "Warm `GET /full` of the large service: at least 80% of the bare server's requests per second",
    measure: bareShare(/^GET \/full, large service, warm \(req\/s\)$/),
  },
  {
    target: 'Warm `GET /full`, gzip: at least 80% of the bare server',
    measure: bareShare(/^GET \/full, large service, warm, gzip \(req\/s\)$/, {
      name: /^GET \/full, large service, warm, gzip, against the bare server sending the same headers/,
      words: 'against the bare server sending the same headers',
    }),
  },
  {
    target: 'Warm `GET /services` of 200 services: at least 80% of the bare server',
    measure: bareShare(/^GET \/services, \d+ services \(req\/s\)$/, {
      name: /^GET \/services, \d+ services, against the bare server sending the same headers/,
      words: 'with the same headers',
    }),
  },
  { target: 'Availability write p99 at 10 in flight: at most 15 ms', measure: api(/^Availability write p99 at 10 in flight/, 'ms') },
  {
    target: 'Cold `/full` after a write, 600 aspects, server time: at most 20 ms',
    measure: (r) => {
      const figures = r.api?.results.map((d) => d.figures.find((f) => /^Cold \/full after a write, \d+ aspects, server time/.test(f.name) && f.target));
      return verdict(figures?.every(Boolean) && figures.length ? (figures as Figure[]) : null, withUnit('ms'));
    },
  },
  {
    target: 'Cold `/full` for 10 times the aspects: at most 10 times the time (worst of the four curves)',
    measure: (r) => {
      const worst = r.api?.results.map((d) => d.figures.filter((f) => f.name.startsWith('Scale curve:')).sort((a, b) => b.value - a.value)[0]);
      return verdict(worst?.length && worst.every(Boolean) ? (worst as Figure[]) : null, (f) => `${f.value.toFixed(1)}×`);
    },
  },
  { target: 'Server memory growth during the 10,000-aspect import: at most 160 MB', measure: api(/^Server RSS growth during the import/, 'MB') },
  { target: 'Export of the 10,000-aspect service: at most 1,000 ms', measure: api(/^Export of the \d+-aspect service/, 'ms') },
  { target: "A small page's p99 while an import runs: at most 20 ms", measure: api(/^Small page p99 while an import runs/, 'ms') },
  { target: "The database health check's p99 while an import runs: at most 200 ms", measure: api(/^Database health check p99 while an import runs/, 'ms') },
  { target: 'Start-up on an existing database to the first request: at most 3,000 ms', measure: api(/^Start-up on an existing database/, 'ms') },
  {
    target: 'Memory under a mixed load, first minute to last: within ±10%',
    measure: (r) => verdict(eachDatabase(r.memory?.results, /^RSS change, first to last minute/), (f) => `${num(f.value)}%`),
  },
  {
    target: 'Large roadmap in the browser: `/full` received to table painted and a click answered, at most 500 ms',
    measure: (r) => single(r.browser?.figures, [/^Large roadmap: \/full received to table painted/], ([f]) => withUnit('ms')(f!)),
  },
  {
    target: 'Search: debounce fired to filtered table painted, at most 50 ms (slowest term)',
    measure: (r) => single(r.browser?.figures, [/^Search: debounce fired to filtered table painted, slowest term/], ([f]) => withUnit('ms')(f!)),
  },
  {
    target: 'Scrolling 600 rows: no frame over 50 ms, no empty gap in view',
    measure: (r) =>
      single(r.browser?.figures, [/^Scroll through \d+ rows: frames over 50 ms$/, /^Scroll through \d+ rows: frames showing an empty gap/], (all) =>
        all.map((f) => String(f.value)).join(' and '),
      ),
  },
  {
    target: 'JavaScript loaded by the login page: at most 250 KB gzip',
    measure: (r) => single(r.browser?.figures, [/^JavaScript loaded by the login page/], ([f]) => withUnit('KB')(f!)),
  },
  {
    target:
      "Lists at 10,000 services, 10,000 tenants, 100,000 users, 100,000 changes of a cell and 1,000 snapshots: each time under 2× its 20-item figure, each keystroke's next frame under 50 ms, each answer under 1 MB",
    measure: lists,
  },
  {
    target: 'A write through one process seen in `/full` through the other two: p99 at most 100 ms',
    measure: (r) => single(r.stream?.figures, [/^Write through one process to its value in \/full through the other two, p99/], ([f]) => withUnit('ms')(f!)),
  },
  {
    target: "A write's event on the other processes' open pages: p99 at most 100 ms",
    measure: (r) => single(r.stream?.figures, [/^Write's answer to the SSE catalog event on the other two processes, p99/], ([f]) => withUnit('ms')(f!)),
  },
  {
    target: 'Warm `/full` of one process with the change stream: at least 90% of the same before it (93f6036)',
    measure: (r) => single(r.stream?.figures, [/^One process now, as a share of 93f6036's: median/], ([f]) => `${Math.round(f!.value)}%`),
  },
  {
    target: 'Memory added by 10,000 idle event streams: at most 300 MB',
    measure: (r) =>
      single(
        r.stream?.figures,
        [/^Server RSS added by [\d,]+ idle streams/, /^Server RSS added, after \d+ writes reached every stream/],
        ([idle, after]) => `${amount(idle!.value)} MB (${amount(after!.value)} MB after three writes)`,
      ),
  },
  { target: "A write's p99 with one webhook endpoint: at most 1.10 times the same without", measure: webhooks },
  {
    target: "A keyboard move's frame on the roadmap grid: at most 16 ms (median, p95, longest)",
    measure: (r) => {
      const moves = r.grid?.figures.filter((f) => f.section === 'Keyboard moves' && f.target !== undefined) ?? [];
      if (!moves.length) return null;
      return { figure: `${moves.map((f) => num(f.value)).join(', ')} ms`, met: moves.every((f) => gridMeets(f) === true) };
    },
  },
  {
    target: 'Pasting 600 × 12 cells in the browser: Ctrl+V to stored, at most 1,000 ms',
    measure: (r) => grid(r, /^Paste in the browser$/, /paste: Ctrl\+V to "Pasted/, withUnit('ms')),
  },
  {
    target: '7,200 cells in one batch call: at most 1,000 ms',
    measure: (r) => grid(r, /^Server, /, /cells in one POST \/api\/availabilities\/batch/, withUnit('ms')),
  },
  {
    target: "Another tenant's reads during the largest CSV apply: p99 at most 200 ms",
    measure: (r) => grid(r, /^Server, /, /^The same: p99/, withUnit('ms')),
  },
  {
    target: 'The 10,000-aspect `.catalog` import: at most its share of the same import at 93f6036 (in brackets), measured in turns (decision 0140)',
    measure: (r) => {
      const found = grid(r, /^Import, /, /^Import of the [\d,]+-aspect \.catalog/, (f) => `${(f.value / f.baseline!.value).toFixed(2)}×`);
      const bounds = r.grid?.figures.filter((f) => /^Import, /.test(f.section) && f.maxShare !== undefined).map((f) => `${f.maxShare!.toFixed(2)}×`);
      return found && { ...found, figure: `${found.figure} (at most ${bounds!.join(' / ')})` };
    },
  },
];

/** The section "Targets at a glance": one row per target, `not measured` where the results hold nothing for it. */
export function targetsSection(r: BenchResults): string[] {
  return [
    '## Targets at a glance',
    '',
    'Each target and the figure last measured for it, taken from the sections below (where two figures',
    'are given: embedded database / PostgreSQL) and written with them (bench/reportTargets.ts). Each',
    'section says when, where and at which commit its figures were measured; this table does not',
    'measure anything of its own.',
    '',
    '| target | figure | met |',
    '|---|---|---|',
    ...TARGETS.map(({ target, measure }) => {
      const v = measure(r);
      return v ? `| ${target} | ${v.figure} | ${v.met ? 'met' : 'not met'} |` : `| ${target} | not measured | – |`;
    }),
    '',
    "The publishing figures (warm public page, comparing snapshots) and the embedded database's memory",
    'settings are measured without a target. What stands in the way of the targets not met is in its',
    'own section below.',
    '',
  ];
}

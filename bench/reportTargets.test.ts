import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderReport, type BenchResults, type Machine } from './report';
import { TARGETS, targetsSection } from './reportTargets';

const machine: Machine = {
  commit: 'abc1234',
  cpus: '2 × CPU',
  memory: '8 GB',
  load: '0.1',
  node: 'v20',
  date: '2026-01-01',
  scale: 'full',
  runs: 3,
  seconds: 5,
};

/** The table's row of the target that starts with `start`. */
function rowOf(results: BenchResults, start: string): string {
  const rows = targetsSection(results).filter((line) => line.startsWith(`| ${start}`));
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

const api = (embedded: number, postgres: number): BenchResults['api'] => ({
  machine,
  results: [
    { database: 'Embedded', notes: [], figures: [{ name: 'GET /full, large service, warm (req/s)', value: embedded, unit: 'req/s', baseline: 1000 }] },
    { database: 'PostgreSQL', notes: [], figures: [{ name: 'GET /full, large service, warm (req/s)', value: postgres, unit: 'req/s', baseline: 1000 }] },
  ],
});

describe('the table of targets at the top of docs/performance.md', () => {
  it('is written by the bench from docs/performance.json, with the rest of the report', () => {
    const results = JSON.parse(readFileSync(new URL('../docs/performance.json', import.meta.url), 'utf8')) as BenchResults;
    const report = renderReport(results);
    expect(readFileSync(new URL('../docs/performance.md', import.meta.url), 'utf8')).toBe(report);
    expect(report.indexOf('## Targets at a glance')).toBeLessThan(report.indexOf('## API'));
  });

  it('gives each database its share of the bare server, met only when every one reaches 80%', () => {
    expect(rowOf({ api: api(1340, 1010) }, 'Warm `GET /full` of the large')).toMatch(/\| 134% \/ 101% \| met \|$/);
    expect(rowOf({ api: api(1340, 790) }, 'Warm `GET /full` of the large')).toMatch(/\| 134% \/ 79% \| not met \|$/);
  });

  it('says "not measured" for each target whose step has no results', () => {
    const rows = targetsSection({ api: api(900, 900) }).filter((line) => line.startsWith('| ') && !line.startsWith('| target'));
    expect(rows).toHaveLength(TARGETS.length);
    expect(rows.filter((line) => line.endsWith('| not measured | – |'))).toHaveLength(TARGETS.length - 1);
  });

  it('counts the list figures met, names the worst of each kind, and is not met when one is not', () => {
    const lists: BenchResults['lists'] = {
      machine,
      notes: [],
      figures: [
        { section: 'A', name: 'shown (ms)', unit: 'ms', value: 300, baseline: 100, maxRatio: 2 },
        { section: 'A', name: 'keystroke to next frame (ms)', unit: 'ms', value: 23.2, baseline: 20, maxRatio: 2, maxValue: 50 },
        { section: 'A', name: 'answer (KB of JSON)', unit: 'KB', value: 56.9, baseline: 11, maxValue: 1024 },
        { section: 'A', name: 'unpaged answer (KB of JSON)', unit: 'KB', value: 900, baseline: 900, note: 'no target' },
      ],
    };
    expect(rowOf({ lists }, 'Lists at 10,000')).toMatch(/\| 2 of 3 figures met \(worst 3\.00×, 23\.2 ms, 57 KB\) \| not met \|$/);
  });

  it('reads each grid bound: a share of the earlier import, or a time', () => {
    const grid: BenchResults['grid'] = {
      machine,
      notes: [],
      figures: [
        {
          section: 'Import, embedded database',
          name: 'Import of the 10,000-aspect .catalog (ms)',
          value: 500,
          unit: 'ms',
          baseline: { value: 1000, what: 'before' },
          maxShare: 0.56,
        },
        {
          section: 'Import, PostgreSQL',
          name: 'Import of the 10,000-aspect .catalog (ms)',
          value: 700,
          unit: 'ms',
          baseline: { value: 1000, what: 'before' },
          maxShare: 0.59,
        },
        { section: 'Keyboard moves', name: "A move's frame: median (ms)", value: 3.6, unit: 'ms', target: 16 },
        { section: 'Keyboard moves', name: "A move's frame: longest (ms)", value: 17.2, unit: 'ms', target: 16 },
      ],
    };
    expect(rowOf({ grid }, 'The 10,000-aspect `.catalog` import')).toMatch(/\| 0\.50× \/ 0\.70× \(at most 0\.56× \/ 0\.59×\) \| not met \|$/);
    expect(rowOf({ grid }, "A keyboard move's frame")).toMatch(/\| 3\.6, 17\.2 ms \| not met \|$/);
  });
});

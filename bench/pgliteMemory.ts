/** Resident memory of the embedded database with PGlite's defaults and with the product's settings. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EMBEDDED_SETTINGS } from '../server/db/embedded/settings';
import { median } from './http';

export interface MemoryRow {
  variant: string;
  /** First start: PGlite creates the database (initdb) in the process. */
  freshRssMb: number;
  /** Start on an existing data directory. */
  reopenRssMb: number;
  afterWorkRssMb: number;
  workMs: number;
}

interface Probe {
  openMs: number;
  afterOpen: number;
  workMs: number;
  afterWork: number;
}

const PROBE = fileURLToPath(new URL('./pgliteProbe.ts', import.meta.url));

function probe(variant: string, dataDir: string): Probe {
  const out = spawnSync(process.execPath, ['--import', 'tsx', PROBE, variant, dataDir], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`pgliteProbe failed: ${out.stderr}`);
  return JSON.parse(out.stdout.trim().split('\n').pop()!) as Probe;
}

export async function measurePgliteMemory(runs: number): Promise<MemoryRow[]> {
  const rows: MemoryRow[] = [];
  const variants = [
    ['default', 'PGlite defaults'],
    [
      'product',
      `Product: ${Object.entries(EMBEDDED_SETTINGS)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}`,
    ],
  ] as const;
  const samples = new Map<string, { fresh: number[]; reopen: number[]; after: number[]; work: number[] }>();
  for (let r = 0; r < runs; r++) {
    for (const [variant] of variants) {
      const dir = mkdtempSync(join(tmpdir(), 'catalog-pglite-'));
      try {
        const fresh = probe(variant, join(dir, 'pg'));
        const again = probe(variant, join(dir, 'pg'));
        const s = samples.get(variant) ?? { fresh: [], reopen: [], after: [], work: [] };
        s.fresh.push(fresh.afterOpen);
        s.reopen.push(again.afterOpen);
        s.after.push(again.afterWork);
        s.work.push(again.workMs);
        samples.set(variant, s);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  for (const [variant, label] of variants) {
    const s = samples.get(variant)!;
    rows.push({ variant: label, freshRssMb: median(s.fresh), reopenRssMb: median(s.reopen), afterWorkRssMb: median(s.after), workMs: median(s.work) });
  }
  return rows;
}

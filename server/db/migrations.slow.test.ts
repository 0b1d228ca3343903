import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from './client';

describe('migrations', () => {
  it('match the schema: drizzle-kit finds nothing to generate (no drift)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'catalog-drift-'));
    try {
      cpSync(MIGRATIONS_FOLDER, dir, { recursive: true });
      const before = readdirSync(dir)
        .filter((f) => f.endsWith('.sql'))
        .sort();
      const res = spawnSync(process.execPath, ['node_modules/drizzle-kit/bin.cjs', 'generate', '--config', 'drizzle.config.ts'], {
        // drizzle-kit reads its output folder relative to the working directory.
        env: { ...process.env, DRIZZLE_OUT: relative(process.cwd(), dir) },
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(res.status, res.stderr).toBe(0);
      expect(`${res.stdout}${res.stderr}`).not.toMatch(/Error/);
      expect(res.stdout).toMatch(/No schema changes/);
      const after = readdirSync(dir)
        .filter((f) => f.endsWith('.sql'))
        .sort();
      expect(after, `schema changes without a migration:\n${res.stdout}`).toEqual(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

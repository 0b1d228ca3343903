import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Prints a suite's figure and records it in test-results/figures/<name>.json, so the figures in
 * docs/security.md and docs/reliability.md are the output of a command anyone can run.
 */
export function recordFigure(name: string, summary: string, data: Record<string, unknown> = {}): void {
  const database = process.env.TEST_DATABASE_URL ? 'postgres' : 'embedded';
  const file = `${name}-${database}`;
  process.stdout.write(`\n[figure] ${name} (${database}): ${summary}\n`);
  try {
    const dir = join(process.cwd(), 'test-results', 'figures');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${file}.json`), JSON.stringify({ name, database, summary, ...data, at: new Date().toISOString() }, null, 2));
  } catch {
    // The printed line is the figure; the file is a convenience.
  }
}

/**
 * How long a test file waits for its database (server/test/db.ts): a database migrated from
 * nothing against a copy of the run's migrated template, on the embedded database and, with
 * TEST_DATABASE_URL, on PostgreSQL. Rounds alternate the two ways, so a busy machine slows both
 * alike; the ratio of their medians is the figure to compare.
 */
import { randomBytes } from 'node:crypto';
import { embeddedTemplate, openDatabase } from '../server/db';
import { adminQuery, databaseUrl, migratePostgresTemplate } from '../server/test/templates';

export interface TestDatabaseRow {
  database: string;
  /** Making the template once per run. */
  templateMs: number;
  /** Medians of the rounds: a new database migrated from nothing, and one copied from the template. */
  migratedMs: number;
  copiedMs: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timed(open: () => Promise<() => Promise<void>>): Promise<number> {
  const started = performance.now();
  const close = await open();
  const ms = performance.now() - started;
  await close();
  return ms;
}

async function alternate(runs: number, migrated: () => Promise<() => Promise<void>>, copied: () => Promise<() => Promise<void>>) {
  const times = { migrated: [] as number[], copied: [] as number[] };
  for (let i = 0; i < runs; i++) {
    times.migrated.push(await timed(migrated));
    times.copied.push(await timed(copied));
  }
  return { migratedMs: median(times.migrated), copiedMs: median(times.copied) };
}

export async function measureTestDatabases(runs: number, base = process.env.TEST_DATABASE_URL || null): Promise<TestDatabaseRow[]> {
  const rows: TestDatabaseRow[] = [];
  let started = performance.now();
  const dump = await embeddedTemplate();
  const embeddedTemplateMs = performance.now() - started;
  rows.push({
    database: 'Embedded (PGlite in a worker thread)',
    templateMs: embeddedTemplateMs,
    ...(await alternate(
      runs,
      async () => (await openDatabase({})).close,
      async () => (await openDatabase({ from: dump })).close,
    )),
  });
  if (!base) return rows;
  const openNew = (template?: string) => async () => {
    const name = `catalog_bench_${randomBytes(6).toString('hex')}`;
    await adminQuery(base, `create database ${name}${template ? ` template ${template}` : ''}`);
    const database = await openDatabase({ url: databaseUrl(base, name), poolSize: 5 });
    return async () => {
      await database.close();
      await adminQuery(base, `drop database if exists ${name} with (force)`);
    };
  };
  const template = `catalog_template_${randomBytes(6).toString('hex')}`;
  started = performance.now();
  await migratePostgresTemplate(base, template);
  const templateMs = performance.now() - started;
  try {
    rows.push({ database: 'PostgreSQL', templateMs, ...(await alternate(runs, openNew(), openNew(template))) });
  } finally {
    await adminQuery(base, `drop database if exists ${template} with (force)`);
  }
  return rows;
}

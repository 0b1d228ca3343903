/**
 * How long a test file waits for its database (server/test/db.ts): a fresh database migrated from
 * nothing against a copy of the run's migrated template, on the embedded database and, with
 * TEST_DATABASE_URL, on PostgreSQL. Rounds alternate the two ways, so a busy machine slows both
 * alike; prints each way's median and their ratio.
 * Usage: tsx bench/testDatabases.ts [rounds]
 */
import { randomBytes } from 'node:crypto';
import { embeddedTemplate, openDatabase } from '../server/db';
import { adminQuery, databaseUrl, migratePostgresTemplate } from '../server/test/templates';

const rounds = Number(process.argv[2] ?? 3);
const base = process.env.TEST_DATABASE_URL || null;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
async function timed(open: () => Promise<() => Promise<void>>): Promise<number> {
  const started = performance.now();
  const close = await open();
  const ms = performance.now() - started;
  await close();
  return ms;
}

function report(label: string, fresh: number[], copied: number[]) {
  const [f, c] = [median(fresh), median(copied)];
  console.log(`${label}: migrated per open ${Math.round(f)} ms, from the template ${Math.round(c)} ms (medians of ${rounds}; ${(f / c).toFixed(1)}x)`);
}

let started = performance.now();
const dump = await embeddedTemplate();
console.log(`embedded template made in ${Math.round(performance.now() - started)} ms (${Math.round(dump.length / 1e6)} MB)`);
const embedded = { fresh: [] as number[], copied: [] as number[] };
for (let i = 0; i < rounds; i++) {
  embedded.fresh.push(await timed(async () => (await openDatabase({})).close));
  embedded.copied.push(await timed(async () => (await openDatabase({ from: dump })).close));
}
report('embedded', embedded.fresh, embedded.copied);

if (base) {
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
  console.log(`PostgreSQL template made in ${Math.round(performance.now() - started)} ms`);
  const pgs = { fresh: [] as number[], copied: [] as number[] };
  try {
    for (let i = 0; i < rounds; i++) {
      pgs.fresh.push(await timed(openNew()));
      pgs.copied.push(await timed(openNew(template)));
    }
  } finally {
    await adminQuery(base, `drop database if exists ${template} with (force)`);
  }
  report('PostgreSQL', pgs.fresh, pgs.copied);
}

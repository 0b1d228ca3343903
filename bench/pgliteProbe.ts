/**
 * One measurement of the embedded database's memory, in its own process: opens PGlite with the
 * settings named on the command line (a fresh or an existing data directory), runs a small
 * catalog-sized workload and prints the resident memory at each step as JSON.
 * Usage: pgliteProbe.ts <default|product> <dataDir>
 */
import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { EMBEDDED_SETTINGS, settingsParams } from '../server/db/embedded/settings';

const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;
const [variant, dataDir] = process.argv.slice(2);
const startParams = variant === 'product' ? [...PGlite.defaultStartParams, ...settingsParams(EMBEDDED_SETTINGS)] : undefined;

const opened = performance.now();
const db = await PGlite.create({ dataDir, ...(startParams ? { startParams } : {}) });
const openMs = performance.now() - opened;
const afterOpen = rssMb();
await db.exec('create table if not exists probe (id serial primary key, title text, body text)');
const worked = performance.now();
await db.exec(`insert into probe (title, body) select md5(g::text), repeat('x', 300) from generate_series(1, 60000) g`);
for (let i = 0; i < 20; i++) await db.query('select title, body from probe order by title limit 5000');
const workMs = performance.now() - worked;
const afterWork = rssMb();
await db.close();
process.stdout.write(JSON.stringify({ openMs, afterOpen, workMs, afterWork }) + '\n');

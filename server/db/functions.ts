import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from './client';

/**
 * The database's functions and triggers (docs/decisions/0176-database-functions-defined-once.md):
 * each one's current definition is one file of server/db/functions, applied after the ordered
 * migrations as Flyway applies its repeatable migrations. A file is idempotent: CREATE OR REPLACE
 * FUNCTION, its grants, and its triggers dropped if they exist and created again.
 */
export const FUNCTIONS_FOLDER = fileURLToPath(new URL('./functions', import.meta.url));

export interface FunctionFile {
  /** The file's name, `<function>.sql`. */
  name: string;
  text: string;
}

/** The definition files, in the order of their names (the order they are applied in). */
export function functionFiles(folder = FUNCTIONS_FOLDER): FunctionFile[] {
  return readdirSync(folder)
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(folder, name), 'utf8') }));
}

/** The rows `query` answers, as `T`. */
export async function rowsOf<T>(db: Db, query: SQL): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}

/** Where the last applied set is recorded: beside Drizzle's journal, out of the application's schema. */
const APPLIED_TABLE = sql`drizzle.catalog_functions_applied`;

/**
 * Applies every definition file in one transaction, unless the files and the migrations applied are
 * exactly those of the last time: a start with nothing new reads one row and takes no lock on any
 * table (dropping a trigger locks its table against every reader). A migration that ran since
 * (it may have dropped a table with its triggers, or a function) applies them all again.
 * `owner` works as the connecting role, after the migrations, under the start-up lock.
 * Answers whether the files were applied.
 */
export async function applyFunctions(owner: Db, files = functionFiles()): Promise<boolean> {
  await owner.execute(
    sql`create table if not exists ${APPLIED_TABLE} (id integer primary key, checksum text not null, applied_at timestamptz not null default now())`,
  );
  const [migrations] = await rowsOf<{ n: number; last: string | null }>(
    owner,
    sql`select count(*)::int as n, max(created_at)::text as last from drizzle.__drizzle_migrations`,
  );
  const checksum = checksumOf(files, `${migrations?.n}:${migrations?.last}`);
  const [applied] = await rowsOf<{ checksum: string }>(owner, sql`select checksum from ${APPLIED_TABLE} where id = 1`);
  if (applied?.checksum === checksum) return false;
  await owner.transaction(async (tx) => {
    for (const file of files) {
      try {
        await tx.execute(sql.raw(file.text));
      } catch (err) {
        throw new Error(`server/db/functions/${file.name}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
    }
    await tx.execute(
      sql`insert into ${APPLIED_TABLE} (id, checksum) values (1, ${checksum}) on conflict (id) do update set checksum = excluded.checksum, applied_at = now()`,
    );
  });
  return true;
}

function checksumOf(files: FunctionFile[], migrations: string): string {
  const hash = createHash('sha256').update(migrations);
  for (const file of files) hash.update(`\0${file.name}\0${file.text}`);
  return hash.digest('hex');
}

/** Forgets the last applied set, so that the next start applies every file again (tests). */
export async function forgetAppliedFunctions(owner: Db): Promise<void> {
  await owner.execute(sql`delete from ${APPLIED_TABLE}`);
}

/** The functions a definition file creates, each with its body as the database keeps it (prosrc). */
export function definedFunctions(text: string): { name: string; body: string }[] {
  const found: { name: string; body: string }[] = [];
  const header = /CREATE\s+OR\s+REPLACE\s+FUNCTION\s+(\w+)\s*\(/gi;
  for (let m = header.exec(text); m; m = header.exec(text)) {
    const quote = /\bAS\s+(\$\w*\$)/gi;
    quote.lastIndex = header.lastIndex;
    const open = quote.exec(text);
    if (!open) throw new Error(`function ${m[1]}: no body in dollar quotes`);
    const start = quote.lastIndex;
    const end = text.indexOf(open[1], start);
    if (end < 0) throw new Error(`function ${m[1]}: its body's ${open[1]} is not closed`);
    found.push({ name: m[1], body: text.slice(start, end) });
    header.lastIndex = end + open[1].length;
  }
  return found;
}

/** The last migration that could define a function: every later one leaves them to the definition files. */
const LAST_MIGRATION_WITH_FUNCTIONS = 27;

/**
 * The migrations after 0027 that create a function or a trigger (their comments left out): a
 * function's new definition goes in its file of server/db/functions, never in a migration's copy.
 */
export function migrationsDefiningFunctions(folder: string): string[] {
  return readdirSync(folder)
    .filter((name) => /^\d{4}_.*\.sql$/.test(name) && Number(name.slice(0, 4)) > LAST_MIGRATION_WITH_FUNCTIONS)
    .sort()
    .filter((name) => {
      const code = readFileSync(join(folder, name), 'utf8').replace(/--[^\n]*/g, '');
      return /\bCREATE\s+(OR\s+REPLACE\s+)?(FUNCTION|PROCEDURE|TRIGGER)\b/i.test(code);
    });
}

import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import * as schema from './schema';

export type Schema = typeof schema;
/** The Drizzle handle every query function takes; PGlite and node-postgres share this shape. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** A Drizzle handle or an open transaction on it. */
export type Executor = Db | Parameters<Parameters<Db['transaction']>[0]>[0];

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Answers when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('./migrations', import.meta.url));

export class DataDirLockedError extends Error {}

/**
 * Only one process may open an embedded data directory: a lock file holds the owner's pid; a lock
 * left by a process that no longer runs is taken over.
 */
function lockDataDir(dir: string): () => void {
  const lockPath = join(dir, 'server.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockPath, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readFileSync(lockPath, 'utf8').trim());
      if (owner && owner !== process.pid && isRunning(owner)) {
        throw new DataDirLockedError(
          `The data directory ${resolve(dir)} is already in use by another server process (pid ${owner}). ` +
            'Stop that process first, or set DATA_DIR to another folder.',
        );
      }
      rmSync(lockPath, { force: true });
    }
  }
  throw new DataDirLockedError(`Could not lock the data directory ${resolve(dir)}.`);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface OpenOptions {
  /** postgres:// URL; unset opens the embedded database. */
  url?: string;
  /** Embedded data directory; unset with no url gives an in-memory database (tests). */
  dataDir?: string;
  /** Pool size for PostgreSQL. */
  poolSize?: number;
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  const database = options.url ? await openPostgres(options.url, options.poolSize ?? 10) : await openPglite(options.dataDir);
  try {
    await migrateDatabase(database);
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}

/**
 * The embedded database runs in a worker thread (server/db/embedded) and is reached over a private
 * Unix socket with node-postgres: one driver for both databases, and the event loop never waits
 * on a query. PGlite serves one session, so the pool holds one connection.
 */
async function openPglite(dataDir?: string): Promise<Database> {
  const { startEmbedded } = await import('./embedded/host');
  let unlock = () => {};
  let pgDir: string | undefined;
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    unlock = lockDataDir(dataDir);
    pgDir = join(dataDir, 'pglite');
  }
  try {
    const embedded = await startEmbedded(pgDir);
    const database = await openPostgres(
      { host: embedded.socketDir, port: embedded.port, user: 'postgres', database: 'postgres' },
      1,
      'pglite',
    );
    return {
      ...database,
      close: async () => {
        try {
          await database.close();
          await embedded.stop();
        } finally {
          unlock();
        }
      },
    };
  } catch (err) {
    unlock();
    throw err;
  }
}

type Target = string | { host: string; port: number; user: string; database: string };

async function openPostgres(target: Target, poolSize: number, kind: Database['kind'] = 'postgres'): Promise<Database> {
  const pg = await import('pg');
  const { drizzle } = await import('drizzle-orm/node-postgres');
  const where = typeof target === 'string' ? { connectionString: target } : target;
  const pool = new pg.default.Pool({ ...where, max: poolSize, connectionTimeoutMillis: kind === 'pglite' ? 0 : 5000 });
  // An idle client losing its connection (a database restart) must not crash the process.
  pool.on('error', () => {});
  const db = drizzle({ client: pool, schema }) as unknown as Db;
  return {
    db,
    kind,
    ping: async () => {
      await pool.query('select 1');
    },
    close: async () => {
      await pool.end();
    },
  };
}

export async function migrateDatabase(database: Database): Promise<void> {
  const { migrate } = await import('drizzle-orm/node-postgres/migrator');
  await migrate(database.db as never, { migrationsFolder: MIGRATIONS_FOLDER });
}

export { sql };

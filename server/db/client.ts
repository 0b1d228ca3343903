import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { Pool, PoolClient, QueryConfig } from 'pg';
import * as schema from './schema';
import { currentScope, roleOf, scopeKey, scopeSettings } from './scope';
import { ChangeFeed } from './changes';
import { applyFunctions } from './functions';
import { hearOnPooled, SharedListener, startHearing } from './listening';

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
  /**
   * Runs `fn` while no other server process on this database runs start-up work: on PostgreSQL it
   * holds the start-up advisory lock (the one the migrations take) on a connection of its own;
   * the embedded database serves one process anyway (the data-directory lock). `owner` works as
   * the connecting role, outside row-level security.
   */
  exclusive<T>(fn: (owner: Db) => Promise<T>): Promise<T>;
  /** What committed writes changed, as the database announces it (server/db/changes.ts). */
  changes: ChangeFeed;
  close(): Promise<void>;
}

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('./migrations', import.meta.url));

export class DataDirLockedError extends Error {}

/**
 * The advisory lock key of start-up work on PostgreSQL (migrations, the signing secret, the first
 * super admin, tenant and Demo service): server processes starting together on one database take
 * turns. Advisory locks belong to one database, so other databases on the server are not held up.
 */
export const START_LOCK_KEY = 7_306_135_201_112n;

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
  /** In-memory embedded database only: start as a copy of this dump (embeddedTemplate). */
  from?: Uint8Array;
}

/**
 * Opens the database, brings its schema up to date as the connecting (owner) role, and hands out a
 * Drizzle handle whose every query runs as the application role under row-level security.
 */
export async function openDatabase(options: OpenOptions): Promise<Database> {
  return options.url ? await openPostgres(options.url, options.poolSize ?? 10) : await openPglite(options.dataDir, options.from);
}

/**
 * A dump of a freshly migrated in-memory embedded database: opening with it as `from` gives the
 * same database as migrating an empty one, without replaying every migration (the tests' template).
 */
export async function embeddedTemplate(): Promise<Uint8Array> {
  const { startEmbedded } = await import('./embedded/host');
  const embedded = await startEmbedded();
  try {
    const database = await openPostgres(embeddedTarget(embedded), 1, 'pglite');
    await database.close();
    return await embedded.dump();
  } finally {
    await embedded.stop();
  }
}

/**
 * The embedded database runs in a worker thread (server/db/embedded) and is reached over a private
 * Unix socket with node-postgres: one driver for both databases, and the event loop never waits
 * on a query. PGlite serves one session, so the pool holds one connection.
 */
async function openPglite(dataDir?: string, from?: Uint8Array): Promise<Database> {
  const { startEmbedded } = await import('./embedded/host');
  let unlock = () => {};
  let pgDir: string | undefined;
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    unlock = lockDataDir(dataDir);
    pgDir = join(dataDir, 'pglite');
  }
  try {
    const embedded = await startEmbedded(pgDir, from);
    let database: Database;
    try {
      database = await openPostgres(embeddedTarget(embedded), 1, 'pglite');
    } catch (err) {
      await embedded.stop();
      throw err;
    }
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

const embeddedTarget = (embedded: { socketDir: string; port: number }): Target => ({
  host: embedded.socketDir,
  port: embedded.port,
  user: 'postgres',
  database: 'postgres',
});

async function openPostgres(target: Target, poolSize: number, kind: Database['kind'] = 'postgres'): Promise<Database> {
  const pg = await import('pg');
  const { drizzle } = await import('drizzle-orm/node-postgres');
  const where = typeof target === 'string' ? { connectionString: target } : target;
  const pool = new pg.default.Pool({ ...where, max: poolSize, connectionTimeoutMillis: kind === 'pglite' ? 0 : 5000 });
  // An idle client losing its connection (a database restart) must not crash the process.
  pool.on('error', () => {});
  const changes = new ChangeFeed();
  pool.on('connect', (client) => hearOnPooled(client, kind, changes));
  // PGlite serves one session (one pooled connection): a connection held for a lock would leave
  // none for the work under it, and its data-directory lock already makes the process alone.
  const exclusive = async <T>(fn: (owner: Db) => Promise<T>): Promise<T> =>
    kind === 'pglite'
      ? await fn(drizzle({ client: new OwnerPool(pool) as unknown as Pool, schema }) as unknown as Db)
      : await underStartLock(pool, (client) => fn(drizzle({ client, schema }) as unknown as Db));
  try {
    const { migrate } = await import('drizzle-orm/node-postgres/migrator');
    // Processes starting together on an empty or older database would otherwise all run the same
    // migrations at once, and all but one fail on the objects the first creates.
    // Then each function's and trigger's one current definition (server/db/functions).
    await exclusive(async (owner) => {
      await migrate(owner as Parameters<typeof migrate>[0], { migrationsFolder: MIGRATIONS_FOLDER });
      await applyFunctions(owner);
    });
  } catch (err) {
    await pool.end();
    throw err;
  }
  let listener: SharedListener | undefined;
  if (kind === 'postgres') {
    listener = new SharedListener(() => new pg.default.Client(where), changes);
    try {
      await listener.start();
    } catch (err) {
      await pool.end();
      throw err;
    }
  }
  const db = drizzle({ client: new ScopedPool(pool) as unknown as Pool, schema }) as unknown as Db;
  return {
    db,
    kind,
    ping: async () => {
      await pool.query('select 1');
    },
    exclusive,
    changes,
    close: async () => {
      await listener?.stop();
      await pool.end();
    },
  };
}

/**
 * Runs `fn` on one connection holding the start-up advisory lock, waiting for it as long as another
 * process holds it. A process that dies while holding it loses its connection, and with it the lock.
 */
async function underStartLock<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await startHearing(client);
    await asOwner(client);
    await client.query('select pg_advisory_lock($1)', [START_LOCK_KEY.toString()]);
    try {
      return await fn(client);
    } finally {
      await client.query('select pg_advisory_unlock($1)', [START_LOCK_KEY.toString()]);
    }
  } catch (err) {
    // A connection that failed mid-way may still hold the lock: dropping it releases the lock.
    broken = err instanceof Error ? err : new Error(String(err));
    throw err;
  } finally {
    client.release(broken);
  }
}

const APPLIED = Symbol('catalog.scope');
type ScopedClient = PoolClient & { [APPLIED]?: string };

/**
 * Makes a connection work as the connecting (owner) role again, for start-up work: one the
 * application's pool switched to its role is switched back, and marked so that the application's
 * pool switches it again at its next checkout.
 */
async function asOwner(client: ScopedClient): Promise<void> {
  if (client[APPLIED] === undefined) return;
  client[APPLIED] = undefined;
  await client.query('reset role');
}

/** A connection from the pool, prepared before use; one whose preparation failed goes back broken. */
async function checkout(pool: Pool, prepare: (client: PoolClient) => Promise<unknown>): Promise<PoolClient> {
  const client = await pool.connect();
  try {
    await startHearing(client);
    await prepare(client);
  } catch (err) {
    client.release(err as Error);
    throw err;
  }
  return client;
}

/** The pool of start-up work on the embedded database: its connections work as the owner role. */
class OwnerPool {
  constructor(private readonly pool: Pool) {}

  connect(): Promise<PoolClient> {
    return checkout(this.pool, asOwner);
  }

  async query(config: string | QueryConfig, values?: unknown[]) {
    const client = await this.connect();
    try {
      return await client.query(config as QueryConfig, values);
    } finally {
      client.release();
    }
  }
}

/**
 * The pool Drizzle queries through. Every connection it hands out works as the application role,
 * or the system scope's role (neither owns a table, so row-level security applies to both), with the scope of the code that asked
 * (server/db/scope.ts): the settings are sent only when a connection's last scope differs.
 * Drizzle recognises a pool by its class name.
 */
class ScopedPool {
  constructor(private readonly pool: Pool) {}

  connect(): Promise<PoolClient> {
    return checkout(this.pool, (client) => applyScope(client as ScopedClient));
  }

  async query(config: string | QueryConfig, values?: unknown[]) {
    const client = await this.connect();
    let failure: Error | undefined;
    try {
      return await client.query(config as QueryConfig, values);
    } catch (err) {
      // A statement the database refused leaves the connection usable; anything else drops it.
      if (!(err instanceof Error && 'severity' in err)) failure = err as Error;
      throw err;
    } finally {
      client.release(failure);
    }
  }
}

async function applyScope(client: ScopedClient): Promise<void> {
  const scope = currentScope();
  const key = scopeKey(scope);
  if (client[APPLIED] === key) return;
  const settings = scopeSettings(scope);
  client[APPLIED] = undefined;
  await client.query("select set_config('role', $1, false), set_config('catalog.scope', $2, false), set_config('catalog.tenant_id', $3, false)", [
    roleOf(scope),
    settings.scope,
    settings.tenantId,
  ]);
  client[APPLIED] = key;
}

export { sql };

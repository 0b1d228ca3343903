import { sql } from 'drizzle-orm';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedJwtSecret } from '../auth/secrets';
import { openTestDatabase } from '../test/db';
import { createPostgresDatabase } from '../test/reliability/server';
import { MIGRATIONS_FOLDER, openDatabase, START_LOCK_KEY, type Database } from './client';
import { APP_ROLE, SYSTEM_ROLE } from './scope';

/**
 * Start-up work of several processes on one database (docs/decisions/0112-shared-limits.md): the
 * migrations and the first-start setup take turns under an advisory lock, and the signing secret is
 * kept once in the database. The secret runs on the test database (embedded or PostgreSQL); the
 * lock only on PostgreSQL: the embedded database serves one process by design (its data-directory
 * lock), and runs start-up work without it.
 */
describe('the signing secret kept in the database', () => {
  let database: Database;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ database, dispose } = await openTestDatabase());
  });
  afterAll(() => dispose());

  it('is stored by the first caller and read back by every later one', async () => {
    const first = await database.exclusive((owner) => sharedJwtSecret(owner, 'a'.repeat(40)));
    const second = await database.exclusive((owner) => sharedJwtSecret(owner, 'b'.repeat(40)));
    const generated = await database.exclusive((owner) => sharedJwtSecret(owner));
    expect([first, second, generated]).toEqual(['a'.repeat(40), 'a'.repeat(40), 'a'.repeat(40)]);
  });

  it('is read as the owner even on a connection the application used, which then works as the application again', async () => {
    const user = async (db: Database['db']) => ((await db.execute(sql`select current_user as name`)) as unknown as { rows: { name: string }[] }).rows[0]!.name;
    // Outside a request the application works in the system scope, as that scope's role (migration 0016).
    expect(await user(database.db)).toBe(SYSTEM_ROLE);
    expect([APP_ROLE, SYSTEM_ROLE]).not.toContain(await database.exclusive((owner) => user(owner)));
    expect(await database.exclusive((owner) => sharedJwtSecret(owner))).toBe('a'.repeat(40));
    expect(await user(database.db)).toBe(SYSTEM_ROLE);
  });

  it('cannot be read by the application role', async () => {
    const err = await database.db.execute(sql`select value from server_settings`).then(
      () => null,
      (e: Error) => e,
    );
    // insufficient_privilege, from the database under the query builder's error
    expect((err?.cause as { code?: string } | undefined)?.code).toBe('42501');
  });
});

const base = process.env.TEST_DATABASE_URL;
describe.skipIf(!base)('start-up on PostgreSQL, several processes at once', () => {
  const drops: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const drop of drops) await drop();
  });

  it('migrates an empty database once when four openings race', async () => {
    const fresh = await createPostgresDatabase(base!, 'catalog_start');
    drops.push(fresh.drop);
    const opened = await Promise.allSettled(Array.from({ length: 4 }, () => openDatabase({ url: fresh.url, poolSize: 3 })));
    const databases = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    try {
      expect(opened.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason))).toEqual([]);
      const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] };
      const client = new pg.Client({ connectionString: fresh.url });
      await client.connect();
      try {
        const { rows } = await client.query('select count(*)::int as n from drizzle.__drizzle_migrations');
        expect(rows[0].n).toBe(journal.entries.length);
      } finally {
        await client.end();
      }
    } finally {
      for (const d of databases) await d.close();
    }
  });

  it('runs start-up work one process at a time, and agrees on one secret', async () => {
    const fresh = await createPostgresDatabase(base!, 'catalog_start');
    drops.push(fresh.drop);
    const databases = await Promise.all(Array.from({ length: 3 }, () => openDatabase({ url: fresh.url, poolSize: 3 })));
    try {
      const spans: Array<[number, number]> = [];
      const secrets = await Promise.all(
        databases.map((d, i) =>
          d.exclusive(async (owner) => {
            const started = performance.now();
            await new Promise((r) => setTimeout(r, 150));
            const secret = await sharedJwtSecret(owner, String(i).repeat(40));
            spans.push([started, performance.now()]);
            return secret;
          }),
        ),
      );
      expect(new Set(secrets).size).toBe(1);
      spans.sort((x, y) => x[0] - y[0]);
      for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
      // The lock is let go afterwards: another session takes it at once.
      const client = new pg.Client({ connectionString: fresh.url });
      await client.connect();
      try {
        const { rows } = await client.query('select pg_try_advisory_lock($1) as got', [START_LOCK_KEY.toString()]);
        expect(rows[0].got).toBe(true);
      } finally {
        await client.end();
      }
    } finally {
      for (const d of databases) await d.close();
    }
  });

  it('lets the lock go when the work under it fails', async () => {
    const fresh = await createPostgresDatabase(base!, 'catalog_start');
    drops.push(fresh.drop);
    const database = await openDatabase({ url: fresh.url, poolSize: 2 });
    try {
      await expect(database.exclusive(async () => Promise.reject(new Error('setup failed')))).rejects.toThrow('setup failed');
      expect(await database.exclusive(async () => 'next')).toBe('next');
    } finally {
      await database.close();
    }
  });
});

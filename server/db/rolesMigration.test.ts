import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { MIGRATIONS_FOLDER } from './client';

/**
 * Migration 0025 (roles per membership, docs/decisions/0144-roles-per-membership.md) on a database
 * of the release before it: every person keeps the role they held, in each of their tenants, and
 * gains a membership of their primary tenant where they had none.
 */
const BEFORE = '0024_csv_applies';

/** The migrations folder as it was up to `last`: the same files, the journal cut after it. */
function folderUpTo(last: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-migrations-'));
  cpSync(MIGRATIONS_FOLDER, dir, { recursive: true });
  const journalFile = join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((e) => e.tag === last);
  expect(at, `migration ${last}`).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, at + 1);
  writeFileSync(journalFile, JSON.stringify(journal));
  return dir;
}

interface Runner {
  query: (text: string) => Promise<{ rows: Record<string, unknown>[] }>;
  migrate: (folder: string) => Promise<void>;
  close: () => Promise<void>;
}

async function openRunner(): Promise<Runner> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) {
    const client = await PGlite.create({ extensions: { pg_trgm } });
    const db = drizzlePglite({ client });
    return {
      query: async (text) => ({ rows: (await client.query(text)).rows as Record<string, unknown>[] }),
      migrate: (folder) => migratePglite(db, { migrationsFolder: folder }),
      close: () => client.close(),
    };
  }
  const name = `catalog_upgrade_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  const db = drizzlePg({ client });
  return {
    query: (text) => client.query(text),
    migrate: (folder) => migratePg(db, { migrationsFolder: folder }),
    close: async () => {
      await client.end();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

const folders: string[] = [];
afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe('migration 0025: roles per membership', () => {
  it('gives each membership the role its person held, and every person a membership of their primary tenant', async () => {
    const runner = await openRunner();
    try {
      const before = folderUpTo(BEFORE);
      folders.push(before);
      await runner.migrate(before);
      await runner.query(`insert into tenants (id, name, slug) values
        ('00000000-0000-4000-8000-0000000000a1', 'Home', 'home'), ('00000000-0000-4000-8000-0000000000a2', 'Other', 'other')`);
      // An editor of Home who is also a member of Other; an admin of Home with no membership row of Home.
      await runner.query(`insert into users (id, email, name, role, tenant_id) values
        ('00000000-0000-4000-8000-0000000000b1', 'editor@example.com', 'Editor', 'editor', '00000000-0000-4000-8000-0000000000a1'),
        ('00000000-0000-4000-8000-0000000000b2', 'admin@example.com', 'Admin', 'admin', '00000000-0000-4000-8000-0000000000a1')`);
      await runner.query(`insert into tenant_memberships (user_id, tenant_id) values
        ('00000000-0000-4000-8000-0000000000b1', '00000000-0000-4000-8000-0000000000a1'),
        ('00000000-0000-4000-8000-0000000000b1', '00000000-0000-4000-8000-0000000000a2')`);

      await runner.migrate(MIGRATIONS_FOLDER);
      const { rows } = await runner.query(
        `select u.email, m.tenant_id::text as tenant, m.role from tenant_memberships m join users u on u.id = m.user_id order by 1, 2`,
      );
      expect(rows).toEqual([
        { email: 'admin@example.com', tenant: '00000000-0000-4000-8000-0000000000a1', role: 'admin' },
        { email: 'editor@example.com', tenant: '00000000-0000-4000-8000-0000000000a1', role: 'editor' },
        { email: 'editor@example.com', tenant: '00000000-0000-4000-8000-0000000000a2', role: 'editor' },
      ]);
    } finally {
      await runner.close();
    }
  }, 120_000);
});

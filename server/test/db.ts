import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import { openDatabase, type Database } from '../db';
import { adminQuery, databaseUrl } from './templates';

/** The migrated databases a Vitest run copies (server/test/globalSetup.ts). */
export interface DatabaseTemplates {
  /** File holding a dump of a migrated embedded database. */
  embedded: string;
  /** Name of a migrated PostgreSQL database on TEST_DATABASE_URL's server. */
  postgres?: string;
}

let embeddedDump: Uint8Array | undefined;

/**
 * A fresh database for one test file: in-memory PGlite by default; with TEST_DATABASE_URL (or
 * `base`, a PostgreSQL server's address; null for PGlite whatever the environment says) a new
 * PostgreSQL database created for the file and dropped afterwards. Either starts as a copy of the
 * run's migrated template, so it is the freshly migrated database without replaying migrations.
 */
export async function openTestDatabase(
  base: string | null = process.env.TEST_DATABASE_URL ?? null,
): Promise<{ database: Database; dispose: () => Promise<void>; url?: string }> {
  const templates = inject('databaseTemplates');
  if (!base) {
    embeddedDump ??= templates ? new Uint8Array(readFileSync(templates.embedded)) : undefined;
    const database = await openDatabase({ from: embeddedDump });
    return { database, dispose: () => database.close() };
  }
  const name = `catalog_test_${randomBytes(6).toString('hex')}`;
  // The run's template lives on TEST_DATABASE_URL's server; another server's database is migrated.
  const template = templates?.postgres && sameServer(base, process.env.TEST_DATABASE_URL) ? ` template ${templates.postgres}` : '';
  await adminQuery(base, `create database ${name}${template}`);
  const url = databaseUrl(base, name);
  const database = await openDatabase({ url, poolSize: 5 });
  return {
    database,
    url,
    dispose: async () => {
      await database.close();
      await adminQuery(base, `drop database if exists ${name} with (force)`);
    },
  };
}

const sameServer = (a: string, b: string | undefined) => b !== undefined && new URL(a).host === new URL(b).host;

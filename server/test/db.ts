import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../db';

/**
 * A fresh database for one test file: in-memory PGlite by default; with TEST_DATABASE_URL (or
 * `base`, a PostgreSQL server's address; null for PGlite whatever the environment says) a new
 * PostgreSQL database created for the file and dropped afterwards.
 */
export async function openTestDatabase(
  base: string | null = process.env.TEST_DATABASE_URL ?? null,
): Promise<{ database: Database; dispose: () => Promise<void>; url?: string }> {
  if (!base) {
    const database = await openDatabase({});
    return { database, dispose: () => database.close() };
  }
  const name = `catalog_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(base, `create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString(), poolSize: 5 });
  return {
    database,
    url: url.toString(),
    dispose: async () => {
      await database.close();
      await adminQuery(base, `drop database if exists ${name} with (force)`);
    },
  };
}

async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

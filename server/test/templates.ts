import pg from 'pg';
import { openDatabase } from '../db';

/**
 * Creates the PostgreSQL database `name` on `base`'s server and migrates it, for CREATE DATABASE
 * ... TEMPLATE: it then takes no connections, as PostgreSQL copies a template only while nobody
 * is connected to it.
 */
export async function migratePostgresTemplate(base: string, name: string): Promise<void> {
  await adminQuery(base, `create database ${name}`);
  const database = await openDatabase({ url: databaseUrl(base, name), poolSize: 1 });
  await database.close();
  await adminQuery(base, `alter database ${name} with allow_connections false`);
}

/** The address of database `name` on `base`'s server. */
export function databaseUrl(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

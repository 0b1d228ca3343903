import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { embeddedTemplate } from '../db';
import type { DatabaseTemplates } from './db';
import { adminQuery, migratePostgresTemplate } from './templates';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseTemplates: DatabaseTemplates;
  }
}

/**
 * Migrates one database per Vitest run, which every test file's database then copies
 * (server/test/db.ts): a dump of a migrated embedded database, and with TEST_DATABASE_URL a
 * migrated PostgreSQL database named for this run, which takes no connections once migrated
 * (PostgreSQL copies a template only while nobody is connected to it). Both go at the end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const base = process.env.TEST_DATABASE_URL || null;
  const folder = mkdtempSync(join(tmpdir(), 'catalog-template-'));
  const name = base ? `catalog_template_${randomBytes(6).toString('hex')}` : undefined;
  const cleanup = async () => {
    rmSync(folder, { recursive: true, force: true });
    if (base && name) await adminQuery(base, `drop database if exists ${name} with (force)`);
  };
  try {
    const embedded = join(folder, 'embedded.tar');
    const [dump] = await Promise.all([embeddedTemplate(), base && name ? migratePostgresTemplate(base, name) : undefined]);
    writeFileSync(embedded, dump);
    project.provide('databaseTemplates', { embedded, postgres: name });
  } catch (err) {
    await cleanup();
    throw err;
  }
  return cleanup;
}

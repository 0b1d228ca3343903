import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../test/db';
import type { Database, Db } from './client';
import { MIGRATIONS_FOLDER } from './client';
import { applyFunctions, definedFunctions, forgetAppliedFunctions, functionFiles, migrationsDefiningFunctions, rowsOf, type FunctionFile } from './functions';

let database: Database;
let dispose: () => Promise<void>;

beforeAll(async () => {
  ({ database, dispose } = await openTestDatabase());
});
afterAll(async () => {
  await dispose();
});

/** The application's own functions (those of extensions left out): name, source and definition. */
async function liveFunctions(owner: Db) {
  return rowsOf<{ name: string; src: string; def: string; acl: string | null }>(
    owner,
    sql`
    select p.proname as name, p.prosrc as src, pg_get_functiondef(p.oid) as def, p.proacl::text as acl
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname = 'public'
       and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
     order by p.proname, def`,
  );
}

async function liveTriggers(owner: Db): Promise<string[]> {
  const result = await rowsOf<{ def: string }>(
    owner,
    sql`select pg_get_triggerdef(t.oid) as def from pg_trigger t where not t.tgisinternal order by t.tgrelid::regclass::text, t.tgname`,
  );
  return result.map((r) => r.def);
}

/** Runs `fn` in a transaction that is rolled back, so the file's database is left as it was. */
async function thenRollBack(owner: Db, fn: (tx: Db) => Promise<void>): Promise<void> {
  const undo = new Error('roll back');
  await expect(
    owner.transaction(async (tx) => {
      await fn(tx as unknown as Db);
      throw undo;
    }),
  ).rejects.toBe(undo);
}

describe('database functions, each defined in one file of server/db/functions', () => {
  it('has one file per function of the migrated database, and the function runs the body the file gives', async () => {
    const files = functionFiles();
    const live = await database.exclusive(liveFunctions);
    expect(live.length).toBeGreaterThan(0);
    const fromFiles = files.flatMap((file) => definedFunctions(file.text).map((f) => ({ ...f, file: file.name })));
    // One function per file, named as the file.
    expect(fromFiles.map((f) => `${f.name}.sql`)).toEqual(files.map((f) => f.name));
    expect(live.map((f) => f.name).sort()).toEqual(fromFiles.map((f) => f.name).sort());
    for (const fn of live) {
      expect(fn.src, `the body of ${fn.name} in the database and in server/db/functions/${fn.name}.sql`).toBe(fromFiles.find((f) => f.name === fn.name)!.body);
    }
  });

  it('makes, from the files alone, every function and trigger exactly as the migrated database has them', async () => {
    await database.exclusive(async (owner) => {
      const functionsBefore = await liveFunctions(owner);
      const triggersBefore = await liveTriggers(owner);
      expect(triggersBefore.length).toBeGreaterThan(0);
      await thenRollBack(owner, async (tx) => {
        for (const fn of functionsBefore) await tx.execute(sql.raw(`drop function if exists ${fn.name} cascade`));
        expect(await liveTriggers(tx)).toEqual([]);
        await forgetAppliedFunctions(tx);
        expect(await applyFunctions(tx)).toBe(true);
        expect(await liveFunctions(tx)).toEqual(functionsBefore);
        expect(await liveTriggers(tx)).toEqual(triggersBefore);
      });
    });
  });

  it('applies nothing when neither the files nor the migrations changed, and a changed file at the next start', async () => {
    await database.exclusive(async (owner) => {
      const files = functionFiles();
      expect(await applyFunctions(owner, files)).toBe(false);
      const marker = '-- changed in a later release';
      const changed: FunctionFile[] = files.map((f) =>
        f.name === 'catalog_announce_ids.sql' ? { ...f, text: f.text.replace('SELECT jsonb_build_array(', `${marker}\n  SELECT jsonb_build_array(`) } : f,
      );
      await thenRollBack(owner, async (tx) => {
        expect(await applyFunctions(tx, changed)).toBe(true);
        const live = await liveFunctions(tx);
        expect(live.find((f) => f.name === 'catalog_announce_ids')!.src).toContain(marker);
        expect(await applyFunctions(tx, changed)).toBe(false);
      });
    });
  });
});

describe('migrations after 0027', () => {
  it('define no function or trigger: a function changes in its file of server/db/functions', () => {
    expect(migrationsDefiningFunctions(MIGRATIONS_FOLDER)).toEqual([]);
  });

  it('are told apart when one copies a function body', () => {
    const dir = mkdtempSync(join(tmpdir(), 'catalog-migrations-'));
    try {
      writeFileSync(join(dir, '0027_landed.sql'), 'CREATE OR REPLACE FUNCTION old_copy() RETURNS void LANGUAGE sql AS $$ SELECT 1 $$;');
      writeFileSync(join(dir, '0028_new_table.sql'), '-- CREATE OR REPLACE FUNCTION is not written here\nCREATE TABLE "t" ("id" int);');
      writeFileSync(
        join(dir, '0029_copy.sql'),
        'create or replace function catalog_announce() returns trigger language plpgsql as $$ begin return null; end $$;',
      );
      writeFileSync(join(dir, '0030_trigger.sql'), 'CREATE TRIGGER t_insert AFTER INSERT ON t FOR EACH STATEMENT EXECUTE FUNCTION f();');
      expect(migrationsDefiningFunctions(dir)).toEqual(['0029_copy.sql', '0030_trigger.sql']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

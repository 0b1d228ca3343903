import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from './client';
import { TableUpkeeper, upkeepDue } from './upkeep';
import { openTestDatabase } from '../test/db';
import { buildTestApp } from '../test/app';

/** The embedded database's table upkeep (docs/decisions/0143-embedded-upkeep.md). */

interface ProbeCounters {
  live: number;
  dead: number;
  modified: number;
  vacuums: number;
  analyzes: number;
  rows: number;
}

/** A table that PostgreSQL's own autovacuum leaves alone, so that only the upkeep acts on it. */
async function createProbe(database: Database, name: string): Promise<void> {
  await database.exclusive((owner) => owner.execute(sql.raw(`create table ${name} (id int primary key, v text) with (autovacuum_enabled = false)`)));
}

/** 2,000 rows written, half of them changed and a quarter removed, and the counters sent at once. */
async function churn(database: Database, name: string): Promise<void> {
  await database.exclusive((owner) =>
    owner.transaction(async (tx) => {
      await tx.execute(sql.raw(`insert into ${name} select g, md5(g::text) from generate_series(1, 2000) g`));
      await tx.execute(sql.raw(`update ${name} set v = v || 'x' where id % 2 = 0`));
      await tx.execute(sql.raw(`delete from ${name} where id % 4 = 1`));
      await tx.execute(sql`select pg_stat_force_next_flush()`);
    }),
  );
}

async function probe(database: Database, name: string): Promise<ProbeCounters> {
  const res = await database.exclusive((owner) =>
    owner.execute(sql`
      select s.n_live_tup::int as live, s.n_dead_tup::int as dead, s.n_mod_since_analyze::int as modified,
             s.vacuum_count::int as vacuums, s.analyze_count::int as analyzes, c.reltuples::int as rows
        from pg_stat_user_tables s join pg_class c on c.oid = s.relid
       where s.relname = ${name}`),
  );
  return (res as unknown as { rows: ProbeCounters[] }).rows[0]!;
}

/** Waits until the probe's counters satisfy `ok` (the statistics reach the counters asynchronously). */
function until(database: Database, name: string, ok: (c: ProbeCounters) => boolean): Promise<ProbeCounters> {
  return vi.waitFor(
    async () => {
      const c = await probe(database, name);
      if (!ok(c)) throw new Error(`${name}: ${JSON.stringify(c)}`);
      return c;
    },
    { timeout: 15_000, interval: 200 },
  );
}

function recordingLog(): { log: () => FastifyBaseLogger; lines: unknown[][] } {
  const lines: unknown[][] = [];
  const logger = { debug: (...args: unknown[]) => lines.push(args), warn: () => {} } as unknown as FastifyBaseLogger;
  return { log: () => logger, lines };
}

describe("the upkeep's rule, PostgreSQL autovacuum's", () => {
  it('vacuums past 50 dead rows plus a fifth of the table, or 1,000 inserted plus a fifth; analyzes past 50 changed plus a tenth', () => {
    const table = { table: 't', rows: 0, bytes: 8192, dead: 0, insertedSinceVacuum: 0, modifiedSinceAnalyze: 0 };
    expect(upkeepDue(table)).toEqual({ table: 't', vacuum: false, analyze: false });
    expect(upkeepDue({ ...table, dead: 50 }).vacuum).toBe(false);
    expect(upkeepDue({ ...table, dead: 51 }).vacuum).toBe(true);
    expect(upkeepDue({ ...table, rows: 10_000, dead: 2_050 }).vacuum).toBe(false);
    expect(upkeepDue({ ...table, rows: 10_000, dead: 2_051 }).vacuum).toBe(true);
    expect(upkeepDue({ ...table, insertedSinceVacuum: 1_000 }).vacuum).toBe(false);
    expect(upkeepDue({ ...table, insertedSinceVacuum: 1_001 })).toEqual({ table: 't', vacuum: true, analyze: false });
    expect(upkeepDue({ ...table, rows: 10_000, modifiedSinceAnalyze: 1_050 }).analyze).toBe(false);
    expect(upkeepDue({ ...table, rows: 10_000, modifiedSinceAnalyze: 1_051 })).toEqual({ table: 't', vacuum: false, analyze: true });
  });

  it('vacuums and analyzes a table with rows that was never counted, whatever its counters say; an empty one it leaves', () => {
    const table = { table: 't', rows: -1, bytes: 8192, dead: 0, insertedSinceVacuum: 0, modifiedSinceAnalyze: 0 };
    expect(upkeepDue(table)).toEqual({ table: 't', vacuum: true, analyze: true });
    expect(upkeepDue({ ...table, bytes: 0 })).toEqual({ table: 't', vacuum: false, analyze: false });
  });
});

describe('a round of upkeep', () => {
  let database: Database;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ database, dispose } = await openTestDatabase());
  });
  afterAll(async () => dispose());

  it('vacuums and analyzes the tables that writes have taken past the rule, and only those, each once', async () => {
    await createProbe(database, 'upkeep_busy');
    await createProbe(database, 'upkeep_quiet');
    await database.exclusive((owner) => owner.execute(sql`insert into upkeep_quiet values (1, 'one')`));
    const { log, lines } = recordingLog();
    const upkeeper = new TableUpkeeper(database, log);
    // The quiet table's first row: never counted, so counted now; the busy one is still empty.
    const first = await upkeeper.runOnce();
    expect(first.find((t) => t.table === 'upkeep_quiet')).toMatchObject({ vacuum: true, analyze: true });
    expect(first.map((t) => t.table)).not.toContain('upkeep_busy');
    expect((await until(database, 'upkeep_quiet', (c) => c.vacuums >= 1)).rows).toBe(1);

    await churn(database, 'upkeep_busy');
    const before = await until(database, 'upkeep_busy', (c) => c.dead >= 1_000);
    expect(before).toMatchObject({ live: 1_500, vacuums: 0, analyzes: 0 });
    expect(before.dead).toBeGreaterThanOrEqual(1_000);
    lines.length = 0;
    const done = await upkeeper.runOnce();
    expect(done.find((t) => t.table === 'upkeep_busy')).toMatchObject({ vacuum: true, analyze: true });
    expect(done.map((t) => t.table)).not.toContain('upkeep_quiet');
    expect(lines).toEqual([[{ tables: done }, 'database upkeep']]);

    const after = await until(database, 'upkeep_busy', (c) => c.vacuums >= 1 && c.analyzes >= 1);
    // The dead rows are gone, and the planner knows the table's size.
    expect(after).toMatchObject({ dead: 0, modified: 0, vacuums: 1, analyzes: 1, rows: 1_500 });
    expect((await probe(database, 'upkeep_quiet')).vacuums).toBe(1);

    // Nothing has changed since: the next round leaves the table alone.
    expect((await upkeeper.runOnce()).map((t) => t.table)).not.toContain('upkeep_busy');
    await upkeeper.stop();
  });

  it('counts a table whose counters were lost (a database not shut down cleanly, or kept from before)', async () => {
    await createProbe(database, 'upkeep_lost');
    await churn(database, 'upkeep_lost');
    await until(database, 'upkeep_lost', (c) => c.dead >= 1_000);
    await database.exclusive((owner) => owner.execute(sql`select pg_stat_reset_single_table_counters('upkeep_lost'::regclass)`));
    expect(await until(database, 'upkeep_lost', (c) => c.dead === 0)).toMatchObject({ dead: 0, modified: 0, rows: -1 });
    const upkeeper = new TableUpkeeper(database, recordingLog().log);
    expect((await upkeeper.runOnce()).find((t) => t.table === 'upkeep_lost')).toMatchObject({ vacuum: true, analyze: true });
    expect((await until(database, 'upkeep_lost', (c) => c.vacuums >= 1)).rows).toBe(1_500);
    await upkeeper.stop();
  });

  it('does nothing once stopped', async () => {
    await createProbe(database, 'upkeep_after_stop');
    await churn(database, 'upkeep_after_stop');
    await until(database, 'upkeep_after_stop', (c) => c.dead >= 1_000);
    const upkeeper = new TableUpkeeper(database, recordingLog().log);
    await upkeeper.stop();
    expect(await upkeeper.runOnce()).toEqual([]);
    expect((await probe(database, 'upkeep_after_stop')).vacuums).toBe(0);
  });
});

describe('the server', () => {
  it('keeps the embedded database upkept every EMBEDDED_UPKEEP_SECONDS, by itself', async () => {
    const t = await buildTestApp({ EMBEDDED_UPKEEP_SECONDS: '1' }, null);
    try {
      await createProbe(t.database, 'upkeep_server');
      await churn(t.database, 'upkeep_server');
      const after = await until(t.database, 'upkeep_server', (c) => c.vacuums >= 1 && c.analyzes >= 1);
      expect(after).toMatchObject({ dead: 0, vacuums: 1, analyzes: 1, rows: 1_500 });
    } finally {
      await t.close();
    }
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)("leaves PostgreSQL's tables to its own autovacuum", async () => {
    const t = await buildTestApp({ EMBEDDED_UPKEEP_SECONDS: '1' });
    try {
      await createProbe(t.database, 'upkeep_server');
      await churn(t.database, 'upkeep_server');
      await until(t.database, 'upkeep_server', (c) => c.dead >= 1_000);
      // Three rounds' time of the embedded database's upkeep.
      await new Promise((r) => setTimeout(r, 3_000));
      expect(await probe(t.database, 'upkeep_server')).toMatchObject({ vacuums: 0, analyzes: 0 });
    } finally {
      await t.close();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { openDatabase, type Database } from '../client';

/** The embedded database behind its socket: failures, transactions and concurrency. */
let database: Database;
beforeAll(async () => {
  database = await openDatabase({});
});
afterAll(() => database.close());

describe('embedded database', () => {
  it('answers the next query right after a failed one', async () => {
    await expect(database.db.execute(sql`select * from no_such_table`)).rejects.toThrow();
    const rows = (await database.db.execute(sql`select 1 as one`)) as unknown as { rows: unknown[] };
    expect(rows.rows[0]).toEqual({ one: 1 });
  });

  it('rolls back a failed transaction and keeps serving', async () => {
    await expect(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`create temp table t_rollback (id int)`);
        await tx.execute(sql`select * from no_such_table`);
      }),
    ).rejects.toThrow();
    const res = (await database.db.execute(sql`select to_regclass('t_rollback') as t`)) as unknown as { rows: unknown[] };
    expect(res.rows[0]).toEqual({ t: null });
  });

  it('runs many concurrent queries and transactions without mixing them up', async () => {
    await database.db.execute(sql`create temp table t_counter (n int)`);
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 2
          ? database.db.transaction(async (tx) => {
              await tx.execute(sql`insert into t_counter values (1)`);
              await tx.execute(sql`insert into t_counter values (1)`);
            })
          : database.db.execute(sql`select count(*) from t_counter`),
      ),
    );
    const res = (await database.db.execute(sql`select count(*)::int as n from t_counter`)) as unknown as { rows: unknown[] };
    expect(res.rows[0]).toEqual({ n: 40 });
  });
});

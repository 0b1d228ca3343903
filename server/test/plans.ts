import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db';

/** Rows a plan node and its children read from one table: those returned and those filtered out after reading. */
function tableRowsRead(node: Record<string, unknown>, table: string): number {
  let own = 0;
  if (node['Relation Name'] === table) {
    const loops = Number(node['Actual Loops'] ?? 1);
    own = (Number(node['Actual Rows'] ?? 0) + Number(node['Rows Removed by Filter'] ?? 0)) * loops;
  }
  const children = (node.Plans as Record<string, unknown>[] | undefined) ?? [];
  return own + children.reduce((n, c) => n + tableRowsRead(c, table), 0);
}

/** Runs a statement under EXPLAIN ANALYZE, in the caller's scope, and answers how many rows of `table` its plan read. */
export async function rowsRead(db: Database['db'], statement: SQL, table: string): Promise<number> {
  const res = (await db.execute(sql`explain (analyze, format json) ${statement}`)) as unknown as { rows: Record<string, unknown>[] };
  const cell = Object.values(res.rows[0]!)[0];
  const plan = (typeof cell === 'string' ? JSON.parse(cell) : cell) as { Plan: Record<string, unknown> }[];
  return tableRowsRead(plan[0]!.Plan, table);
}

/** Gathers a table's statistics, as autovacuum does on PostgreSQL (the embedded database has none): only its owner may. */
export function analyze(database: Database, table: string): Promise<unknown> {
  return database.exclusive((owner) => owner.execute(sql.raw(`analyze ${table}`)));
}

/** VACUUM and ANALYZE, as autovacuum does: a GIN index's pending entries move into the index, which the planner then costs as it is. */
export function vacuumAnalyze(database: Database, table: string): Promise<unknown> {
  return database.exclusive((owner) => owner.execute(sql.raw(`vacuum analyze ${table}`)));
}

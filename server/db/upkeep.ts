import { sql, type SQL } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from './client';

/**
 * The upkeep of the embedded database's tables (docs/decisions/0143-embedded-upkeep.md): PGlite
 * runs no autovacuum, so without it the rows that updates and deletions leave behind would stay,
 * and the planner would never have the statistics that its plans on PostgreSQL rest on. Every
 * interval it reads the tables' counters and vacuums or analyzes, one table at a time, those that
 * PostgreSQL's autovacuum would, by the same rule and default thresholds.
 */

/** PostgreSQL's autovacuum defaults: a table is vacuumed past threshold + scale × its rows. */
const UPKEEP_RULE = {
  vacuum: { threshold: 50, scale: 0.2 },
  /** Rows inserted since the last vacuum (autovacuum_vacuum_insert_*): sets the visibility map for index-only scans. */
  insert: { threshold: 1000, scale: 0.2 },
  analyze: { threshold: 50, scale: 0.1 },
} as const;

export interface TableCounters {
  table: string;
  /** The rows the last vacuum or analyze counted; -1 before either. */
  rows: number;
  /** The table's size on disk. */
  bytes: number;
  dead: number;
  insertedSinceVacuum: number;
  modifiedSinceAnalyze: number;
}

export interface TableUpkeep {
  table: string;
  vacuum: boolean;
  analyze: boolean;
}

/**
 * What autovacuum would do to the table now: vacuum it, analyze it, both or neither. A table with
 * rows that was never vacuumed nor analyzed gets both: the counters start again from nothing when
 * the database was not shut down cleanly, and a database kept before the upkeep existed has none.
 */
export function upkeepDue(t: TableCounters): TableUpkeep {
  if (t.rows < 0 && t.bytes > 0) return { table: t.table, vacuum: true, analyze: true };
  const past = (count: number, rule: { threshold: number; scale: number }) => count > rule.threshold + rule.scale * Math.max(t.rows, 0);
  return {
    table: t.table,
    vacuum: past(t.dead, UPKEEP_RULE.vacuum) || past(t.insertedSinceVacuum, UPKEEP_RULE.insert),
    analyze: past(t.modifiedSinceAnalyze, UPKEEP_RULE.analyze),
  };
}

export interface UpkeepDone extends TableUpkeep {
  vacuumMs: number;
  analyzeMs: number;
}

export class TableUpkeeper {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<UpkeepDone[]> | null = null;
  private stopped = false;

  constructor(
    private readonly database: Database,
    private readonly log: () => FastifyBaseLogger,
  ) {}

  /** Runs a round every `everyMs` until stopped; the first one `everyMs` after the start. */
  start(everyMs: number): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => {
      if (this.running) return; // a round still under way: its own failure is logged once
      void this.runOnce().catch((err: unknown) => this.log().warn({ err }, 'database upkeep failed'));
    }, everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** One round: the tables due, each vacuumed or analyzed alone, so other work passes between them. */
  runOnce(): Promise<UpkeepDone[]> {
    this.running ??= this.round().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async round(): Promise<UpkeepDone[]> {
    const due = (await this.counters()).map(upkeepDue).filter((t) => t.vacuum || t.analyze);
    const done: UpkeepDone[] = [];
    for (const t of due) {
      if (this.stopped) break;
      const table = sql.identifier(t.table);
      // Apart, so that other work passes between the two as well.
      const vacuumMs = t.vacuum ? await this.timed(sql`VACUUM ${table}`) : 0;
      const analyzeMs = t.analyze && !this.stopped ? await this.timed(sql`ANALYZE ${table}`) : 0;
      done.push({ ...t, vacuumMs, analyzeMs });
    }
    if (done.length > 0) this.log().debug({ tables: done }, 'database upkeep');
    return done;
  }

  /** Runs one statement as the tables' owner, and answers how long it took. */
  private async timed(statement: SQL): Promise<number> {
    const started = performance.now();
    await this.database.exclusive((owner) => owner.execute(statement));
    return Math.round(performance.now() - started);
  }

  private async counters(): Promise<TableCounters[]> {
    const res = await this.database.exclusive((owner) =>
      owner.execute(sql`
        select s.relname as "table", c.reltuples::float8 as "rows", pg_relation_size(s.relid)::float8 as "bytes", s.n_dead_tup::float8 as "dead",
               s.n_ins_since_vacuum::float8 as "insertedSinceVacuum", s.n_mod_since_analyze::float8 as "modifiedSinceAnalyze"
          from pg_stat_user_tables s join pg_class c on c.oid = s.relid
         where s.schemaname = 'public'
         order by s.relname`),
    );
    return (res as unknown as { rows: TableCounters[] }).rows;
  }
}

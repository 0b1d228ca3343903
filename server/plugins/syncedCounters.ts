/**
 * A process's counts of its callers' calls, added to a count every process shares (the API rate
 * limit on PostgreSQL: `rate_limit_counters`), so that several processes limit a caller as one.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { asSystem } from '../db/scope';

/** A caller's calls in its window, and the milliseconds left of it (as @fastify/rate-limit's stores answer). */
export type Window = { current: number; ttl: number };

/** One caller's calls this process sent to the shared count, or has yet to. */
interface Counter {
  /** When the caller's window began, as the shared count says once it has answered. */
  windowStart: number;
  /** The shared count as last answered: every process's calls, this one's included. */
  shared: number;
  /** Calls on their way to the shared count. */
  sending: number;
  /** Calls counted here since the last sync. */
  pending: number;
}

/** A caller's calls to add to the shared count: `start` is the window this process counted them in. */
export interface SyncBatchItem {
  key: string;
  start: number;
  calls: number;
}
/** The shared count of a caller after the addition, and the start of its window there. */
export interface SyncResult {
  key: string;
  start: number;
  count: number;
}
export type SyncFn = (batch: SyncBatchItem[], now: number) => Promise<SyncResult[]>;

/** The sync interval of the PostgreSQL store: the most a process's view of a shared count lags. */
export const SYNC_INTERVAL_MS = 100;
/** The share of the limit one caller's unsent calls may reach before a process syncs at once. */
export const SYNC_BATCH_SHARE = 0.1;
/** Callers a process keeps counts for; past it the oldest are forgotten first. */
export const MAX_COUNTERS = 100_000;
/** How often a process forgets the callers whose window ended. */
export const PRUNE_EVERY_MS = 1000;

/**
 * Counts calls in the process at once, and adds them to a shared count every `intervalMs` in one
 * batch for all callers, or as soon as one caller has `batch` calls not yet sent (a caller going
 * fast, who is the one a limit is for); the answer brings back every other process's calls. A call
 * is admitted on this process's view: the shared count as last synced plus its own calls since. No
 * request waits for the shared count, and a process idle for a caller sends nothing. Across
 * processes a caller may therefore get past the limit by the calls the other processes admit
 * before their next sync has been answered: at most one sync's worth, `batch` calls or one
 * interval's, per process (docs/decisions/0112-shared-limits.md).
 */
export class SyncedCounters {
  private readonly counters = new Map<string, Counter>();
  private readonly dirty = new Set<string>();
  private readonly clock: () => number;
  private timer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> | undefined;
  private lastPrune = 0;
  private failing = false;

  constructor(
    private readonly sync: SyncFn,
    private readonly windowMs: number,
    private readonly options: { intervalMs?: number; batch?: number; now?: () => number; maxCounters?: number; onError?: (err: unknown) => void } = {},
  ) {
    this.clock = options.now ?? (() => Date.now());
  }

  /** Syncs every interval until `close`; the timer never keeps the process alive. */
  start(): this {
    this.timer ??= setInterval(() => void this.flush(), this.options.intervalMs ?? SYNC_INTERVAL_MS).unref();
    return this;
  }

  get size(): number {
    return this.counters.size;
  }

  /** Counts one call of `key` and answers the caller's count and the milliseconds left in its window. */
  incr(key: string, now = this.clock()): Window {
    let counter = this.counters.get(key);
    if (!counter || now >= counter.windowStart + this.windowMs) {
      // Re-inserted, so the map's order is the order of windows begun: the oldest goes first.
      this.counters.delete(key);
      counter = { windowStart: now, shared: 0, sending: 0, pending: 0 };
      this.counters.set(key, counter);
      const max = this.options.maxCounters ?? MAX_COUNTERS;
      while (this.counters.size > max) this.counters.delete(this.counters.keys().next().value!);
    }
    counter.pending++;
    this.dirty.add(key);
    if (counter.pending >= (this.options.batch ?? Infinity) && !this.syncing) void this.flush(now);
    return { current: counter.shared + counter.sending + counter.pending, ttl: this.ttl(counter, now) };
  }

  /** What is left of the window; never more than a window, whatever another process's clock said. */
  private ttl(counter: Counter, now: number): number {
    return Math.min(this.windowMs, counter.windowStart + this.windowMs - now);
  }

  /** The caller's count as this process sees it, without counting a call. */
  read(key: string, now = this.clock()): Window {
    const counter = this.counters.get(key);
    if (!counter || now >= counter.windowStart + this.windowMs) return { current: 0, ttl: 0 };
    return { current: counter.shared + counter.sending + counter.pending, ttl: this.ttl(counter, now) };
  }

  /** Sends the calls counted since the last sync and takes in the shared counts; one at a time. */
  flush(now = this.clock()): Promise<void> {
    this.syncing ??= this.send(now).finally(() => (this.syncing = undefined));
    return this.syncing;
  }

  private async send(now: number): Promise<void> {
    if (now - this.lastPrune >= PRUNE_EVERY_MS) this.prune(now);
    const batch: SyncBatchItem[] = [];
    const sent = new Map<string, Counter>();
    for (const key of this.dirty) {
      const counter = this.counters.get(key);
      if (!counter || counter.pending === 0) continue;
      counter.sending += counter.pending;
      batch.push({ key, start: counter.windowStart, calls: counter.pending });
      counter.pending = 0;
      sent.set(key, counter);
    }
    this.dirty.clear();
    if (!batch.length) return;
    try {
      const results = await this.sync(batch, now);
      for (const result of results) {
        const counter = sent.get(result.key);
        if (!counter) continue;
        // The shared window wins: every process then ends the caller's window at the same moment.
        counter.windowStart = result.start;
        counter.shared = result.count;
        counter.sending = 0;
      }
      this.failing = false;
    } catch (err) {
      // The calls stay counted here and go with the next sync; the limit holds per process meanwhile.
      for (const [key, counter] of sent) {
        counter.pending += counter.sending;
        counter.sending = 0;
        if (this.counters.get(key) === counter) this.dirty.add(key);
      }
      if (!this.failing) this.options.onError?.(err);
      this.failing = true;
    }
  }

  /** Forgets callers whose window ended with nothing left to send. */
  private prune(now: number): void {
    this.lastPrune = now;
    for (const [key, counter] of this.counters) {
      if (now >= counter.windowStart + this.windowMs && counter.pending === 0 && counter.sending === 0) this.counters.delete(key);
    }
  }

  /** Stops the interval and sends what is still counted here. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.syncing;
    await this.flush();
  }
}

/**
 * The shared count in PostgreSQL: one statement adds a batch of callers' calls to
 * `rate_limit_counters` and answers their totals. A caller's window that ended (by the clock of
 * the process that syncs) begins again with the calls sent. Rows of callers not seen for two
 * windows are deleted now and then.
 */
export function postgresSync(db: Db, windowMs: number): SyncFn {
  let lastPrune = 0;
  return (batch, now) =>
    // Started from the timer or from within a request (a caller's full batch): the table belongs to
    // no tenant, so the sync runs in the system scope whatever request it started in.
    asSystem(async () => {
      const res = await db.execute(sql`
        insert into rate_limit_counters as c (key, window_start, count)
        select * from unnest(${sql.param(batch.map((b) => b.key))}::text[],
                             ${sql.param(batch.map((b) => b.start))}::bigint[],
                             ${sql.param(batch.map((b) => b.calls))}::int[])
        on conflict (key) do update set
          window_start = case when c.window_start + ${windowMs}::bigint <= ${now}::bigint then excluded.window_start else c.window_start end,
          count = case when c.window_start + ${windowMs}::bigint <= ${now}::bigint then excluded.count else c.count + excluded.count end
        returning key, window_start, count`);
      if (now - lastPrune >= windowMs) {
        lastPrune = now;
        await db.execute(sql`delete from rate_limit_counters where window_start < ${now - 2 * windowMs}::bigint`);
      }
      const rows = (res as unknown as { rows: { key: string; window_start: string; count: number }[] }).rows;
      return rows.map((row) => ({ key: row.key, start: Number(row.window_start), count: row.count }));
    });
}

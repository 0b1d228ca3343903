import { createRequire } from 'node:module';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { sql } from 'drizzle-orm';
import type { Redis } from 'ioredis';
import type { Db } from '../db/client';
import { asSystem } from '../db/scope';
import type { HotLimit } from './hotReads';

/** @fastify/rate-limit's own stores: the in-memory one calls back before `incr` returns. */
const require = createRequire(import.meta.url);
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (continueExceeding: boolean, exponentialBackoff: boolean) => FastifyRateLimitStore;
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  key?: string,
) => FastifyRateLimitStore;

type Window = { current: number; ttl: number };
type IncrCallback = (err: Error | null, res?: Window) => void;

/**
 * The API rate limit's store, shared by the rate-limit plugin and the hot reads, so a caller's
 * requests count once whichever path answers them. `Store` is what the plugin instantiates (it
 * gets the shared instance); `take` counts a request at once and answers the plugin's headers, or
 * undefined when the request must take the full route (the caller is over the limit, and the full
 * route answers the 429, or the store cannot tell without waiting). `close` ends background work.
 */
export interface ApiRateLimiter {
  Store: FastifyRateLimitStoreCtor;
  take: HotLimit;
  close(): Promise<void>;
}

function limitHeaders(max: number, window: Window): Record<string, string> {
  return {
    'x-ratelimit-limit': String(max),
    'x-ratelimit-remaining': String(Math.max(0, max - window.current)),
    'x-ratelimit-reset': String(Math.ceil(window.ttl / 1000)),
  };
}

/** The plugin calls `new Store(options)`; a constructor that returns an object hands out that object. */
function constructorOf(store: FastifyRateLimitStore): FastifyRateLimitStoreCtor {
  function Store(): FastifyRateLimitStore {
    return store;
  }
  return Store as unknown as FastifyRateLimitStoreCtor;
}

/** In the process (the embedded database, which serves one process): @fastify/rate-limit's store. */
export function localRateLimiter(max: number, windowMs: number): ApiRateLimiter {
  const store = new LocalStore(false, false);
  const take = (key: string): Record<string, string> | undefined => {
    let window: Window | undefined;
    store.incr(key, (_err, res) => (window = res), windowMs, max);
    if (!window || window.current > max) return undefined;
    return limitHeaders(max, window);
  };
  return { Store: constructorOf(store), take, close: async () => {} };
}

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
const PRUNE_EVERY_MS = 1000;

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

/**
 * A store the plugin can use over synced counters: it answers before `incr` returns, like the
 * in-process one, so the plugin's hook and the hot reads never wait on the database. A route with
 * its own limit gets a child that counts under the route's name, in the same window.
 */
function syncedStore(counters: SyncedCounters, prefix = ''): FastifyRateLimitStore & { read(key: string, cb: IncrCallback): void } {
  return {
    incr: (key, cb) => cb(null, counters.incr(prefix + key)),
    read: (key, cb) => cb(null, counters.read(prefix + key)),
    child: (route) => syncedStore(counters, `${prefix}${String(route.method)}${route.url}-`),
  };
}

/**
 * Several processes on one PostgreSQL database: counted here, synced every `intervalMs` (100 ms) or
 * after a tenth of the limit of one caller's calls, whichever comes first.
 */
export function postgresRateLimiter(
  db: Db,
  max: number,
  windowMs: number,
  options: { intervalMs?: number; onError?: (err: unknown) => void } = {},
): ApiRateLimiter & { counters: SyncedCounters } {
  const batch = Math.max(1, Math.ceil(max * SYNC_BATCH_SHARE));
  const counters = new SyncedCounters(postgresSync(db, windowMs), windowMs, { ...options, batch }).start();
  const take = (key: string) => {
    const window = counters.incr(key);
    return window.current > max ? undefined : limitHeaders(max, window);
  };
  return { Store: constructorOf(syncedStore(counters)), take, close: () => counters.close(), counters };
}

/** What this process last heard from Redis about a caller, and its calls Redis has not answered yet. */
interface Heard {
  current: number;
  resetAt: number;
  /** Calls sent to Redis and not answered yet. */
  inFlight: number;
  /** Hot reads counted here, waiting for the hot increment under way to be answered. */
  unsent: number;
  hotSending: boolean;
}

/**
 * The hot reads' increment: the same count and expiry as @fastify/rate-limit's Redis script, by
 * several calls at once. Answers the count and the milliseconds left in the window.
 */
const INCR_BY = `
local calls = tonumber(ARGV[2])
local current = redis.call('INCRBY', KEYS[1], calls)
local ttl = redis.call('PTTL', KEYS[1])
if current == calls or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {current, ttl}
`;
type IncrByClient = Redis & { catalogRateIncrBy(key: string, windowMs: number, calls: number): Promise<[number, number]> };

/**
 * Several processes on one Redis: @fastify/rate-limit's Redis store, one atomic increment per call
 * (the plugin's hook waits for it; Redis answers in well under a millisecond). The hot reads answer
 * from the HTTP server's request event and cannot wait: they admit a call on what Redis said about
 * the caller's previous one plus the calls still on their way, and send the increment without
 * waiting, one at a time per caller (the calls that come meanwhile go with the next one, so a busy
 * caller costs one command per round trip, not one per call). A caller this process has not heard
 * of yet, or whose window ended, takes the full route.
 */
export function redisRateLimiter(redis: Redis, max: number, windowMs: number, prefix = 'catalog:rate-limit:'): ApiRateLimiter {
  const store = new RedisStore(false, false, redis, prefix);
  const client = redis as IncrByClient;
  if (!('catalogRateIncrBy' in redis)) redis.defineCommand('catalogRateIncrBy', { numberOfKeys: 1, lua: INCR_BY });
  const heard = new Map<string, Heard>();
  let lastPrune = 0;
  const entryOf = (key: string): Heard => {
    const now = Date.now();
    if (now - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = now;
      for (const [k, h] of heard) if (h.resetAt <= now && h.inFlight === 0 && h.unsent === 0) heard.delete(k);
    }
    let entry = heard.get(key);
    if (!entry) {
      entry = { current: 0, resetAt: 0, inFlight: 0, unsent: 0, hotSending: false };
      heard.set(key, entry);
      while (heard.size > MAX_COUNTERS) heard.delete(heard.keys().next().value!);
    }
    return entry;
  };
  const heardFrom = (h: Heard, current: number, ttl: number) => {
    h.current = current;
    h.resetAt = Date.now() + ttl;
  };
  const incr = (key: string, cb: IncrCallback, timeWindow = windowMs, limit = max) => {
    const h = entryOf(key);
    h.inFlight++;
    store.incr(
      key,
      (err, res) => {
        h.inFlight--;
        if (!err && res) heardFrom(h, res.current, res.ttl);
        cb(err, res);
      },
      timeWindow,
      limit,
    );
  };
  const sendHot = (key: string, h: Heard) => {
    const calls = h.unsent;
    h.unsent = 0;
    h.inFlight += calls;
    h.hotSending = true;
    client
      .catalogRateIncrBy(prefix + key, windowMs, calls)
      .then(
        ([current, ttl]) => heardFrom(h, current, ttl),
        // Redis away: the calls were admitted; the full route (which goes on unlimited) takes over
        // once this window ends.
        () => {},
      )
      .finally(() => {
        h.inFlight -= calls;
        h.hotSending = false;
        if (h.unsent > 0) sendHot(key, h);
      });
  };
  const shared: FastifyRateLimitStore = {
    incr,
    child: (route) => store.child(route),
  };
  const take = (key: string) => {
    const h = heard.get(key);
    const now = Date.now();
    if (!h || now >= h.resetAt) return undefined;
    h.unsent++;
    if (!h.hotSending) sendHot(key, h);
    // What Redis last said, plus every call it has not answered yet, this one included.
    const window = { current: h.current + h.inFlight + h.unsent, ttl: h.resetAt - now };
    return window.current > max ? undefined : limitHeaders(max, window);
  };
  return { Store: constructorOf(shared), take, close: async () => {} };
}

/** Whether a call is admitted, and when its caller may call again when it is not. */
export type Admit = (key: string) => Promise<{ admitted: boolean; retryAfterSeconds: number }>;

/**
 * Counts calls against a limiter's store outside the rate-limit plugin (the public pages, which are
 * not API calls): the same stores, so every process on one database or Redis counts as one.
 */
export function admitter(limiter: ApiRateLimiter, max: number, windowMs: number): Admit {
  const store = new (limiter.Store as unknown as new (options: unknown) => FastifyRateLimitStore)({});
  return (key) =>
    new Promise((resolve) => {
      store.incr(
        key,
        (err, res) => {
          // A store that cannot answer lets the call through, as the API limit does with Redis away.
          if (err || !res) return resolve({ admitted: true, retryAfterSeconds: 0 });
          resolve({ admitted: res.current <= max, retryAfterSeconds: Math.max(1, Math.ceil(res.ttl / 1000)) });
        },
        windowMs,
        max,
      );
    });
}

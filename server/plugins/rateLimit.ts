import { createRequire } from 'node:module';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import type { Db } from '../db/client';
import type { HotLimit } from './hotReads';
import { MAX_COUNTERS, postgresSync, PRUNE_EVERY_MS, SYNC_BATCH_SHARE, SyncedCounters, type Window } from './syncedCounters';

/** @fastify/rate-limit's own stores: the in-memory one calls back before `incr` returns. */
const require = createRequire(import.meta.url);
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (continueExceeding: boolean, exponentialBackoff: boolean) => FastifyRateLimitStore;
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  key?: string,
) => FastifyRateLimitStore;

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

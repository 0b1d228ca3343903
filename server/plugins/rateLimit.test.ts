import { sql } from 'drizzle-orm';
import type { FastifyRateLimitStore } from '@fastify/rate-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL, useTestRedis } from '../test/redis';
import type { Database } from '../db';
import { openTestDatabase } from '../test/db';
import { postgresRateLimiter, redisRateLimiter } from './rateLimit';
import { postgresSync, SyncedCounters, type SyncFn } from './syncedCounters';

/**
 * The API rate limit's shared stores. Two stores on one database stand for two server processes.
 * The PostgreSQL store runs on the test database (the embedded one, or PostgreSQL with
 * TEST_DATABASE_URL); the Redis store runs when TEST_REDIS_URL names a Redis (e.g.
 * redis://127.0.0.1:6379), in a key prefix of its own.
 */
const WINDOW = 60_000;
/** No timer in these tests: each sync is asked for, so what a process has seen is exact. */
const NEVER = 3_600_000;

let database: Database;
let dispose: () => Promise<void>;
beforeAll(async () => {
  ({ database, dispose } = await openTestDatabase());
});
afterAll(() => dispose());

let unique = 0;
const caller = () => `u:test-${process.pid}-${unique++}`;

async function sharedCount(key: string): Promise<number | undefined> {
  const res = await database.db.execute(sql`select count from rate_limit_counters where key = ${key}`);
  return (res as unknown as { rows: { count: number }[] }).rows[0]?.count;
}

/** Two "processes" counting through the database, on a clock the test moves by hand. */
function twoProcesses(options: { batch?: number; sync?: SyncFn } = {}) {
  const clock = { t: 10_000_000 };
  const make = () =>
    new SyncedCounters(options.sync ?? postgresSync(database.db, WINDOW), WINDOW, { intervalMs: NEVER, batch: options.batch, now: () => clock.t });
  return { a: make(), b: make(), clock };
}

describe('API rate limit counted in the process and synced through PostgreSQL', () => {
  it('answers each call at once from the process, without waiting for the database', async () => {
    const { a } = twoProcesses();
    const key = caller();
    expect([1, 2, 3].map(() => a.incr(key).current)).toEqual([1, 2, 3]);
    expect(a.incr(key).ttl).toBe(WINDOW);
    expect(await sharedCount(key)).toBeUndefined();
    await a.flush();
    expect(await sharedCount(key)).toBe(4);
  });

  it("adds both processes' calls into one count, which each sees after its next sync", async () => {
    const { a, b } = twoProcesses();
    const key = caller();
    for (let i = 0; i < 5; i++) a.incr(key);
    for (let i = 0; i < 3; i++) b.incr(key);
    await a.flush();
    await b.flush();
    // b's sync brought back a's calls; a has not synced since b's.
    expect(b.read(key).current).toBe(8);
    expect(a.read(key).current).toBe(5);
    expect(a.incr(key).current).toBe(6);
    await a.flush();
    expect(a.read(key).current).toBe(9);
    expect(await sharedCount(key)).toBe(9);
  });

  it('ends the window at the same moment in every process, and begins a new one with the calls sent', async () => {
    const { a, b, clock } = twoProcesses();
    const key = caller();
    a.incr(key);
    await a.flush();
    clock.t += 20_000;
    expect(b.incr(key).ttl).toBe(WINDOW);
    await b.flush();
    // The window a began is the shared one: b now ends it with a, 40 s from now.
    expect(b.read(key)).toEqual({ current: 2, ttl: 40_000 });
    clock.t += 40_000;
    expect(b.incr(key)).toEqual({ current: 1, ttl: WINDOW });
    await b.flush();
    expect(await sharedCount(key)).toBe(1);
    a.incr(key);
    await a.flush();
    expect(a.read(key).current).toBe(2);
  });

  it('syncs at once when one caller has a batch of unsent calls', async () => {
    const { a } = twoProcesses({ batch: 3 });
    const key = caller();
    a.incr(key);
    a.incr(key);
    await new Promise((r) => setTimeout(r, 50));
    expect(await sharedCount(key)).toBeUndefined();
    a.incr(key);
    // The third call started a sync; flush() waits for the one under way.
    await a.flush();
    expect(await sharedCount(key)).toBe(3);
  });

  it('keeps its calls when a sync fails, says so once, and sends them with the next one', async () => {
    let failing = true;
    const errors: unknown[] = [];
    const real = postgresSync(database.db, WINDOW);
    const sync: SyncFn = (batch, now) => (failing ? Promise.reject(new Error('database away')) : real(batch, now));
    const counters = new SyncedCounters(sync, WINDOW, { intervalMs: NEVER, onError: (err) => errors.push(err) });
    const key = caller();
    counters.incr(key);
    await counters.flush();
    counters.incr(key);
    await counters.flush();
    expect(errors).toHaveLength(1);
    expect(counters.read(key).current).toBe(2);
    failing = false;
    await counters.flush();
    expect(await sharedCount(key)).toBe(2);
  });

  it('sends what is left when it closes', async () => {
    const { a } = twoProcesses();
    const key = caller();
    a.incr(key);
    await a.close();
    expect(await sharedCount(key)).toBe(1);
  });

  it('forgets the oldest callers past its cap', () => {
    const counters = new SyncedCounters(async () => [], WINDOW, { intervalMs: NEVER, maxCounters: 2 });
    for (const key of ['x', 'y', 'z']) counters.incr(key);
    expect(counters.size).toBe(2);
    expect(counters.read('x').current).toBe(0);
  });

  it('shares one count between the plugin and the hot reads, both answered before incr returns', async () => {
    const limiter = postgresRateLimiter(database.db, 3, WINDOW, { intervalMs: NEVER });
    const store = new limiter.Store({});
    const key = caller();
    let answered: { current: number; ttl: number } | undefined;
    store.incr(key, (_err, res) => (answered = res), WINDOW, 3);
    expect(answered?.current).toBe(1);
    expect(limiter.take(key)).toEqual({ 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': '60' });
    expect(limiter.take(key)?.['x-ratelimit-remaining']).toBe('0');
    expect(limiter.take(key)).toBeUndefined();
    await limiter.close();
    expect(await sharedCount(key)).toBe(4);
  });
});

describe.skipIf(!TEST_REDIS_URL)('API rate limit in Redis (TEST_REDIS_URL)', () => {
  const { redis, prefix } = useTestRedis();

  const incr = (store: FastifyRateLimitStore, key: string, max: number) =>
    new Promise<{ current: number; ttl: number }>((resolve, reject) => store.incr(key, (err, res) => (err ? reject(err) : resolve(res!)), WINDOW, max));

  it("counts every process's calls in one Redis key", async () => {
    const a = new (redisRateLimiter(redis(), 5, WINDOW, prefix).Store)({});
    const b = new (redisRateLimiter(redis(), 5, WINDOW, prefix).Store)({});
    const key = caller();
    await incr(a, key, 5);
    await incr(a, key, 5);
    expect((await incr(b, key, 5)).current).toBe(3);
    expect(Number(await redis().get(prefix + key))).toBe(3);
    const ttl = await redis().pttl(prefix + key);
    expect(ttl).toBeGreaterThan(WINDOW - 5000);
  });

  it('lets the hot reads answer only for a caller it has heard of, from what Redis said plus the calls on their way', async () => {
    const limiter = redisRateLimiter(redis(), 3, WINDOW, prefix);
    const store = new limiter.Store({});
    const key = caller();
    // Not heard of yet: the full route asks Redis.
    expect(limiter.take(key)).toBeUndefined();
    expect(await redis().get(prefix + key)).toBeNull();
    await incr(store, key, 3);
    expect(limiter.take(key)?.['x-ratelimit-remaining']).toBe('1');
    expect(limiter.take(key)?.['x-ratelimit-remaining']).toBe('0');
    expect(limiter.take(key)).toBeUndefined();
    // Every hot read is sent to Redis too: the first at once, the two that came meanwhile together.
    const deadline = Date.now() + 2000;
    while (Number(await redis().get(prefix + key)) < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(Number(await redis().get(prefix + key))).toBe(4);
    expect(await redis().pttl(prefix + key)).toBeGreaterThan(WINDOW - 5000);
  });
});

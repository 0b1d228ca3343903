import { sql } from 'drizzle-orm';
import type { FastifyRateLimitStore } from '@fastify/rate-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL, useTestRedis } from '../test/redis';
import type { Database } from '../db';
import { openTestDatabase } from '../test/db';
import { apiRateLimiter, type ApiRateLimiter } from './rateLimit';
import { memoryLimiters, postgresLimiters, redisLimiters, type LimiterFactory } from './sharedLimits';

/**
 * The API rate limit over rate-limiter-flexible's counters. Two limiters on one store stand for
 * two server processes. The PostgreSQL store runs on the test database (the embedded one, or
 * PostgreSQL with TEST_DATABASE_URL); the Redis store runs when TEST_REDIS_URL names a Redis (e.g.
 * redis://127.0.0.1:6379), in a key prefix of its own.
 */
const WINDOW_S = 60;

let database: Database;
let dispose: () => Promise<void>;
beforeAll(async () => {
  ({ database, dispose } = await openTestDatabase());
});
afterAll(() => dispose());

let unique = 0;
const caller = () => `u:test-${process.pid}-${Date.now()}-${unique++}`;

const limiterOn = (limiters: LimiterFactory, max: number) => apiRateLimiter(limiters('rate-limit', max, WINDOW_S, { insured: true }), max);
const storeOf = (limiter: ApiRateLimiter) => new limiter.Store({} as never) as FastifyRateLimitStore;
const incr = (store: FastifyRateLimitStore, key: string, max: number) =>
  new Promise<{ current: number; ttl: number }>((resolve, reject) => store.incr(key, (err, res) => (err ? reject(err) : resolve(res!)), WINDOW_S * 1000, max));
/** Waits until `check` holds: the hot reads' counts reach the store without being waited for. */
async function eventually(check: () => Promise<boolean>) {
  const deadline = Date.now() + 2000;
  while (!(await check()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  expect(await check()).toBe(true);
}

function behaviour(name: string, limitersOf: () => LimiterFactory) {
  describe(`API rate limit on ${name}`, () => {
    /** The caller's count in the store, as any process reads it. */
    const counted = async (key: string) => (await limitersOf()('rate-limit', 1, WINDOW_S).get(key))?.consumedPoints ?? 0;

    it("counts every process's calls in one count, exactly", async () => {
      const a = storeOf(limiterOn(limitersOf(), 5));
      const b = storeOf(limiterOn(limitersOf(), 5));
      const key = caller();
      await incr(a, key, 5);
      await incr(a, key, 5);
      expect((await incr(b, key, 5)).current).toBe(3);
      const all = await Promise.all(Array.from({ length: 6 }, (_, i) => incr(i % 2 ? a : b, key, 5)));
      expect(all.map((w) => w.current).sort((x, y) => x - y)).toEqual([4, 5, 6, 7, 8, 9]);
      expect(all.every((w) => w.ttl > (WINDOW_S - 5) * 1000 && w.ttl <= WINDOW_S * 1000)).toBe(true);
      expect(await counted(key)).toBe(9);
    });

    it('lets the hot reads answer only for a caller it has heard of, from the last count plus the calls on their way', async () => {
      const limiter = limiterOn(limitersOf(), 3);
      const key = caller();
      // Not heard of yet: the full route asks the store.
      expect(limiter.take(key)).toBeUndefined();
      expect(await counted(key)).toBe(0);
      await incr(storeOf(limiter), key, 3);
      expect(limiter.take(key)).toEqual({ 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': '60' });
      expect(limiter.take(key)?.['x-ratelimit-remaining']).toBe('0');
      expect(limiter.take(key)).toBeUndefined();
      // Every hot read is counted in the store too: the first at once, the two that came meanwhile together.
      await eventually(async () => (await counted(key)) === 4);
    });

    it('answers the public pages whether a call is admitted, and how long to wait when not', async () => {
      const limiter = limiterOn(limitersOf(), 2);
      const key = caller();
      expect((await limiter.admit(key)).admitted).toBe(true);
      expect((await limiter.admit(key)).admitted).toBe(true);
      const third = await limiter.admit(key);
      expect(third.admitted).toBe(false);
      expect(third.retryAfterSeconds).toBeGreaterThan(WINDOW_S - 5);
      expect(third.retryAfterSeconds).toBeLessThanOrEqual(WINDOW_S);
    });
  });
}

/** One counter in memory for both "processes": what one process holds, as the embedded database's server does. */
const inProcess = memoryLimiters('rate-limit', 1, WINDOW_S);
behaviour('the process (the embedded database)', () => () => inProcess);
behaviour(`PostgreSQL (${process.env.TEST_DATABASE_URL ? 'server' : 'embedded'})`, () => postgresLimiters(database.db));

describe.skipIf(!TEST_REDIS_URL)('Redis (TEST_REDIS_URL)', () => {
  const { redis, prefix } = useTestRedis();
  behaviour('Redis', () => redisLimiters(redis(), prefix));

  it("keeps a caller's count in one Redis key that ends with the window", async () => {
    const key = caller();
    await incr(storeOf(limiterOn(redisLimiters(redis(), prefix), 5)), key, 5);
    expect(await redis().get(`${prefix}rate-limit:${key}`)).toBe('1');
    expect(await redis().pttl(`${prefix}rate-limit:${key}`)).toBeGreaterThan((WINDOW_S - 5) * 1000);
  });
});

describe('PostgreSQL store', () => {
  it("keeps a caller's count in one row of rate_limits that ends with the window", async () => {
    const key = caller();
    await incr(storeOf(limiterOn(postgresLimiters(database.db), 5)), key, 5);
    const res = await database.db.execute(sql`select points, expire from rate_limits where key = ${`rate-limit:${key}`}`);
    const [row] = (res as unknown as { rows: { points: number; expire: string }[] }).rows;
    expect(row!.points).toBe(1);
    expect(Number(row!.expire) - Date.now()).toBeGreaterThan((WINDOW_S - 5) * 1000);
  });
});

describe('a shared store that is away', () => {
  it('counts in the process meanwhile (the insurance counter), so the limit still holds per process', async () => {
    const away = { $client: { query: () => Promise.reject(new Error('database away')) } } as unknown as Database['db'];
    const limiter = limiterOn(postgresLimiters(away), 2);
    const key = caller();
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push((await limiter.admit(key)).admitted);
    expect(answers).toEqual([true, true, false]);
  });
});

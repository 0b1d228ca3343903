import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { TEST_REDIS_URL, useTestRedis } from '../test/redis';
import type { Database } from '../db';
import { connectRedis, postgresLimiters, redisLimiters, type LimiterFactory } from '../plugins/sharedLimits';
import { openTestDatabase } from '../test/db';
import { LimitedLoginThrottle, LOGIN_WINDOW_MS, type LoginLimits, type LoginThrottle } from './loginLimiter';

/**
 * Sign-in throttling on the shared stores: PostgreSQL's `rate_limits` (the embedded test database,
 * or PostgreSQL with TEST_DATABASE_URL) and Redis (when TEST_REDIS_URL names one, in a key prefix
 * of its own). Two throttles on one store stand for two server processes: what one counts, the
 * other must see, and attempts sent to both at once must be counted one after the other.
 */
const DEFAULTS: LoginLimits = { perPair: 5, perAddress: 30, accountGuard: 100 };
const SECOND = 1000;
const refused = (retryAfterSeconds: number) => ({ allowed: false, retryAfterSeconds });

function twoProcesses(limiters: LimiterFactory, limits: Partial<LoginLimits> = {}) {
  const make = () => new LimitedLoginThrottle({ ...DEFAULTS, ...limits }, limiters);
  const fail = async (throttle: LoginThrottle, email: string, address: string) => {
    const verdict = await throttle.check(email, address);
    if (verdict.allowed) await throttle.recordFailure(email, address);
    return verdict;
  };
  return { a: make(), b: make(), fail };
}

let unique = 0;
/** An account of its own for each test, so the tests of one store never share keys. */
const account = () => `user-${process.pid}-${Date.now()}-${unique++}@example.com`;
/** An address of its own for each test: Redis keeps its counts from one run to the next. */
const address = () => `127.${unique % 250}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;

function behaviour(name: string, limitersOf: () => LimiterFactory) {
  describe(`shared sign-in throttle on ${name}`, () => {
    it('counts the failures of both processes together: three at once, then each process refuses for 10 s', async () => {
      const { a, b, fail } = twoProcesses(limitersOf());
      const email = account();
      const from = address();
      expect(await fail(a, email, from)).toEqual({ allowed: true });
      expect(await fail(b, email, from)).toEqual({ allowed: true });
      expect(await fail(a, email, from)).toEqual({ allowed: true });
      // One process alone has seen one or two failures; the pair has three.
      expect(await b.check(email, from)).toEqual(refused(10));
      expect(await a.check(email, from)).toEqual(refused(10));
      // Another address is not slowed for the account.
      expect(await b.check(email, address())).toEqual({ allowed: true });
    });

    it('counts parallel attempts through both processes one after the other', async () => {
      const { a, b } = twoProcesses(limitersOf());
      const email = account();
      const from = address();
      const verdicts = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).check(email, from)));
      // Three attempts go at once; the others wait behind them, as in one process.
      expect(verdicts.filter((v) => v.allowed)).toHaveLength(3);
    });

    it("clears the pair on success in every process, and keeps the address's other failures", async () => {
      const { a, b, fail } = twoProcesses(limitersOf(), { perAddress: 5 });
      const email = account();
      const other = account();
      const from = address();
      for (let i = 0; i < 2; i++) await fail(a, email, from);
      await fail(b, other, from);
      // The owner's third try, through the other process, is the right password.
      expect(await b.check(email, from)).toEqual({ allowed: true });
      await b.recordSuccess(email, from);
      // The pair is clear in both processes: the next typing mistakes are free again.
      expect(await fail(a, email, from)).toEqual({ allowed: true });
      expect(await fail(b, other, from)).toEqual({ allowed: true });
      // The address keeps its failures: five in all, its limit, whatever the success.
      expect((await a.check(account(), from)).allowed).toBe(false);
    });

    it('puts an account under guard from failures through both processes', async () => {
      const { a, b, fail } = twoProcesses(limitersOf(), { perPair: 1, accountGuard: 10 });
      const email = account();
      for (let i = 0; i < 10; i++) expect(await fail(i % 2 ? a : b, email, address())).toEqual({ allowed: true });
      // Under guard: a new address gets its one failure, then waits out the window.
      const fresh = address();
      expect(await fail(a, email, fresh)).toEqual({ allowed: true });
      expect(await b.check(email, fresh)).toEqual(refused(15 * 60));
      expect(await b.check(email, address())).toEqual({ allowed: true });
    });
  });
}

let database: Database;
let dispose: () => Promise<void>;
beforeAll(async () => {
  ({ database, dispose } = await openTestDatabase());
});
afterAll(() => dispose());

const onPostgres = `PostgreSQL (${process.env.TEST_DATABASE_URL ? 'server' : 'embedded'})`;
behaviour(onPostgres, () => postgresLimiters(database.db));

describe(`${onPostgres}, on a clock the test moves`, () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  });
  afterEach(() => vi.useRealTimers());
  const advance = (ms: number) => vi.setSystemTime(Date.now() + ms);

  it('makes both processes wait 10 s, then 20 s, then until the first failure leaves the window', async () => {
    const { a, b, fail } = twoProcesses(postgresLimiters(database.db));
    const email = account();
    const from = address();
    for (const p of [a, b, a]) expect(await fail(p, email, from)).toEqual({ allowed: true });
    expect(await b.check(email, from)).toEqual(refused(10));
    advance(10 * SECOND);
    expect(await fail(b, email, from)).toEqual({ allowed: true });
    expect(await a.check(email, from)).toEqual(refused(20));
    advance(20 * SECOND);
    expect(await fail(a, email, from)).toEqual({ allowed: true });
    // Five failures, the first 30 s ago: both wait until its window ends.
    expect(await b.check(email, from)).toEqual(refused(15 * 60 - 30));
    expect(await a.check(email, from)).toEqual(refused(15 * 60 - 30));
    advance(LOGIN_WINDOW_MS - 30 * SECOND);
    expect(await b.check(email, from)).toEqual({ allowed: true });
  });

  it('keeps one row per counter in rate_limits, and deletes the pair on success', async () => {
    const { a, fail } = twoProcesses(postgresLimiters(database.db));
    const email = account();
    const from = address();
    const rows = async () => {
      const res = await database.db.execute(sql`select key, points from rate_limits where key like ${`%${email}%`} order by key`);
      return (res as unknown as { rows: { key: string; points: number }[] }).rows;
    };
    await fail(a, email, from);
    expect(await rows()).toEqual([
      { key: `login-account:${email}`, points: 1 },
      { key: `login-pair:${email}\n${from}`, points: 1 },
    ]);
    await a.recordSuccess(email, from);
    // The account's failure stays: it keeps the guard's count.
    expect(await rows()).toEqual([{ key: `login-account:${email}`, points: 1 }]);
  });
});

describe.skipIf(!TEST_REDIS_URL)('Redis (TEST_REDIS_URL)', () => {
  const { redis, prefix } = useTestRedis();

  behaviour('Redis', () => redisLimiters(redis(), prefix));

  it("keeps a pair's count only as long as its window", async () => {
    const { a, fail } = twoProcesses(redisLimiters(redis(), prefix));
    const email = account();
    const from = address();
    await fail(a, email, from);
    const ttl = await redis().pttl(`${prefix}login-pair:${email}\n${from}`);
    expect(ttl).toBeGreaterThan(LOGIN_WINDOW_MS - 60 * SECOND);
    expect(ttl).toBeLessThanOrEqual(LOGIN_WINDOW_MS);
    await a.recordSuccess(email, from);
    expect(await redis().exists(`${prefix}login-pair:${email}\n${from}`)).toBe(0);
  });

  it('refuses sign-ins with a 503 while Redis is away, rather than letting them through unthrottled', async () => {
    const away = await connectRedis(TEST_REDIS_URL!);
    away.disconnect();
    const throttle = new LimitedLoginThrottle(DEFAULTS, redisLimiters(away, prefix));
    await expect(throttle.check(account(), address())).rejects.toMatchObject({ statusCode: 503, code: 'unavailable' });
  });
});

describe('PostgreSQL away', () => {
  it('refuses sign-ins with a 503, rather than letting them through unthrottled', async () => {
    const away = { $client: { query: () => Promise.reject(new Error('database away')) } } as unknown as Database['db'];
    const throttle = new LimitedLoginThrottle(DEFAULTS, postgresLimiters(away));
    await expect(throttle.check(account(), address())).rejects.toMatchObject({ statusCode: 503, code: 'unavailable' });
  });
});

import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL, useTestRedis } from '../test/redis';
import type { Database } from '../db';
import { loginThrottle } from '../db/schema';
import { connectRedis } from '../plugins/sharedLimits';
import { openTestDatabase } from '../test/db';
import { LOGIN_WINDOW_MS, SharedLoginThrottle, type LoginLimits, type ThrottleEntry, type ThrottleStore } from './loginLimiter';
import { PostgresThrottleStore, RedisThrottleStore } from './throttleStores';
import { SYSTEM_ROLE } from '../db/scope';

/**
 * The shared sign-in throttle on each of its stores. Two throttles on one store stand for two
 * server processes: what one counts, the other must see, and attempts sent to both at once must
 * be counted one after the other. The PostgreSQL store runs on the test database (the embedded one,
 * or PostgreSQL with TEST_DATABASE_URL); the Redis store runs when TEST_REDIS_URL names a Redis
 * (e.g. redis://127.0.0.1:6379), in a key prefix of its own.
 */
const DEFAULTS: LoginLimits = { perPair: 5, perAddress: 30, accountGuard: 100 };
const SECOND = 1000;
const refused = (retryAfterSeconds: number) => ({ allowed: false, retryAfterSeconds });

/** Two "processes" on one store, on a clock the test moves by hand. */
function twoProcesses(store: ThrottleStore, limits: Partial<LoginLimits> = {}) {
  const clock = { t: 1_000_000 };
  const make = () => new SharedLoginThrottle({ ...DEFAULTS, ...limits }, store, { now: () => clock.t });
  const a = make();
  const b = make();
  const fail = async (throttle: SharedLoginThrottle, email: string, address: string) => {
    const verdict = await throttle.check(email, address);
    if (verdict.allowed) await throttle.recordFailure(email, address);
    return verdict;
  };
  return { a, b, clock, advance: (ms: number) => (clock.t += ms), fail };
}

/** A store in memory with the contract of the shared ones, to check the throttle itself. */
class MemoryStore implements ThrottleStore {
  readonly entries = new Map<string, ThrottleEntry>();
  async update<T>(keys: readonly string[], _now: number, change: (entries: ThrottleEntry[]) => T): Promise<T> {
    const entries = keys.map((k) => structuredClone(this.entries.get(k) ?? { failures: [], pending: [] }));
    const answer = change(entries);
    keys.forEach((k, i) => (entries[i]!.failures.length || entries[i]!.pending.length ? this.entries.set(k, entries[i]!) : this.entries.delete(k)));
    return answer;
  }
}

let unique = 0;
/** An account of its own for each test, so the tests of one store never share keys. */
const account = () => `user-${process.pid}-${Date.now()}-${unique++}@example.com`;

function behaviour(name: string, storeOf: () => ThrottleStore) {
  describe(`shared sign-in throttle on ${name}`, () => {
    it('counts the failures of both processes together: three at once, then 10 s, then the pair limit', async () => {
      const { a, b, advance, fail } = twoProcesses(storeOf());
      const email = account();
      expect(await fail(a, email, '10.0.0.1')).toEqual({ allowed: true });
      expect(await fail(b, email, '10.0.0.1')).toEqual({ allowed: true });
      expect(await fail(a, email, '10.0.0.1')).toEqual({ allowed: true });
      // One process alone has seen one or two failures; the pair has three.
      expect(await b.check(email, '10.0.0.1')).toEqual(refused(10));
      expect(await a.check(email, '10.0.0.1')).toEqual(refused(10));
      advance(10 * SECOND);
      expect(await fail(b, email, '10.0.0.1')).toEqual({ allowed: true });
      expect(await a.check(email, '10.0.0.1')).toEqual(refused(20));
      advance(20 * SECOND);
      expect(await fail(a, email, '10.0.0.1')).toEqual({ allowed: true });
      // Five failures, the first 30 s ago: both wait until it leaves the window.
      expect(await b.check(email, '10.0.0.1')).toEqual(refused(15 * 60 - 30));
      expect(await a.check(email, '10.0.0.1')).toEqual(refused(15 * 60 - 30));
      // Another address is not slowed for the account.
      expect(await b.check(email, '10.0.0.2')).toEqual({ allowed: true });
      advance(LOGIN_WINDOW_MS - 30 * SECOND);
      expect(await b.check(email, '10.0.0.1')).toEqual({ allowed: true });
    });

    it('counts parallel attempts through both processes one after the other', async () => {
      const { a, b } = twoProcesses(storeOf());
      const email = account();
      const verdicts = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).check(email, '10.0.1.1')));
      // Three attempts go at once; the others wait behind the pending three, as in one process.
      expect(verdicts.filter((v) => v.allowed)).toHaveLength(3);
    });

    it("clears the pair on success in every process, and keeps the address's other failures", async () => {
      const { a, b, fail } = twoProcesses(storeOf(), { perAddress: 5 });
      const email = account();
      const other = account();
      for (let i = 0; i < 3; i++) await fail(a, email, '10.0.2.1');
      expect((await b.check(email, '10.0.2.1')).allowed).toBe(false);
      await fail(b, other, '10.0.2.1');
      expect((await a.check(email, '10.0.2.1')).allowed).toBe(false);
      // A success through one process (as after the wait) clears the pair for both.
      await b.recordSuccess(email, '10.0.2.1');
      // The pair is clear, but the address keeps its four failures: one more reaches its limit of 5.
      expect(await a.check(email, '10.0.2.1')).toEqual({ allowed: true });
      await a.recordFailure(email, '10.0.2.1');
      expect((await b.check(other, '10.0.2.1')).allowed).toBe(false);
    });

    it('puts an account under guard from failures through both processes', async () => {
      const { a, b, fail } = twoProcesses(storeOf(), { perPair: 1, accountGuard: 10 });
      const email = account();
      for (let i = 0; i < 10; i++) expect(await fail(i % 2 ? a : b, email, `10.1.0.${i}`)).toEqual({ allowed: true });
      // Under guard: a new address gets its one failure, then waits out the window.
      expect(await fail(a, email, '10.1.1.1')).toEqual({ allowed: true });
      expect((await b.check(email, '10.1.1.1')).allowed).toBe(false);
      expect(await b.check(email, '10.1.1.2')).toEqual({ allowed: true });
    });
  });
}

behaviour('a store in memory', () => new MemoryStore());

let database: Database;
let dispose: () => Promise<void>;
beforeAll(async () => {
  ({ database, dispose } = await openTestDatabase());
});
afterAll(() => dispose());

behaviour(`PostgreSQL (${process.env.TEST_DATABASE_URL ? 'server' : 'embedded'})`, () => new PostgresThrottleStore(database.db));

describe('PostgreSQL store', () => {
  it('keeps one row per key, deletes a cleared one, and prunes the expired ones', async () => {
    const store = new PostgresThrottleStore(database.db);
    const clock = { t: 50_000_000 };
    const throttle = new SharedLoginThrottle(DEFAULTS, store, { now: () => clock.t });
    const email = account();
    const rows = async () => (await database.db.select({ key: loginThrottle.key }).from(loginThrottle)).map((r) => r.key).filter((k) => k.includes(email));
    await throttle.check(email, '10.2.0.1');
    await throttle.recordFailure(email, '10.2.0.1');
    expect((await rows()).sort()).toEqual([`a\n${email}`, `p\n${email}\n10.2.0.1`].sort());
    await throttle.recordSuccess(email, '10.2.0.1');
    // The pair is gone; the address's entry is empty, hence gone; the account's failure stays.
    expect(await rows()).toEqual([`a\n${email}`]);
    clock.t += LOGIN_WINDOW_MS + 61 * SECOND;
    await throttle.check(account(), '10.2.0.2');
    expect(await rows()).toEqual([]);
  });

  it("is reached by the system scope's role, which owns no table", async () => {
    const res = await database.db.execute(sql`select current_user as name`);
    expect((res as unknown as { rows: { name: string }[] }).rows[0]!.name).toBe(SYSTEM_ROLE);
  });
});

describe.skipIf(!TEST_REDIS_URL)('Redis store (TEST_REDIS_URL)', () => {
  const { redis, prefix } = useTestRedis();

  behaviour('Redis', () => new RedisThrottleStore(redis(), prefix));

  it('keeps an entry only as long as its newest timestamp counts', async () => {
    const store = new RedisThrottleStore(redis(), prefix);
    const now = Date.now();
    const throttle = new SharedLoginThrottle(DEFAULTS, store, { now: () => now });
    const email = account();
    await throttle.check(email, '10.3.0.1');
    await throttle.recordFailure(email, '10.3.0.1');
    const ttl = await redis().pttl(`${prefix}p\n${email}\n10.3.0.1`);
    expect(ttl).toBeGreaterThan(LOGIN_WINDOW_MS - 60 * SECOND);
    expect(ttl).toBeLessThanOrEqual(LOGIN_WINDOW_MS);
    await throttle.recordSuccess(email, '10.3.0.1');
    expect(await redis().exists(`${prefix}p\n${email}\n10.3.0.1`)).toBe(0);
  });

  it('refuses sign-ins with a 503 while Redis is away, rather than letting them through unthrottled', async () => {
    const away = await connectRedis(TEST_REDIS_URL!);
    away.disconnect();
    const throttle = new SharedLoginThrottle(DEFAULTS, new RedisThrottleStore(away, prefix));
    await expect(throttle.check(account(), '10.3.0.2')).rejects.toMatchObject({ statusCode: 503, code: 'unavailable' });
  });
});

import { createHash } from 'node:crypto';
import { inArray, lte, sql } from 'drizzle-orm';
import type { Redis } from 'ioredis';
import type { Db } from '../db/client';
import { unavailable } from '../errors';
import { loginThrottle } from '../db/schema';
import { expiryOf, type ThrottleEntry, type ThrottleStore } from './loginLimiter';

/**
 * The stores of the shared sign-in throttle (docs/decisions/0112-shared-limits.md): every server
 * process on one PostgreSQL database, or on one Redis, reads and writes the same entries, and
 * each update is one atomic step across all of them.
 */

/** Expired rows are deleted at most this often per process (an update never reads them anyway). */
const PRUNE_EVERY_MS = 60_000;
/** The first key of the two-part advisory locks of the throttle, apart from every other lock. */
const LOCK_SPACE = 0x5e7_1112;

const empty = (): ThrottleEntry => ({ failures: [], pending: [] });
const isEmpty = (entry: ThrottleEntry) => entry.failures.length === 0 && entry.pending.length === 0;
const same = (a: ThrottleEntry, b: ThrottleEntry) =>
  a.failures.length === b.failures.length &&
  a.pending.length === b.pending.length &&
  a.failures.every((t, i) => t === b.failures[i]) &&
  a.pending.every((t, i) => t === b.pending[i]);
const copy = (entry: ThrottleEntry): ThrottleEntry => ({ failures: [...entry.failures], pending: [...entry.pending] });

/** A key's advisory lock: 32 bits of its hash (two keys sharing one only wait on each other). */
function lockOf(key: string): number {
  return createHash('sha256').update(key).digest().readInt32BE(0);
}

/**
 * PostgreSQL: one row per key in `login_throttle`. An update is one transaction that first takes
 * an advisory lock per key (in a fixed order, so two updates never wait on each other in a
 * circle), then reads the rows, and writes back the changed ones: concurrent attempts from any
 * process are counted one after the other, exactly as in one process.
 */
export class PostgresThrottleStore implements ThrottleStore {
  private lastPrune = 0;

  constructor(private readonly db: Db) {}

  async update<T>(keys: readonly string[], now: number, change: (entries: ThrottleEntry[]) => T): Promise<T> {
    const result = await this.db.transaction(async (tx) => {
      const locks = [...new Set(keys.map(lockOf))].sort((a, b) => a - b);
      await tx.execute(
        sql`select ${sql.join(
          locks.map((lock) => sql`pg_advisory_xact_lock(${LOCK_SPACE}::int, ${lock}::int)`),
          sql`, `,
        )}`,
      );
      const rows = await tx
        .select({ key: loginThrottle.key, failures: loginThrottle.failures, pending: loginThrottle.pending })
        .from(loginThrottle)
        .where(inArray(loginThrottle.key, [...keys]));
      const read = keys.map((key) => {
        const row = rows.find((r) => r.key === key);
        return row ? { failures: row.failures.map(Number), pending: row.pending.map(Number) } : empty();
      });
      const entries = read.map(copy);
      const answer = change(entries);
      for (const [i, key] of keys.entries()) {
        const entry = entries[i]!;
        if (same(entry, read[i]!)) continue;
        if (isEmpty(entry)) {
          await tx.delete(loginThrottle).where(inArray(loginThrottle.key, [key]));
        } else {
          const values = { failures: entry.failures, pending: entry.pending, expiresAt: expiryOf(entry) };
          await tx
            .insert(loginThrottle)
            .values({ key, ...values })
            .onConflictDoUpdate({ target: loginThrottle.key, set: values });
        }
      }
      return answer;
    });
    if (now - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = now;
      // Keys that had failures once and were never seen again; any process may do this.
      await this.db.delete(loginThrottle).where(lte(loginThrottle.expiresAt, now));
    }
    return result;
  }
}

/**
 * Writes the changed keys only if none of the read keys changed since they were read (compare and
 * set); every key comes with four arguments: the value read ('' for none), what to do ('keep',
 * 'del' or 'set'), the new value and its time to live in milliseconds. Answers 1 when written.
 */
const SWAP = `
for i = 1, #KEYS do
  local current = redis.call('GET', KEYS[i])
  if current == false then current = '' end
  if current ~= ARGV[i * 4 - 3] then return 0 end
end
for i = 1, #KEYS do
  local action = ARGV[i * 4 - 2]
  if action == 'del' then
    redis.call('DEL', KEYS[i])
  elseif action == 'set' then
    redis.call('SET', KEYS[i], ARGV[i * 4 - 1], 'PX', ARGV[i * 4])
  end
end
return 1
`;
/** How often an update is tried again after other processes changed its keys in between. */
const MAX_TRIES = 100;

type SwapClient = Redis & { catalogThrottleSwap(numKeys: number, ...args: (string | number)[]): Promise<number> };

/**
 * Redis: one string per key (the entry as JSON) that expires with its newest timestamp. An update
 * reads the keys, changes them here with the same code as in one process, and writes them with a
 * compare-and-set script that refuses when any of them changed meanwhile; it then starts over.
 */
export class RedisThrottleStore implements ThrottleStore {
  private readonly redis: SwapClient;

  constructor(
    redis: Redis,
    private readonly prefix = 'catalog:login-throttle:',
  ) {
    this.redis = redis as SwapClient;
    if (!('catalogThrottleSwap' in redis)) redis.defineCommand('catalogThrottleSwap', { lua: SWAP });
  }

  async update<T>(keys: readonly string[], now: number, change: (entries: ThrottleEntry[]) => T): Promise<T> {
    try {
      return await this.swap(keys, now, change);
    } catch (err) {
      // Sign-in waits for Redis: while it is away, sign-ins answer 503 (retry shortly), never unthrottled.
      throw Object.assign(unavailable(), { cause: err });
    }
  }

  private async swap<T>(keys: readonly string[], now: number, change: (entries: ThrottleEntry[]) => T): Promise<T> {
    const names = keys.map((key) => this.prefix + key);
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      const raw = await this.redis.mget(...names);
      const read = raw.map((value) => (value ? parseEntry(value) : empty()));
      const entries = read.map(copy);
      const answer = change(entries);
      const args: (string | number)[] = [];
      entries.forEach((entry, i) => {
        const before = raw[i] ?? '';
        if (same(entry, read[i]!)) args.push(before, 'keep', '', 0);
        else if (isEmpty(entry)) args.push(before, 'del', '', 0);
        else args.push(before, 'set', JSON.stringify({ f: entry.failures, p: entry.pending }), Math.max(1, expiryOf(entry) - now));
      });
      // Read keys that stay as they were are compared too: a verdict rests on all of them.
      if ((await this.redis.catalogThrottleSwap(names.length, ...names, ...args)) === 1) return answer;
    }
    throw new Error('Sign-in throttling could not update its counts: too many concurrent attempts.');
  }
}

function parseEntry(value: string): ThrottleEntry {
  const parsed = JSON.parse(value) as { f?: unknown; p?: unknown };
  const numbers = (list: unknown) => (Array.isArray(list) ? list.filter((t): t is number => typeof t === 'number') : []);
  return { failures: numbers(parsed.f), pending: numbers(parsed.p) };
}

import type { Redis } from 'ioredis';
import type { Pool, QueryConfig } from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config';
import type { Database } from '../db';
import type { Db } from '../db/client';
import { asSystem } from '../db/scope';
import { createLoginThrottle, type LoginThrottle } from '../auth/loginLimiter';
import { apiRateLimiter, type ApiRateLimiter } from './rateLimit';

/**
 * A counter of rate-limiter-flexible in the chosen store: `name` keeps its keys apart from the
 * other counters', `points` are allowed per `seconds`. `insured` counters fall back to counting in
 * the process while the store is away (the library's insurance limiter); the others fail, so that
 * sign-in answers 503 rather than going unthrottled.
 */
export type LimiterFactory = (name: string, points: number, seconds: number, options?: { insured?: boolean }) => RateLimiterAbstract;

export interface Limits {
  /** Where the counts live: this process, the PostgreSQL database, or Redis. */
  kind: 'process' | 'postgres' | 'redis';
  loginThrottle: LoginThrottle;
  /** The API rate limit; unset when API_RATE_LIMIT is 0. */
  api: ApiRateLimiter | undefined;
  /** The public pages' limit per address (PUBLIC_RATE_LIMIT), counted where the API's are; unset when 0. */
  publicPages: ApiRateLimiter | undefined;
  close(): Promise<void>;
}

/** The table of RateLimiterPostgres, created by migration 0028 (docs/decisions/0178-limits-from-a-library.md). */
export const RATE_LIMITS_TABLE = 'rate_limits';

/** Counters in this process: the embedded database serves one process. */
export const memoryLimiters: LimiterFactory = (name, points, seconds) => new RateLimiterMemory({ keyPrefix: name, points, duration: seconds });

/**
 * Counters in `rate_limits`, shared by every process on the database. The library's statements go
 * through the application's pool in the system scope: the table belongs to no tenant, whatever
 * request counts in it.
 */
export function postgresLimiters(db: Db): LimiterFactory {
  const pool = (db as unknown as { $client: Pool }).$client;
  const storeClient = { query: (q: QueryConfig) => asSystem(() => pool.query(q)) };
  let pruning = false;
  return (name, points, seconds, options = {}) => {
    // Every counter shares the table: one of them deletes the rows expired an hour ago, every 5 minutes.
    const clearExpiredByTimeout = !pruning;
    pruning = true;
    return new RateLimiterPostgres({
      storeClient,
      storeType: 'client',
      tableName: RATE_LIMITS_TABLE,
      tableCreated: true,
      clearExpiredByTimeout,
      keyPrefix: name,
      points,
      duration: seconds,
      insuranceLimiter: options.insured ? new RateLimiterMemory({ points, duration: seconds }) : undefined,
    });
  };
}

/** Counters in Redis, shared by every process on it; `prefix` starts every key. */
export function redisLimiters(redis: Redis, prefix = 'catalog:'): LimiterFactory {
  return (name, points, seconds, options = {}) =>
    new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: prefix + name,
      points,
      duration: seconds,
      rejectIfRedisNotReady: true,
      insuranceLimiter: options.insured ? new RateLimiterMemory({ points, duration: seconds }) : undefined,
    });
}

/**
 * Where sign-in failures and API calls are counted (docs/decisions/0112-shared-limits.md,
 * 0178-limits-from-a-library.md): on the embedded database, which serves one process, in the
 * process; on PostgreSQL, in the database, so every server process on it counts as one; with
 * REDIS_URL, in Redis instead.
 */
export async function createLimits(config: Config, database: Database, windowMs: number): Promise<Limits> {
  let kind: Limits['kind'];
  let limiters: LimiterFactory;
  let redis: Redis | undefined;
  if (database.kind === 'pglite') {
    kind = 'process';
    limiters = memoryLimiters;
  } else if (config.REDIS_URL) {
    kind = 'redis';
    redis = await connectRedis(config.REDIS_URL);
    limiters = redisLimiters(redis);
  } else {
    kind = 'postgres';
    limiters = postgresLimiters(database.db);
  }
  const seconds = Math.ceil(windowMs / 1000);
  const limited = (name: string, max: number) => (max > 0 ? apiRateLimiter(limiters(name, max, seconds, { insured: true }), max) : undefined);
  return {
    kind,
    loginThrottle: createLoginThrottle(config, limiters),
    api: limited('rate-limit', config.API_RATE_LIMIT),
    publicPages: limited('public-limit', config.PUBLIC_RATE_LIMIT),
    close: async () => {
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** A Redis client that fails a command at once while Redis is away, instead of queueing it for long. */
export async function connectRedis(url: string): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 5000, enableAutoPipelining: true });
  // Reconnection is ioredis's own; a lost connection must not crash the process.
  redis.on('error', () => {});
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw new Error(`Could not reach Redis at REDIS_URL: ${err instanceof Error ? err.message : String(err)}`);
  }
  return redis;
}

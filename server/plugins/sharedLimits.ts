import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config';
import type { Database } from '../db';
import { createLoginThrottle, type LoginThrottle } from '../auth/loginLimiter';
import { PostgresThrottleStore, RedisThrottleStore } from '../auth/throttleStores';
import { localRateLimiter, postgresRateLimiter, redisRateLimiter, type ApiRateLimiter } from './rateLimit';

export interface Limits {
  /** Where the counts live: this process, the PostgreSQL database, or Redis. */
  kind: 'process' | 'postgres' | 'redis';
  loginThrottle: LoginThrottle;
  /** The API rate limit's store; unset when API_RATE_LIMIT is 0. */
  api: ApiRateLimiter | undefined;
  /** The public pages' limit per address (PUBLIC_RATE_LIMIT), counted where the API's are; unset when 0. */
  publicPages: ApiRateLimiter | undefined;
  close(): Promise<void>;
}

/**
 * Where sign-in failures and API calls are counted (docs/decisions/0112-shared-limits.md): on the
 * embedded database, which serves one process, in the process; on PostgreSQL, in the database, so
 * every server process on it counts as one; with REDIS_URL, in Redis instead.
 */
export async function createLimits(config: Config, database: Database, windowMs: number, log: () => FastifyBaseLogger): Promise<Limits> {
  const max = config.API_RATE_LIMIT;
  const publicMax = config.PUBLIC_RATE_LIMIT;
  if (database.kind === 'pglite') {
    return {
      kind: 'process',
      loginThrottle: createLoginThrottle(config),
      api: max > 0 ? localRateLimiter(max, windowMs) : undefined,
      publicPages: publicMax > 0 ? localRateLimiter(publicMax, windowMs) : undefined,
      close: async () => {},
    };
  }
  if (config.REDIS_URL) {
    const redis = await connectRedis(config.REDIS_URL);
    const api = max > 0 ? redisRateLimiter(redis, max, windowMs) : undefined;
    const publicPages = publicMax > 0 ? redisRateLimiter(redis, publicMax, windowMs, 'catalog:public-limit:') : undefined;
    return {
      kind: 'redis',
      loginThrottle: createLoginThrottle(config, new RedisThrottleStore(redis)),
      api,
      publicPages,
      close: async () => {
        await api?.close();
        await publicPages?.close();
        await redis.quit().catch(() => redis.disconnect());
      },
    };
  }
  const onError = (err: unknown) => log().warn({ err }, 'the API rate limit could not reach the database: counting in this process until it can');
  const api = max > 0 ? postgresRateLimiter(database.db, max, windowMs, { onError }) : undefined;
  // Same table as the API's counts: its keys are told apart by a prefix (routes/publicPages).
  const publicPages = publicMax > 0 ? postgresRateLimiter(database.db, publicMax, windowMs, { onError }) : undefined;
  return {
    kind: 'postgres',
    loginThrottle: createLoginThrottle(config, new PostgresThrottleStore(database.db)),
    api,
    publicPages,
    close: async () => {
      await api?.close();
      await publicPages?.close();
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

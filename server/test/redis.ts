import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { connectRedis } from '../plugins/sharedLimits';

/** The Redis the shared-limit tests run against (`TEST_REDIS_URL`), or undefined: those tests are then left out. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined;

/**
 * Inside a describe block: a connection to the test Redis and a key prefix of this test file's own,
 * whose keys are deleted afterwards.
 */
export function useTestRedis(): { redis: () => Redis; prefix: string } {
  let redis: Redis | undefined;
  const prefix = `catalog-test:${process.pid}:${Date.now()}:`;
  beforeAll(async () => {
    redis = await connectRedis(TEST_REDIS_URL!);
  });
  afterAll(async () => {
    if (!redis) return;
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });
  return { redis: () => redis!, prefix };
}

import { createRequire } from 'node:module';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';

/** @fastify/rate-limit's own in-memory store: its callbacks run before `incr` returns. */
const require = createRequire(import.meta.url);
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (continueExceeding: boolean, exponentialBackoff: boolean) => FastifyRateLimitStore;

/**
 * One rate-limit store shared by the rate-limit plugin and the hot reads, so a caller's requests
 * count once whichever path answers them. `Store` is what the plugin instantiates (it gets the
 * shared instance); `take` counts a request and answers the plugin's headers, or undefined when the
 * caller is over the limit (the full route then answers the 429).
 */
export function sharedRateLimitStore(max: number, windowMs: number) {
  const store = new LocalStore(false, false);
  // The plugin calls `new Store(options)`; a constructor that returns an object hands out that object.
  function Store(): FastifyRateLimitStore {
    return store;
  }
  const take = (key: string): Record<string, string> | undefined => {
    let window: { current: number; ttl: number } | undefined;
    store.incr(key, (_err, res) => (window = res), windowMs, max);
    if (!window || window.current > max) return undefined;
    return {
      'x-ratelimit-limit': String(max),
      'x-ratelimit-remaining': String(Math.max(0, max - window.current)),
      'x-ratelimit-reset': String(Math.ceil(window.ttl / 1000)),
    };
  };
  return { Store: Store as unknown as FastifyRateLimitStoreCtor, take };
}

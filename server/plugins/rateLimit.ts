import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { HotLimit } from './hotReads';

/** A caller's calls in its window, and the milliseconds left of it (as @fastify/rate-limit's stores answer). */
type Window = { current: number; ttl: number };

/**
 * The API rate limit over a counter of rate-limiter-flexible, shared by the rate-limit plugin and
 * the hot reads, so a caller's requests count once whichever path answers them. `Store` is what
 * the plugin instantiates; `take` counts a request at once and answers the plugin's headers, or
 * undefined when the request must take the full route (the caller is over the limit, or this
 * process has not heard of it yet). `admit` counts a call outside the plugin (the public pages).
 */
export interface ApiRateLimiter {
  Store: FastifyRateLimitStoreCtor;
  take: HotLimit;
  admit: Admit;
  limiter: RateLimiterAbstract;
}

/** Whether a call is admitted, and when its caller may call again when it is not. */
export type Admit = (key: string) => Promise<{ admitted: boolean; retryAfterSeconds: number }>;

/** Callers a process keeps what it heard for; past it the oldest are forgotten first. */
export const MAX_HEARD = 100_000;
/** How often a process forgets the callers whose window ended. */
const PRUNE_EVERY_MS = 1000;

/** What this process last heard from the counter about a caller, and its calls not answered yet. */
interface Heard {
  current: number;
  resetAt: number;
  /** Calls sent to the counter and not answered yet. */
  inFlight: number;
  /** Hot reads counted here, waiting for the hot consume under way to be answered. */
  unsent: number;
  hotSending: boolean;
}

/**
 * The counter's answer to a consume, whether it admitted the points or not: the library rejects
 * with its result when the points went past the limit (they are counted all the same), and with an
 * error when the store failed.
 */
export function consumed(limiter: RateLimiterAbstract, key: string, points = 1, options?: Record<string, unknown>): Promise<RateLimiterRes> {
  return limiter.consume(key, points, options).catch((err: unknown) => {
    if (err instanceof RateLimiterRes) return err;
    throw err;
  });
}

function limitHeaders(max: number, window: Window): Record<string, string> {
  return {
    'x-ratelimit-limit': String(max),
    'x-ratelimit-remaining': String(Math.max(0, max - window.current)),
    'x-ratelimit-reset': String(Math.ceil(window.ttl / 1000)),
  };
}

/**
 * The full route waits for the counter (one atomic increment in the process, in PostgreSQL or in
 * Redis). The hot reads answer from the HTTP server's request event and cannot wait: they admit a
 * call on what the counter said about the caller's previous one plus the calls still on their
 * way, and send their consumes without waiting, one at a time per caller (the calls that come
 * meanwhile go with the next one, as one consume of several points). A caller this process has
 * not heard of yet, or whose window ended, takes the full route.
 */
export function apiRateLimiter(limiter: RateLimiterAbstract, max: number): ApiRateLimiter {
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
      while (heard.size > MAX_HEARD) heard.delete(heard.keys().next().value!);
    }
    return entry;
  };
  const heardFrom = (h: Heard, res: RateLimiterRes) => {
    h.current = res.consumedPoints;
    h.resetAt = Date.now() + res.msBeforeNext;
  };
  /** Counts `points` calls of `key` and answers the caller's window as the counter tells it. */
  const count = async (key: string, points: number, options?: Record<string, unknown>): Promise<Window> => {
    const h = entryOf(key);
    h.inFlight += points;
    try {
      const res = await consumed(limiter, key, points, options);
      heardFrom(h, res);
      return { current: res.consumedPoints, ttl: res.msBeforeNext };
    } finally {
      h.inFlight -= points;
    }
  };
  const store = (prefix: string): FastifyRateLimitStore => ({
    incr: (key, cb, timeWindow) => {
      // A route of its own time window counts under its own name, from its first call.
      const options = prefix && timeWindow !== limiter.duration * 1000 ? { customDuration: Math.ceil(timeWindow / 1000) } : undefined;
      count(prefix + key, 1, options).then(
        (window) => cb(null, window),
        (err: unknown) => cb(err as Error),
      );
    },
    child: (route) => store(`${prefix}${String(route.method)}${route.url}-`),
  });
  const shared = store('');
  const sendHot = (key: string, h: Heard) => {
    const calls = h.unsent;
    h.unsent = 0;
    h.hotSending = true;
    count(key, calls)
      // The counter away: the calls were admitted; the full route takes over once this window ends.
      .catch(() => {})
      .finally(() => {
        h.hotSending = false;
        if (h.unsent > 0) sendHot(key, h);
      });
  };
  const take = (key: string) => {
    const h = heard.get(key);
    const now = Date.now();
    if (!h || now >= h.resetAt) return undefined;
    h.unsent++;
    if (!h.hotSending) sendHot(key, h);
    // What the counter last said, plus every call it has not answered yet, this one included.
    const window = { current: h.current + h.inFlight + h.unsent, ttl: h.resetAt - now };
    return window.current > max ? undefined : limitHeaders(max, window);
  };
  const admit: Admit = async (key) => {
    try {
      const window = await count(key, 1);
      return { admitted: window.current <= max, retryAfterSeconds: Math.max(1, Math.ceil(window.ttl / 1000)) };
    } catch {
      // A store that cannot answer lets the call through, as the API limit does.
      return { admitted: true, retryAfterSeconds: 0 };
    }
  };
  function Store(): FastifyRateLimitStore {
    return shared;
  }
  // The plugin calls `new Store(options)`; a constructor that returns an object hands out that object.
  return { Store: Store as unknown as FastifyRateLimitStoreCtor, take, admit, limiter };
}

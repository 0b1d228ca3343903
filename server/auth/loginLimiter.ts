import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config';
import { unavailable } from '../errors';
import type { LimiterFactory } from '../plugins/sharedLimits';
import { consumed } from '../plugins/rateLimit';
import { addressKey } from './addressKey';

/** Whether a sign-in attempt may go ahead now; when not, how long to wait. */
export type LoginVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Sign-in throttling as the sign-in route sees it (docs/decisions/0109-sign-in-throttling.md). */
export interface LoginThrottle {
  /**
   * Whether an attempt for this account from this address may go ahead now. An allowed attempt
   * counts at once, so guesses sent in parallel count from the start.
   */
  check(email: string, address: string): Promise<LoginVerdict>;
  recordFailure(email: string, address: string): Promise<void>;
  /** Clears the failures of this account from this address, and only those. */
  recordSuccess(email: string, address: string): Promise<void>;
}

export interface LoginLimits {
  /** Attempts of one account from one address per window (LOGIN_MAX_FAILURES_PER_ACCOUNT). */
  perPair: number;
  /** Attempts from one address across all accounts per window (LOGIN_MAX_FAILURES_PER_ADDRESS). */
  perAddress: number;
  /** Failures of one account across all addresses that put it under guard (LOGIN_ACCOUNT_GUARD_FAILURES). */
  accountGuard: number;
}

export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
/** Attempts a pair makes without waiting: a person mistyping a password is not slowed. */
export const FREE_FAILURES = 3;
/** The wait after the first attempt past the free ones; it doubles with each further attempt. */
export const FIRST_DELAY_MS = 10_000;
export const MAX_DELAY_MS = 5 * 60 * 1000;
/** Attempts per address an account under guard allows before that address waits out the window. */
export const GUARDED_PAIR_FAILURES = 1;

/** The wait after a pair's `attempt`-th attempt in its window, once past the free ones. */
function delaySeconds(attempt: number): number {
  return Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (attempt - FREE_FAILURES)) / 1000;
}

/**
 * Sign-in throttling on rate-limiter-flexible's counters, in whichever store they live (the
 * process, PostgreSQL or Redis: every server process on a shared store counts as one), after the
 * library's brute-force pattern of consecutive failures by account and address plus failures by
 * address. An attempt is counted when it is checked, by one atomic consume per counter, and given
 * back when it is refused or succeeds:
 *
 * - per (account, address) pair, a window of 15 minutes from its first attempt: the first three
 *   attempts go at once; from the third on, each attempt holds the pair's delay slot (a counter of
 *   one point whose window is the delay: 10 s, doubling, at most 5 minutes) and the next attempt
 *   waits until it ends; past the pair limit the pair waits for its window to end;
 * - per address, across accounts, a window of 15 minutes;
 * - per account, across addresses, its failures: at the guard the account is under guard, and each
 *   address may try once for it, then waits out the pair's window. An address with no attempt for
 *   the account is never slowed for it, so an attacker elsewhere cannot lock its owner out.
 *
 * Unknown accounts are counted exactly like known ones. A store that fails answers 503.
 */
export class LimitedLoginThrottle implements LoginThrottle {
  private readonly pair: RateLimiterAbstract;
  private readonly address: RateLimiterAbstract;
  private readonly account: RateLimiterAbstract;
  private readonly delay: RateLimiterAbstract;

  constructor(
    private readonly limits: LoginLimits,
    limiters: LimiterFactory,
  ) {
    const window = LOGIN_WINDOW_MS / 1000;
    this.pair = limiters('login-pair', limits.perPair, window);
    this.address = limiters('login-address', limits.perAddress, window);
    this.account = limiters('login-account', limits.accountGuard, window);
    this.delay = limiters('login-delay', 1, delaySeconds(FREE_FAILURES));
  }

  check(email: string, address: string): Promise<LoginVerdict> {
    return failClosed(async () => {
      const keys = keysOf(email, address);
      const guarded = live(await this.account.get(keys.account)) >= this.limits.accountGuard;
      const [pair, perAddress] = await Promise.all([consumed(this.pair, keys.pair), consumed(this.address, keys.address)]);
      let wait = 0;
      if (pair.consumedPoints > (guarded ? GUARDED_PAIR_FAILURES : this.limits.perPair)) wait = pair.msBeforeNext;
      if (perAddress.consumedPoints > this.limits.perAddress) wait = Math.max(wait, perAddress.msBeforeNext);
      if (wait === 0 && !guarded && pair.consumedPoints >= FREE_FAILURES) {
        const slot = await consumed(this.delay, keys.pair, 1, { customDuration: delaySeconds(pair.consumedPoints) });
        if (slot.consumedPoints > 1) wait = slot.msBeforeNext;
      }
      if (wait <= 0) return { allowed: true };
      // A refused attempt counts nowhere.
      await Promise.all([this.pair.reward(keys.pair), this.address.reward(keys.address)]);
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) };
    });
  }

  recordFailure(email: string, address: string): Promise<void> {
    // The attempt counted for the pair and the address when it was checked.
    return failClosed(async () => void (await consumed(this.account, keysOf(email, address).account)));
  }

  recordSuccess(email: string, address: string): Promise<void> {
    const keys = keysOf(email, address);
    // The account's failures stay: they are other addresses' guesses, and keep the guard up.
    return failClosed(async () => {
      await Promise.all([this.pair.delete(keys.pair), this.delay.delete(keys.pair), this.address.reward(keys.address)]);
    });
  }
}

/** The points of a counter that has not expired; 0 for none (an expired one may still be held). */
function live(res: RateLimiterRes | null): number {
  return res && res.msBeforeNext > 0 ? res.consumedPoints : 0;
}

/** Sign-in waits for its counters: while their store is away, it answers 503 (retry shortly), never unthrottled. */
async function failClosed<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw Object.assign(unavailable(), { cause: err });
  }
}

/** No throttling (LOGIN_THROTTLE=false): for the security scan and suites that sign in thousands of times. */
export const unthrottled: LoginThrottle = {
  check: async () => ({ allowed: true }),
  recordFailure: async () => undefined,
  recordSuccess: async () => undefined,
};

/** The configured throttle, counting in the store of `limiters`. */
export function createLoginThrottle(
  config: Pick<Config, 'LOGIN_THROTTLE' | 'LOGIN_MAX_FAILURES_PER_ACCOUNT' | 'LOGIN_MAX_FAILURES_PER_ADDRESS' | 'LOGIN_ACCOUNT_GUARD_FAILURES'>,
  limiters: LimiterFactory,
): LoginThrottle {
  if (!config.LOGIN_THROTTLE) return unthrottled;
  const limits: LoginLimits = {
    perPair: config.LOGIN_MAX_FAILURES_PER_ACCOUNT,
    perAddress: config.LOGIN_MAX_FAILURES_PER_ADDRESS,
    accountGuard: config.LOGIN_ACCOUNT_GUARD_FAILURES,
  };
  return new LimitedLoginThrottle(limits, limiters);
}

/** The counters' keys: the email case-insensitively, an IPv6 address as its /64. */
function keysOf(email: string, address: string) {
  const account = email.trim().toLowerCase();
  const from = addressKey(address);
  // A line break cannot occur in an email address or a network address.
  return { pair: `${account}\n${from}`, account, address: from };
}

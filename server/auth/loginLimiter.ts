import type { Config } from '../config';
import { addressKey } from './addressKey';

/** Whether a sign-in attempt may go ahead now; when not, how long to wait. */
export type LoginVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Sign-in throttling as the sign-in route sees it. The methods may answer promises: the counts live
 * in the process (`LoginLimiter`) or, shared by every server process, in PostgreSQL or Redis
 * (`SharedLoginThrottle`, docs/decisions/0112-shared-limits.md).
 */
export interface LoginThrottle {
  /**
   * Whether an attempt for this account from this address may go ahead now. An allowed attempt is
   * held as pending until its outcome is recorded, so guesses sent in parallel count from the start.
   */
  check(email: string, address: string, now?: number): LoginVerdict | Promise<LoginVerdict>;
  recordFailure(email: string, address: string, now?: number): void | Promise<void>;
  /** Clears the failures of this account from this address, and only those. */
  recordSuccess(email: string, address: string, now?: number): void | Promise<void>;
}

export interface LoginLimits {
  /** Failures of one account from one address per window (LOGIN_MAX_FAILURES_PER_ACCOUNT). */
  perPair: number;
  /** Failures from one address across all accounts per window (LOGIN_MAX_FAILURES_PER_ADDRESS). */
  perAddress: number;
  /** Failures of one account across all addresses that put it under guard (LOGIN_ACCOUNT_GUARD_FAILURES). */
  accountGuard: number;
}

export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
/** Failures a pair makes without waiting: a person mistyping a password is not slowed. */
export const FREE_FAILURES = 3;
/** The wait after the first failure past the free ones; it doubles with each further failure. */
export const FIRST_DELAY_MS = 10_000;
export const MAX_DELAY_MS = 5 * 60 * 1000;
/** Failures per address an account under guard allows before that address waits out the window. */
export const GUARDED_PAIR_FAILURES = 1;
/** How long an allowed attempt stays pending when its outcome never comes (the request failed). */
export const PENDING_MS = 30_000;
export const MAX_KEYS = 100_000;
const PRUNE_EVERY_MS = 60_000;

/** Timestamps of failures and of attempts still pending; each list in the order it was written. */
export interface ThrottleEntry {
  failures: number[];
  pending: number[];
}
type Entry = ThrottleEntry;

/**
 * In-process sign-in throttling. Failures count per (account, address) pair: the first few are
 * free, each further attempt waits a doubling delay, and at the pair limit the pair waits until
 * its oldest failure leaves the window. An address has its own limit across accounts. An account
 * with many failures across addresses is under guard: every address may fail once for it, then
 * waits out the window. An address with no recent failure for an account is never slowed for it,
 * so an attacker elsewhere cannot lock its owner out. Unknown accounts are counted exactly like
 * known ones. The map holds at most `maxKeys` keys, least recently used forgotten first.
 */
export class LoginLimiter implements LoginThrottle {
  private readonly entries = new Map<string, Entry>();
  private lastPrune = 0;
  private readonly clock: () => number;
  private readonly maxKeys: number;

  constructor(
    private readonly limits: LoginLimits,
    options: { now?: () => number; maxKeys?: number } = {},
  ) {
    // Read Date.now on each call, so a test that moves the system clock moves this one too.
    this.clock = options.now ?? (() => Date.now());
    this.maxKeys = options.maxKeys ?? MAX_KEYS;
  }

  get size(): number {
    return this.entries.size;
  }

  check(email: string, address: string, now = this.clock()): LoginVerdict {
    const keys = keysOf(email, address);
    const wait = waitOf(this.limits, this.read(keys.pair, now), this.read(keys.address, now), this.read(keys.account, now), now);
    if (wait > 0) return refusal(wait);
    this.touch(keys.pair, now).pending.push(now);
    this.touch(keys.address, now).pending.push(now);
    return { allowed: true };
  }

  recordFailure(email: string, address: string, now = this.clock()): void {
    const keys = keysOf(email, address);
    const caps: [string, number][] = [
      [keys.pair, this.limits.perPair],
      [keys.address, this.limits.perAddress],
      [keys.account, this.limits.accountGuard],
    ];
    for (const [key, cap] of caps) addFailure(this.touch(key, now), cap, now);
  }

  recordSuccess(email: string, address: string, now = this.clock()): void {
    const keys = keysOf(email, address);
    this.entries.delete(keys.pair);
    // The account's failures stay: they are other addresses' guesses, and keep the guard up.
    const perAddress = this.read(keys.address, now);
    perAddress.pending.shift();
    if (!perAddress.failures.length && !perAddress.pending.length) this.entries.delete(keys.address);
  }

  /** The entry with its expired timestamps dropped; an empty one (not stored) when there is none. */
  private read(key: string, now: number): Entry {
    const entry = this.entries.get(key);
    if (!entry) return { failures: [], pending: [] };
    dropExpired(entry, now);
    if (!entry.failures.length && !entry.pending.length) this.entries.delete(key);
    return entry;
  }

  /** The stored entry for a write, made the most recently used; prunes and caps the map first. */
  private touch(key: string, now: number): Entry {
    if (now - this.lastPrune >= PRUNE_EVERY_MS) this.prune(now);
    const entry = this.read(key, now);
    this.entries.delete(key);
    this.entries.set(key, entry);
    // A Map iterates in insertion order, so the first key is the least recently used.
    while (this.entries.size > this.maxKeys) this.entries.delete(this.entries.keys().next().value!);
    return entry;
  }

  private prune(now: number): void {
    this.lastPrune = now;
    for (const key of [...this.entries.keys()]) this.read(key, now);
  }
}

/**
 * Where a shared throttle keeps its entries: PostgreSQL or Redis (server/auth/throttleStores.ts).
 */
export interface ThrottleStore {
  /**
   * Reads the entries of `keys` (an empty one for a key that has none), lets `change` edit them and
   * keeps what it changed, as one step for every process using the store: no other update of any
   * of these keys comes between the read and the write. `change` may run more than once (a store
   * that retries on a conflict), so it only edits the entries and answers from them. `now` dates
   * what is kept, for expiry.
   */
  update<T>(keys: readonly string[], now: number, change: (entries: ThrottleEntry[]) => T): Promise<T>;
}

/**
 * Sign-in throttling shared by every server process on one store: the same rules and figures as
 * `LoginLimiter`, each step one atomic update of the store (there is no cap on keys: the store
 * forgets expired ones). Every call goes to the store: sign-ins are rare, and a count that another
 * process has not seen yet is exactly what an attacker spreading guesses over processes would use.
 */
export class SharedLoginThrottle implements LoginThrottle {
  private readonly clock: () => number;

  constructor(
    private readonly limits: LoginLimits,
    private readonly store: ThrottleStore,
    options: { now?: () => number } = {},
  ) {
    this.clock = options.now ?? (() => Date.now());
  }

  check(email: string, address: string, now = this.clock()): Promise<LoginVerdict> {
    const keys = keysOf(email, address);
    return this.store.update([keys.pair, keys.address, keys.account], now, ([pair, perAddress, account]): LoginVerdict => {
      for (const entry of [pair!, perAddress!, account!]) dropExpired(entry, now);
      const wait = waitOf(this.limits, pair!, perAddress!, account!, now);
      if (wait > 0) return refusal(wait);
      pair!.pending.push(now);
      perAddress!.pending.push(now);
      return { allowed: true };
    });
  }

  async recordFailure(email: string, address: string, now = this.clock()): Promise<void> {
    const keys = keysOf(email, address);
    const caps = [this.limits.perPair, this.limits.perAddress, this.limits.accountGuard];
    await this.store.update([keys.pair, keys.address, keys.account], now, (entries) => {
      entries.forEach((entry, i) => {
        dropExpired(entry, now);
        addFailure(entry, caps[i]!, now);
      });
    });
  }

  async recordSuccess(email: string, address: string, now = this.clock()): Promise<void> {
    const keys = keysOf(email, address);
    // The account's failures stay: they are other addresses' guesses, and keep the guard up.
    await this.store.update([keys.pair, keys.address], now, ([pair, perAddress]) => {
      pair!.failures = [];
      pair!.pending = [];
      dropExpired(perAddress!, now);
      perAddress!.pending.shift();
    });
  }
}

/** When an entry's newest timestamp stops counting: how long a store must keep it. */
export function expiryOf(entry: ThrottleEntry): number {
  return Math.max(0, ...entry.failures.map((t) => t + LOGIN_WINDOW_MS), ...entry.pending.map((t) => t + PENDING_MS));
}

/** No throttling (LOGIN_THROTTLE=false): for the security scan and suites that sign in thousands of times. */
export const unthrottled: LoginThrottle = {
  check: () => ({ allowed: true }),
  recordFailure: () => undefined,
  recordSuccess: () => undefined,
};

/** The configured throttle: in the process, or shared through `store` when one is given. */
export function createLoginThrottle(
  config: Pick<Config, 'LOGIN_THROTTLE' | 'LOGIN_MAX_FAILURES_PER_ACCOUNT' | 'LOGIN_MAX_FAILURES_PER_ADDRESS' | 'LOGIN_ACCOUNT_GUARD_FAILURES'>,
  store?: ThrottleStore,
): LoginThrottle {
  if (!config.LOGIN_THROTTLE) return unthrottled;
  const limits: LoginLimits = {
    perPair: config.LOGIN_MAX_FAILURES_PER_ACCOUNT,
    perAddress: config.LOGIN_MAX_FAILURES_PER_ADDRESS,
    accountGuard: config.LOGIN_ACCOUNT_GUARD_FAILURES,
  };
  return store ? new SharedLoginThrottle(limits, store) : new LoginLimiter(limits);
}

function keysOf(email: string, address: string) {
  const account = email.trim().toLowerCase();
  const from = addressKey(address);
  // A line break cannot occur in an email address or a network address.
  return { pair: `p\n${account}\n${from}`, account: `a\n${account}`, address: `ip\n${from}` };
}

/**
 * Milliseconds an attempt must wait, from the entries of its pair, its address and its account
 * (expired timestamps dropped); 0 when it may go ahead.
 */
function waitOf(limits: LoginLimits, pair: Entry, perAddress: Entry, account: Entry, now: number): number {
  const guarded = account.failures.length >= limits.accountGuard;
  const pairWait = guarded ? untilBelow(pair, GUARDED_PAIR_FAILURES, now) : Math.max(untilBelow(pair, limits.perPair, now), backoff(pair, now));
  return Math.max(pairWait, untilBelow(perAddress, limits.perAddress, now));
}

function refusal(waitMs: number): LoginVerdict {
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}

/** Drops, in place, the failures that left the window and the attempts no longer pending. */
function dropExpired(entry: Entry, now: number): void {
  entry.failures = entry.failures.filter((t) => now - t < LOGIN_WINDOW_MS);
  entry.pending = entry.pending.filter((t) => now - t < PENDING_MS);
}

/** An attempt's outcome: its pending mark becomes a failure. */
function addFailure(entry: Entry, cap: number, now: number): void {
  entry.pending.shift();
  entry.failures.push(now);
  // Only the newest `cap` failures decide anything; older ones need no memory.
  if (entry.failures.length > cap) entry.failures.splice(0, entry.failures.length - cap);
}

/** Milliseconds until fewer than `max` failures and pending attempts remain; 0 when already so. */
function untilBelow(entry: Entry, max: number, now: number): number {
  const expiries = [...entry.failures.map((t) => t + LOGIN_WINDOW_MS), ...entry.pending.map((t) => t + PENDING_MS)].sort((a, b) => a - b);
  if (expiries.length < max) return 0;
  return Math.max(0, expiries[expiries.length - max]! - now);
}

/** Milliseconds a pair still waits after its latest attempt, once past its free failures. */
function backoff(entry: Entry, now: number): number {
  const attempts = entry.failures.length + entry.pending.length;
  if (attempts < FREE_FAILURES) return 0;
  const latest = Math.max(...entry.failures, ...entry.pending);
  const delay = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (attempts - FREE_FAILURES));
  return Math.max(0, latest + delay - now);
}

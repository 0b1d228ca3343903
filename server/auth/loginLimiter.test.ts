import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../config';
import { memoryLimiters } from '../plugins/sharedLimits';
import { createLoginThrottle, LimitedLoginThrottle, LOGIN_WINDOW_MS, MAX_DELAY_MS, unthrottled, type LoginLimits, type LoginVerdict } from './loginLimiter';

/** Sign-in throttling counted in the process (the embedded database's store), on a clock the tests move. */
const DEFAULTS: LoginLimits = { perPair: 5, perAddress: 30, accountGuard: 100 };
const SECOND = 1000;
const VICTIM = 'owner@example.com';
/** How long an attempt whose outcome never came goes on counting: at most the delay it started. */
const LOST_ATTEMPT_MS = 30_000;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
});
afterEach(() => vi.useRealTimers());

/** A throttle of its own, counting in the process. */
function setup(limits: Partial<LoginLimits> = {}) {
  const limiter = new LimitedLoginThrottle({ ...DEFAULTS, ...limits }, memoryLimiters);
  const advance = (ms: number) => vi.setSystemTime(Date.now() + ms);
  /** One wrong password, as the sign-in route does it: check, then record the failure when allowed. */
  const fail = async (email: string, address: string): Promise<LoginVerdict> => {
    const verdict = await limiter.check(email, address);
    if (verdict.allowed) await limiter.recordFailure(email, address);
    return verdict;
  };
  /** Wrong passwords from one address, waiting out every delay, until the address must wait out the window. */
  const failUntilWindow = async (email: string, address: string): Promise<{ failures: number; waits: number[]; windowWait: number }> => {
    const waits: number[] = [];
    for (let failures = 0; ;) {
      const verdict = await fail(email, address);
      if (verdict.allowed) failures++;
      else if (verdict.retryAfterSeconds * SECOND > MAX_DELAY_MS) return { failures, waits, windowWait: verdict.retryAfterSeconds };
      else {
        waits.push(verdict.retryAfterSeconds);
        advance(verdict.retryAfterSeconds * SECOND);
      }
    }
  };
  return { limiter, advance, fail, failUntilWindow };
}

const refused = (retryAfterSeconds: number) => ({ allowed: false, retryAfterSeconds });

describe('per (account, address) pair', () => {
  it('lets three failures through at once, then makes each attempt wait 10 s, then 20 s', async () => {
    const { limiter, advance, fail } = setup();
    for (let i = 0; i < 3; i++) expect(await fail(VICTIM, '127.0.0.1')).toEqual({ allowed: true });
    expect(await limiter.check(VICTIM, '127.0.0.1')).toEqual(refused(10));
    advance(2.5 * SECOND);
    expect(await limiter.check(VICTIM, '127.0.0.1')).toEqual(refused(8));
    advance(7.5 * SECOND);
    expect(await fail(VICTIM, '127.0.0.1')).toEqual({ allowed: true });
    expect(await limiter.check(VICTIM, '127.0.0.1')).toEqual(refused(20));
    advance(19 * SECOND);
    expect(await limiter.check(VICTIM, '127.0.0.1')).toEqual(refused(1));
    advance(1 * SECOND);
    expect(await fail(VICTIM, '127.0.0.1')).toEqual({ allowed: true });
  });

  it('at the pair limit waits until the oldest failure is 15 minutes old', async () => {
    const { limiter, advance, failUntilWindow } = setup();
    const run = await failUntilWindow(VICTIM, '127.0.0.1');
    expect(run).toEqual({ failures: 5, waits: [10, 20], windowWait: 15 * 60 - 30 });
    advance((15 * 60 - 30) * SECOND - 1);
    expect(await limiter.check(VICTIM, '127.0.0.1')).toEqual(refused(1));
    advance(1);
    // The first three failures have left the window; the two left are under the free three.
    expect(await limiter.check(VICTIM, '127.0.0.1')).toEqual({ allowed: true });
  });

  it('doubles the delay with each failure, up to 5 minutes, with a larger pair limit', async () => {
    const { limiter, advance, fail } = setup({ perPair: 10 });
    for (let i = 0; i < 3; i++) await fail(VICTIM, '127.0.0.1');
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const verdict = await limiter.check(VICTIM, '127.0.0.1');
      if (verdict.allowed) throw new Error(`attempt ${i + 4} was not slowed`);
      waits.push(verdict.retryAfterSeconds);
      advance(verdict.retryAfterSeconds * SECOND);
      expect(await fail(VICTIM, '127.0.0.1')).toEqual({ allowed: true });
    }
    expect(waits).toEqual([10, 20, 40, 80, 160, 300]);
    // Nine failures: the next would wait 640 s, but the delay stops growing at 5 minutes.
    expect(await limiter.check(VICTIM, '127.0.0.1')).toEqual(refused(300));
  });

  it("counts one account's failures apart from another's on the same address", async () => {
    const { limiter, failUntilWindow } = setup();
    await failUntilWindow(VICTIM, '127.0.0.1');
    expect(await limiter.check('someone.else@example.com', '127.0.0.1')).toEqual({ allowed: true });
  });

  it('treats the email case-insensitively and an IPv6 /64 as one address', async () => {
    const { limiter, fail } = setup();
    await fail(VICTIM, '2001:db8:1:2::1');
    await fail(VICTIM.toUpperCase(), '2001:db8:1:2:ffff::9');
    await fail(VICTIM, '2001:db8:1:2:aaaa:bbbb:cccc:dddd');
    expect(await limiter.check(VICTIM, '2001:db8:1:2::77')).toEqual(refused(10));
    expect(await limiter.check(VICTIM, '2001:db8:1:3::1')).toEqual({ allowed: true });
  });

  it('counts attempts from the moment they are checked, so guesses sent in parallel are slowed too', async () => {
    const { limiter, advance } = setup();
    const verdicts = await Promise.all(Array.from({ length: 5 }, () => limiter.check(VICTIM, '127.0.0.1')));
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, false, false]);
    // An attempt whose outcome never comes (the request failed) holds the pair for its delay only.
    advance(LOST_ATTEMPT_MS);
    expect(await limiter.check(VICTIM, '127.0.0.1')).toEqual({ allowed: true });
  });
});

describe('a successful sign-in', () => {
  it("clears the pair's failures, so the owner's next typing mistakes are free again", async () => {
    const { limiter, advance, fail } = setup();
    for (let i = 0; i < 3; i++) await fail(VICTIM, '127.0.0.1');
    advance(10 * SECOND);
    expect(await limiter.check(VICTIM, '127.0.0.1')).toEqual({ allowed: true });
    await limiter.recordSuccess(VICTIM, '127.0.0.1');
    for (let i = 0; i < 3; i++) expect(await fail(VICTIM, '127.0.0.1')).toEqual({ allowed: true });
    expect(await limiter.check(VICTIM, '127.0.0.1')).toEqual(refused(10));
  });

  it("does not clear the address's failures for other accounts", async () => {
    const { limiter, fail } = setup({ perAddress: 3 });
    await fail('a@example.com', '127.0.0.1');
    await fail('b@example.com', '127.0.0.1');
    expect(await limiter.check(VICTIM, '127.0.0.1')).toEqual({ allowed: true });
    await limiter.recordSuccess(VICTIM, '127.0.0.1');
    await fail('c@example.com', '127.0.0.1');
    expect(await limiter.check(VICTIM, '127.0.0.1')).toEqual(refused(15 * 60));
  });
});

describe('per address', () => {
  it('refuses an address after 30 failures across accounts until the oldest leaves the window', async () => {
    const { limiter, advance, fail } = setup();
    for (let i = 0; i < 30; i++) {
      expect(await fail(`nobody-${i}@example.com`, '127.0.0.9')).toEqual({ allowed: true });
      advance(SECOND);
    }
    expect(await limiter.check('nobody-30@example.com', '127.0.0.9')).toEqual(refused(15 * 60 - 30));
    // The limit is the address's own: another address is not slowed, even for the same accounts.
    expect(await limiter.check('nobody-0@example.com', '127.0.0.10')).toEqual({ allowed: true });
    advance((15 * 60 - 30) * SECOND);
    expect(await limiter.check('nobody-30@example.com', '127.0.0.9')).toEqual({ allowed: true });
  });
});

describe('account guard', () => {
  it('after 100 failures across addresses gives each address one failure for the account', async () => {
    const { limiter, failUntilWindow } = setup();
    for (let i = 1; i <= 20; i++) expect((await failUntilWindow(VICTIM, `127.1.0.${i}`)).failures).toBe(5);
    const fresh = await failUntilWindow(VICTIM, '127.2.0.1');
    expect(fresh.failures).toBe(1);
    expect(fresh.windowWait).toBe(15 * 60);
    // Other accounts keep their own budget on the same addresses.
    expect((await failUntilWindow('other@example.com', '127.2.0.2')).failures).toBe(5);
    // The owner, from an address with no failure for the account, goes straight through.
    expect(await limiter.check(VICTIM, '192.168.7.7')).toEqual({ allowed: true });
  });

  it('lifts when the failures across addresses fall below the threshold again', async () => {
    const { advance, failUntilWindow } = setup();
    for (let i = 1; i <= 20; i++) await failUntilWindow(VICTIM, `127.1.0.${i}`);
    advance(LOGIN_WINDOW_MS);
    expect((await failUntilWindow(VICTIM, '127.2.0.1')).failures).toBe(5);
  });

  it('lets the owner sign in from a clean address at every moment of an attack from many addresses', async () => {
    const { limiter, advance, fail } = setup();
    let attackerAllowed = 0;
    let attempts = 0;
    // An hour of guessing: 200 addresses each try every 5 seconds, round after round.
    for (let round = 0; round < 60 * 12; round++) {
      for (let a = 0; a < 200; a++) {
        attempts++;
        if ((await fail(VICTIM, `127.${a >> 8}.${a & 255}.1`)).allowed) attackerAllowed++;
      }
      if (round % 12 === 0) {
        const owner = `172.16.0.${round / 12}`;
        expect(await limiter.check(VICTIM, owner)).toEqual({ allowed: true });
        await limiter.recordSuccess(VICTIM, owner);
      }
      advance(5 * SECOND);
    }
    // Without the guard 200 addresses would get 5 guesses each per 15 minutes: 4,000 an hour. With
    // it each gets about one per 15 minutes.
    expect(attempts).toBe(144_000);
    expect(attackerAllowed).toBeLessThanOrEqual(200 * 4);
  });
});

describe('configuration', () => {
  it('builds the limiter from the defaults: 5 per pair, 30 per address, guard at 100', async () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      LOGIN_MAX_FAILURES_PER_ACCOUNT: 5,
      LOGIN_MAX_FAILURES_PER_ADDRESS: 30,
      LOGIN_ACCOUNT_GUARD_FAILURES: 100,
      LOGIN_THROTTLE: true,
    });
    expect(createLoginThrottle(config, memoryLimiters)).toBeInstanceOf(LimitedLoginThrottle);
  });

  it('refuses more than 10 failures per account from one address', async () => {
    expect(() => loadConfig({ LOGIN_MAX_FAILURES_PER_ACCOUNT: '11' })).toThrow(/LOGIN_MAX_FAILURES_PER_ACCOUNT/);
    expect(() => loadConfig({ LOGIN_MAX_FAILURES_PER_ACCOUNT: '1000000' })).toThrow(/LOGIN_MAX_FAILURES_PER_ACCOUNT/);
    expect(loadConfig({ LOGIN_MAX_FAILURES_PER_ACCOUNT: '10' }).LOGIN_MAX_FAILURES_PER_ACCOUNT).toBe(10);
  });

  it('refuses an account guard below 10 times the pair limit', async () => {
    expect(() => loadConfig({ LOGIN_ACCOUNT_GUARD_FAILURES: '49' })).toThrow(/LOGIN_ACCOUNT_GUARD_FAILURES: must be at least 10 times/);
    expect(() => loadConfig({ LOGIN_MAX_FAILURES_PER_ACCOUNT: '10', LOGIN_ACCOUNT_GUARD_FAILURES: '99' })).toThrow(
      /at least 10 times LOGIN_MAX_FAILURES_PER_ACCOUNT \(100\)/,
    );
    expect(loadConfig({ LOGIN_MAX_FAILURES_PER_ACCOUNT: '2', LOGIN_ACCOUNT_GUARD_FAILURES: '20' }).LOGIN_ACCOUNT_GUARD_FAILURES).toBe(20);
  });

  it('turns throttling off only with LOGIN_THROTTLE=false', async () => {
    const throttle = createLoginThrottle(loadConfig({ LOGIN_THROTTLE: 'false' }), memoryLimiters);
    expect(throttle).toBe(unthrottled);
    for (let i = 0; i < 100; i++) await throttle.recordFailure(VICTIM, '127.0.0.1');
    expect(await throttle.check(VICTIM, '127.0.0.1')).toEqual({ allowed: true });
  });
});

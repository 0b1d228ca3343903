import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, type TestApp } from '../app';
import { createTenant, createUser, PASSWORD } from '../factories';
import { recordFigure } from './figures';

/**
 * Suite 7, headers and limits, with the product's default limits: how many failed sign-ins one
 * account gets from one address and how long it waits between them, after how many failures across
 * addresses an account is guarded and what each address then gets, how many failures one address
 * gets across accounts, that the owner signs in from a clean address throughout, how many calls a
 * signed-in user gets per minute, the body limit, CORS and the Content-Security-Policy. The figures
 * are measured through the API, not read from the configuration; the sign-in waits are measured on
 * a moved system clock, so the suite does not sleep.
 */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ API_RATE_LIMIT: '600' });
});
afterAll(() => t.close());
afterEach(() => vi.useRealTimers());

const login = (email: string, password: string, address: string) =>
  t.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: address, payload: { email, password } });

async function allowedBefore429(attempt: (i: number) => Promise<{ statusCode: number }>, max: number): Promise<number> {
  for (let i = 0; i < max; i++) if ((await attempt(i)).statusCode === 429) return i;
  return max;
}

/** Seconds a 429 asks the caller to wait; fails the test when the header is missing. */
function retryAfter(res: { statusCode: number; headers: Record<string, unknown> }): number {
  expect(res.statusCode).toBe(429);
  expect(String(res.headers['retry-after'])).toMatch(/^[1-9]\d*$/);
  return Number(res.headers['retry-after']);
}

/**
 * Wrong passwords for one account from one address, waiting out each delay the 429 names (by
 * moving the clock), until the wait is longer than any delay: the address must then wait for its
 * failures to leave the window.
 */
async function failuresFrom(email: string, address: string) {
  const delays: number[] = [];
  for (let failures = 0; failures < 50;) {
    const res = await login(email, 'wrong-password', address);
    if (res.statusCode === 401) {
      failures++;
      continue;
    }
    const wait = retryAfter(res);
    if (wait > 5 * 60) return { failures, delays, windowWait: wait };
    delays.push(wait);
    vi.setSystemTime(Date.now() + wait * 1000);
  }
  throw new Error(`no lasting 429 for ${email} from ${address}`);
}

describe('headers and limits', () => {
  it('measures the limits and headers a caller meets', async () => {
    const tenant = await createTenant(t.db);
    const victim = await createUser(t.db, tenant.id);
    const guarded = await createUser(t.db, tenant.id);
    const user = await createUser(t.db, tenant.id);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });

    // Failed sign-ins for one account from one address, and the waits between them.
    const pair = await failuresFrom(victim.email, '10.1.0.1');
    // The right password waits on that address too; the owner, from another address, signs in.
    retryAfter(await login(victim.email, PASSWORD, '10.1.0.1'));
    const ownerDuringPairLimit = (await login(victim.email, PASSWORD, '10.1.1.1')).statusCode;

    // One account from address after address, until an address gets fewer failures than the first.
    let acrossAddresses = 0;
    let guardedBudget = 0;
    for (let a = 1; a <= 40 && !guardedBudget; a++) {
      const run = await failuresFrom(guarded.email, `10.5.0.${a}`);
      if (run.failures < pair.failures) guardedBudget = run.failures;
      else acrossAddresses += run.failures;
    }
    const ownerUnderGuard = (await login(guarded.email, PASSWORD, '10.5.1.1')).statusCode;

    // Failed sign-ins from one address, each for a different account.
    const perAddress = await allowedBefore429((i) => login(`nobody-${i}@example.com`, 'wrong-password', '10.2.0.1'), 100);
    const addressWait = retryAfter(await login('nobody-x@example.com', 'wrong-password', '10.2.0.1'));
    vi.useRealTimers();

    // Calls per minute for one signed-in user.
    const token = (await login(user.email, PASSWORD, '10.3.0.1')).json().token as string;
    const perMinute = await allowedBefore429(() => t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } }), 1000);
    const overMinute = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } });

    const big = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: '10.4.0.1',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(1024 * 1024) }),
    });
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/services',
      headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET' },
    });
    const health = await t.app.inject({ method: 'GET', url: '/api/health', headers: { origin: 'https://elsewhere.example' } });
    const corsHeaders = [...Object.keys(preflight.headers), ...Object.keys(health.headers)].filter((h) => h.startsWith('access-control-'));
    const csp = String(health.headers['content-security-policy']);
    const scriptSrc = /script-src ([^;]*)/.exec(csp)?.[1] ?? '';

    // The clock stands still but for the moves, so the waits are exact: the fifth failure came 30 s
    // after the first, which leaves the window 15 minutes after it came.
    expect(pair).toEqual({ failures: 5, delays: [10, 20], windowWait: 15 * 60 - 30 });
    expect(ownerDuringPairLimit).toBe(200);
    expect(acrossAddresses).toBe(100);
    expect(guardedBudget).toBe(1);
    expect(ownerUnderGuard).toBe(200);
    expect(perAddress).toBe(30);
    expect(addressWait).toBe(15 * 60);
    expect(perMinute).toBe(600);
    expect(retryAfter(overMinute)).toBeLessThanOrEqual(60);
    expect(big.statusCode).toBe(413);
    expect(corsHeaders).toEqual([]);
    expect(scriptSrc.trim()).toBe("'self'");
    for (const header of ['x-content-type-options', 'x-frame-options', 'referrer-policy', 'cross-origin-opener-policy']) {
      expect(health.headers[header], header).toBeDefined();
    }

    recordFigure(
      'headers-and-limits',
      `sign-in: ${pair.failures} failed attempts per account from one address per 15 minutes ` +
        `(${pair.failures - pair.delays.length} at once, then after ${pair.delays.map((d) => `${d} s`).join(' and ')}), ` +
        `${guardedBudget} per address once an account has ${acrossAddresses} across addresses, ` +
        `${perAddress} per address across accounts, each 429 with Retry-After; the owner from a clean address: ${ownerUnderGuard}; ` +
        `API: ${perMinute} calls per minute per signed-in user, then 429; a body over 1 MB: ${big.statusCode}; ` +
        `CORS: ${corsHeaders.length} Access-Control headers; CSP script-src ${scriptSrc.trim()}`,
      {
        perPair: pair.failures,
        pairDelays: pair.delays,
        accountGuardAt: acrossAddresses,
        guardedBudget,
        ownerUnderGuard,
        perAddress,
        perMinute,
        bodyLimitStatus: big.statusCode,
        corsHeaders,
        csp,
      },
    );
  }, 180_000);
});

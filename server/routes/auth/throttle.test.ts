import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../common/messages';
import { buildTestApp, type TestApp } from '../../test/app';
import { createTenant, createUser, PASSWORD } from '../../test/factories';

/**
 * Sign-in throttling through the API, with the product's default limits: an attacker's wrong
 * passwords slow the attacker's address, never the owner's sign-in from another address.
 */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const login = (app: TestApp['app'], email: string, password: string, remoteAddress: string) =>
  app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress, payload: { email, password } });

/** A 429 of the sign-in throttle: the product's message and a whole number of seconds to wait. */
function expectThrottled(res: Awaited<ReturnType<typeof login>>): number {
  expect(res.statusCode).toBe(429);
  expect(res.json()).toMatchObject({ error: M.tooManyLoginAttempts });
  expect(String(res.headers['retry-after'])).toMatch(/^[1-9]\d*$/);
  return Number(res.headers['retry-after']);
}

describe('sign-in throttling', () => {
  it("signs the owner in from another address while an attacker's address is throttled", async () => {
    const tenant = await createTenant(t.db);
    const owner = await createUser(t.db, tenant.id);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await login(t.app, owner.email, `guess-${i}`, '203.0.113.7')).statusCode);
    expect(statuses).toEqual([401, 401, 401, ...Array(9).fill(429)]);

    // Three failures are free; the fourth attempt waits 10 seconds from the third failure.
    const wait = expectThrottled(await login(t.app, owner.email, 'guess-12', '203.0.113.7'));
    expect(wait).toBeLessThanOrEqual(10);
    // Even the right password waits on the throttled address.
    expectThrottled(await login(t.app, owner.email, PASSWORD, '203.0.113.7'));

    const ownerIn = await login(t.app, owner.email, PASSWORD, '198.51.100.20');
    expect(ownerIn.statusCode).toBe(200);
    expect(typeof ownerIn.json().token).toBe('string');
  });

  it('does not lock a super admin out either', async () => {
    const tenant = await createTenant(t.db);
    const superAdmin = await createUser(t.db, tenant.id, { role: 'admin', superAdmin: true });
    for (let i = 0; i < 3; i++) expect((await login(t.app, superAdmin.email, `guess-${i}`, '203.0.113.8')).statusCode).toBe(401);
    for (let i = 0; i < 5; i++) expectThrottled(await login(t.app, superAdmin.email, `guess-x${i}`, '203.0.113.8'));
    const res = await login(t.app, superAdmin.email, PASSWORD, '198.51.100.21');
    expect(res.statusCode).toBe(200);
    expect(res.json().user).toMatchObject({ id: superAdmin.id, super_admin: true });
  });

  it('throttles an unknown account exactly like a known one', async () => {
    const tenant = await createTenant(t.db);
    const known = await createUser(t.db, tenant.id);
    const run = async (email: string, address: string) => {
      const answers: string[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await login(t.app, email, 'wrong-password', address);
        // The seconds to wait depend on the clock; whether there are any does not.
        answers.push(`${res.statusCode} ${res.headers['retry-after'] ? 'wait' : '-'} ${res.json().error}`);
      }
      return answers;
    };
    const forKnown = await run(known.email, '203.0.113.9');
    const forUnknown = await run('nobody-here@example.com', '203.0.113.10');
    expect(forUnknown).toEqual(forKnown);
    expect(forKnown.map((a) => a.split(' ')[0])).toEqual(['401', '401', '401', '429', '429']);
  });

  it('clears the failures of a pair when its sign-in succeeds', async () => {
    const tenant = await createTenant(t.db);
    const owner = await createUser(t.db, tenant.id);
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 2; i++) expect((await login(t.app, owner.email, 'typo', '198.51.100.30')).statusCode).toBe(401);
      expect((await login(t.app, owner.email, PASSWORD, '198.51.100.30')).statusCode).toBe(200);
    }
  });
});

describe('account guard', () => {
  it('gives each address one failure once the account has many, and still lets the owner in', async () => {
    const guarded = await buildTestApp({ LOGIN_MAX_FAILURES_PER_ACCOUNT: '2', LOGIN_ACCOUNT_GUARD_FAILURES: '20' });
    try {
      const tenant = await createTenant(guarded.db);
      const owner = await createUser(guarded.db, tenant.id);
      // Before the guard: two failures per address for the account.
      for (let a = 1; a <= 10; a++) {
        for (let i = 0; i < 2; i++) expect((await login(guarded.app, owner.email, 'guess', `203.0.113.${a}`)).statusCode).toBe(401);
        expectThrottled(await login(guarded.app, owner.email, 'guess', `203.0.113.${a}`));
      }
      // 20 failures across addresses: a new address now gets one, then waits out the window.
      expect((await login(guarded.app, owner.email, 'guess', '203.0.113.50')).statusCode).toBe(401);
      expect(expectThrottled(await login(guarded.app, owner.email, 'guess', '203.0.113.50'))).toBeGreaterThan(14 * 60);
      // Other accounts keep their own budget.
      for (let i = 0; i < 2; i++) expect((await login(guarded.app, 'someone@example.com', 'guess', '203.0.113.51')).statusCode).toBe(401);

      expect((await login(guarded.app, owner.email, PASSWORD, '198.51.100.40')).statusCode).toBe(200);
    } finally {
      await guarded.close();
    }
  }, 120_000);
});

describe('Retry-After on every 429', () => {
  it('answers the per-address sign-in limit with Retry-After', async () => {
    const limited = await buildTestApp({ LOGIN_MAX_FAILURES_PER_ADDRESS: '2' });
    try {
      for (let i = 0; i < 2; i++) expect((await login(limited.app, `x${i}@example.com`, 'guess', '203.0.113.60')).statusCode).toBe(401);
      expect(expectThrottled(await login(limited.app, 'y@example.com', 'guess', '203.0.113.60'))).toBeGreaterThan(15 * 60 - 60);
    } finally {
      await limited.close();
    }
  }, 120_000);

  it('answers the API rate limit with Retry-After', async () => {
    const limited = await buildTestApp({ API_RATE_LIMIT: '2' });
    try {
      const answers = [];
      // The API limit counts sign-in calls too, before their body is read.
      for (let i = 0; i < 3; i++)
        answers.push(await limited.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: '203.0.113.70', payload: {} }));
      expect(answers.map((a) => a.statusCode)).toEqual([400, 400, 429]);
      expect(String(answers[2]!.headers['retry-after'])).toMatch(/^[1-9]\d*$/);
      expect(answers[2]!.json()).toMatchObject({ error: M.tooManyRequests, code: 'rate_limited' });
    } finally {
      await limited.close();
    }
  }, 120_000);
});

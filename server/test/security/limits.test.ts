import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app';
import { createTenant, createUser, PASSWORD } from '../factories';
import { recordFigure } from './figures';

/**
 * Suite 7, headers and limits, with the product's default limits: how many failed sign-ins an
 * account and an address get, how many calls a signed-in user gets per minute, the body limit,
 * CORS and the Content-Security-Policy. The figure is measured, not read from the configuration.
 */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ API_RATE_LIMIT: '600' });
});
afterAll(() => t.close());

const login = (email: string, password: string, address: string) =>
  t.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: address, payload: { email, password } });

async function allowedBefore429(attempt: (i: number) => Promise<{ statusCode: number }>, max: number): Promise<number> {
  for (let i = 0; i < max; i++) if ((await attempt(i)).statusCode === 429) return i;
  return max;
}

describe('headers and limits', () => {
  it('measures the limits and headers a caller meets', async () => {
    const tenant = await createTenant(t.db);
    const victim = await createUser(t.db, tenant.id);
    const user = await createUser(t.db, tenant.id);

    // Failed sign-ins for one account, each from a different address.
    const perAccount = await allowedBefore429((i) => login(victim.email, 'wrong-password', `10.1.0.${i + 1}`), 50);
    // The right password is refused too while the account is blocked; another account is not.
    expect((await login(victim.email, PASSWORD, '10.1.1.1')).statusCode).toBe(429);
    expect((await login(user.email, PASSWORD, '10.1.1.2')).statusCode).toBe(200);

    // Failed sign-ins from one address, each for a different account.
    const perAddress = await allowedBefore429((i) => login(`nobody-${i}@example.com`, 'wrong-password', '10.2.0.1'), 100);

    // Calls per minute for one signed-in user.
    const token = (await login(user.email, PASSWORD, '10.3.0.1')).json().token as string;
    const perMinute = await allowedBefore429(
      () => t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } }),
      1000,
    );

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

    expect(perAccount).toBe(5);
    expect(perAddress).toBe(30);
    expect(perMinute).toBe(600);
    expect(big.statusCode).toBe(413);
    expect(corsHeaders).toEqual([]);
    expect(scriptSrc.trim()).toBe("'self'");
    for (const header of ['x-content-type-options', 'x-frame-options', 'referrer-policy', 'cross-origin-opener-policy']) {
      expect(health.headers[header], header).toBeDefined();
    }

    recordFigure(
      'headers-and-limits',
      `sign-in: ${perAccount} failed attempts per account and ${perAddress} per address per 15 minutes, then 429; ` +
        `API: ${perMinute} calls per minute per signed-in user, then 429; a body over 1 MB: ${big.statusCode}; ` +
        `CORS: ${corsHeaders.length} Access-Control headers; CSP script-src ${scriptSrc.trim()}`,
      { perAccount, perAddress, perMinute, bodyLimitStatus: big.statusCode, corsHeaders, csp },
    );
  }, 180_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, call, type TestApp } from './app';
import { createTenant, createUser } from './factories';

/**
 * Every registered /api route, called with malformed paths, bodies and queries, signed out and as
 * a super admin (who gets furthest into each handler): no answer may be a 5xx.
 */
let t: TestApp;
let tenantSlug = '';
let adminUserId = '';

beforeAll(async () => {
  t = await buildTestApp();
  const tenant = await createTenant(t.db);
  tenantSlug = tenant.slug;
  const sa = await createUser(t.db, tenant.id, { role: 'admin', superAdmin: true });
  adminUserId = sa.id;
});
afterAll(() => t.close());

const BAD_IDS = ['not-a-uuid', '00000000-0000-0000-0000-000000000000', "1' or '1'='1", '%00', 'x'.repeat(180), '..%2F..%2Fetc%2Fpasswd', '-1', '1e309'];

const WRONG_TYPES = {
  id: [],
  name: 1,
  slug: null,
  email: {},
  password: 5,
  serviceId: 'x',
  categoryId: 7,
  aspectId: {},
  aspectIds: 'x',
  roleIds: [1, 2],
  templateIds: {},
  tenantIds: 'x',
  userId: 'x',
  tenantId: [],
  tenant_id: 3,
  targetTenantId: 'x',
  timeBucket: 5,
  value: [],
  expectedValue: 9,
  label: {},
  visibility: 'x',
  role: 'x',
  roleName: 5,
  templateText: 5,
  userEmail: 1,
  isPublic: 'x',
  description: 5,
  iconUrl: 5,
  icon_url: 'data:image/png;base64,AAAA',
  timeline: 'x',
  position: 'x',
  version: 'x',
  code: 5,
};

function deep(n: number): unknown {
  let v: unknown = {};
  for (let i = 0; i < n; i++) v = { a: v, b: [v] };
  return v;
}

const BODIES: { label: string; payload: string }[] = [
  { label: 'no body', payload: '' },
  { label: 'null', payload: 'null' },
  { label: 'array', payload: '[]' },
  { label: 'string', payload: '"text"' },
  { label: 'number', payload: '12' },
  { label: 'truncated JSON', payload: '{"name":' },
  { label: 'wrong types', payload: JSON.stringify(WRONG_TYPES) },
  { label: 'prototype keys', payload: '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}' },
  { label: 'deep nesting', payload: JSON.stringify(deep(18)) },
];

const QUERIES = ['?includeArchived=maybe', '?showPrivate[]=1&showPrivate=2', '?%zz', `?x=${'y'.repeat(3000)}`];

function fill(url: string, id: string) {
  return url.replace(/:[A-Za-z]+/g, id).replace(/\*$/, 'x');
}

describe('malformed input sweep', () => {
  it('covers the API routes', () => {
    expect(t.app.registeredRoutes.filter((r) => r.url.startsWith('/api/')).length).toBeGreaterThan(3);
  });

  it('answers no 5xx to any malformed request on any route', async () => {
    const failures: string[] = [];
    const routes = t.app.registeredRoutes.filter((r) => r.url.startsWith('/api/'));
    for (const route of routes) {
      const token = (await t.app.tokens.sign({ sub: adminUserId, ttlSeconds: 600 })).token;
      const attempts: { url: string; payload?: string; contentType?: string }[] = [];
      for (const id of BAD_IDS) attempts.push({ url: fill(route.url, encodeURIComponent(id)) });
      const sample = fill(route.url, '00000000-0000-0000-0000-000000000000');
      for (const q of QUERIES) attempts.push({ url: sample + q });
      if (!['GET', 'DELETE'].includes(route.method)) {
        for (const b of BODIES) attempts.push({ url: sample, payload: b.payload, contentType: 'application/json' });
        attempts.push({ url: sample, payload: 'a=1&b=2', contentType: 'application/x-www-form-urlencoded' });
        attempts.push({
          url: sample,
          payload: '--x\r\nContent-Disposition: form-data; name="file"\r\n\r\nhello\r\n--x--',
          contentType: 'multipart/form-data; boundary=x',
        });
      }
      for (const a of attempts) {
        for (const auth of [null, token]) {
          const headers: Record<string, string> = {};
          if (a.contentType) headers['content-type'] = a.contentType;
          const res = await call(t.app, route.method as 'GET', a.url, {
            token: auth,
            tenant: tenantSlug,
            headers,
            ...(a.payload !== undefined && a.payload !== '' ? { body: a.payload } : {}),
          });
          if (res.statusCode >= 500)
            failures.push(`${route.method} ${a.url.slice(0, 120)} ${a.payload?.slice(0, 40) ?? ''} -> ${res.statusCode} ${res.body.slice(0, 120)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 300_000);
});

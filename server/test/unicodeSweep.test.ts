import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, call, type TestApp } from './app';
import { createTenant, createUser } from './factories';
import { notUnicodeAt } from '../plugins/unicode';

/**
 * Every route of the OpenAPI document, sent a string that is not valid Unicode (a lone surrogate,
 * as the JSON escape `\ud800`): none answers a 5xx, and each that takes a body answers 400 naming
 * the field that holds it, before any route reads it.
 */
let t: TestApp;
let tenantSlug = '';
let superAdminId = '';
/** A fresh session each time: a route of the sweep (sign out) ends the one it was called with. */
const session = async () => (await t.app.tokens.sign({ sub: superAdminId, ttlSeconds: 600 })).token;

beforeAll(async () => {
  t = await buildTestApp();
  const tenant = await createTenant(t.db);
  tenantSlug = tenant.slug;
  const sa = await createUser(t.db, tenant.id, { role: 'admin', superAdmin: true });
  superAdminId = sa.id;
});
afterAll(() => t.close());

const LONE = '\ud800';
const ID = '00000000-0000-4000-8000-000000000000';

interface Operation {
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
  parameters?: { name: string; in: string }[];
}

describe('a string that is not valid Unicode', () => {
  it('is found wherever it is, and named as validation names a field', () => {
    expect(notUnicodeAt({ name: 'ok', cells: [{ value: 'fine' }, { value: `a${LONE}` }] }, '')).toBe('cells.1.value');
    expect(notUnicodeAt({ [`k${LONE}`]: 1 }, '')).toBe('k\uFFFD');
    expect(notUnicodeAt('\udfff', '')).toBe('');
    // A whole pair is a character, an emoji among them.
    expect(notUnicodeAt({ text: 'Plan 😀 \ud83d\ude00', list: ['é', '中'] }, '')).toBeNull();
  });

  it('answers 400 naming the field on every documented route that takes a body, and no 5xx on any', async () => {
    const doc = (await call(t.app, 'GET', '/api/openapi.json', {})).json() as { paths: Record<string, Record<string, Operation>> };
    const failures: string[] = [];
    let bodies = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      const url = path.replace(/\{[^}]+\}/g, ID);
      for (const [method, op] of Object.entries(operations)) {
        const upper = method.toUpperCase() as 'GET';
        // Each documented query parameter, and one the route does not know, hold the lone surrogate.
        const names = [...(op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name), 'probe'];
        const query = names.map((n) => `${encodeURIComponent(n)}=%ED%A0%80`).join('&');
        const asked = await call(t.app, upper, `${url}?${query}`, { token: await session(), tenant: tenantSlug });
        if (asked.statusCode >= 500) failures.push(`${upper} ${path}?… -> ${asked.statusCode}`);
        if (upper === 'GET' || upper === ('DELETE' as string)) continue;
        // The body: the first documented field (or one the route does not know) holds it.
        const field = Object.keys(op.requestBody?.content?.['application/json']?.schema?.properties ?? {})[0] ?? 'probe';
        const res = await call(t.app, upper, url, {
          token: await session(),
          tenant: tenantSlug,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ [field]: `Plan ${LONE}` }),
        });
        bodies++;
        const answer = res.json() as { error?: string; field?: string };
        if (res.statusCode !== 400 || answer.field !== field || !answer.error?.startsWith(`${field} is not valid Unicode`)) {
          failures.push(`${upper} ${path} ${field} -> ${res.statusCode} ${res.body.slice(0, 160)}`);
        }
      }
    }
    expect(bodies).toBeGreaterThan(30);
    expect(failures).toEqual([]);
  }, 300_000);

  it('is named deep in a batch, and a valid text with the same characters paired is saved', async () => {
    const token = await session();
    const cells = [
      { aspectId: ID, timeBucket: '2030-Q1', value: 'fine' },
      { aspectId: ID, timeBucket: '2030-Q2', value: `x${LONE}` },
    ];
    const res = await call(t.app, 'POST', '/api/availabilities/batch', { token, tenant: tenantSlug, body: { serviceId: ID, cells } });
    expect(res.statusCode).toBe(400);
    expect(res.json().field).toBe('cells.1.value');
    const created = await call(t.app, 'POST', '/api/services', { token, tenant: tenantSlug, body: { name: 'Plans \ud83d\ude00', slug: 'plans-emoji' } });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().service.name).toBe('Plans 😀');
  });
});

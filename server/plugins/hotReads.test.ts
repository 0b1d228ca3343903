import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, call, settleChangeStream, type TestApp } from '../test/app';
import { createService, createUser, signIn } from '../test/factories';
import { as, createCatalogWorld, type CatalogWorld } from '../routes/services/catalog.fixtures';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Header names as sent, lower-cased, in order (a name sent twice shows twice). */
  names: string[];
  body: Buffer;
}

/** A real HTTP request: hot reads answer on the server's request event, which app.inject skips. */
function get(base: string, path: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      const names = res.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, names, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The headers a caller can rely on: all but those that differ per response. */
function stable(headers: Raw['headers']) {
  const {
    date: _date,
    'x-request-id': _id,
    'server-timing': timing,
    'x-ratelimit-remaining': _left,
    'x-ratelimit-reset': _reset,
    connection: _c,
    'keep-alive': _k,
    ...rest
  } = headers;
  expect(timing).toMatch(/^app;dur=\d+\.\d{2}$/);
  return rest;
}

async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

describe('hot reads answer as the full routes do', () => {
  let t: TestApp;
  let w: CatalogWorld;
  let base: string;
  beforeAll(async () => {
    t = await buildTestApp();
    w = await createCatalogWorld(t);
    base = await listen(t);
  });
  afterAll(() => t.close());

  const auth = (who: 'reader' | 'editor' | 'admin' | 'otherAdmin') => ({ authorization: `Bearer ${w.tokens[who]}` });
  const full = (id = w.service.id) => `/api/services/${id}/full`;

  /** The same call twice: the first takes the full route and fills the caches, the second is hot. */
  async function warmThenHot(path: string, headers: Record<string, string>) {
    const first = await get(base, path, headers);
    const before = t.app.hotReads.answered;
    const hot = await get(base, path, headers);
    expect(t.app.hotReads.answered).toBe(before + 1);
    // A query string always takes the full route: what it answers now is the reference.
    const reference = await get(base, `${path}?_=1`, headers);
    expect(t.app.hotReads.answered).toBe(before + 1);
    // Each header once, and the same ones as the full route sends.
    expect(hot.names).toEqual([...new Set(hot.names)]);
    expect([...hot.names].sort()).toEqual([...reference.names].sort());
    return { first, hot, reference };
  }

  it.each(['reader', 'editor', 'admin'] as const)('GET /full as %s: same status, headers and bytes, plain and gzip', async (who) => {
    const plain = await warmThenHot(full(), auth(who));
    expect(plain.hot.status).toBe(200);
    expect(stable(plain.hot.headers)).toEqual(stable(plain.reference.headers));
    expect(plain.hot.body.equals(plain.reference.body)).toBe(true);
    expect(plain.hot.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const titles = JSON.parse(plain.hot.body.toString()).resolved_data.aspects.map((a: { title: string }) => a.title);
    // Readers never get private aspects, hot or not.
    expect(titles.includes('Private aspect')).toBe(who !== 'reader');

    const zipped = await warmThenHot(full(), { ...auth(who), 'accept-encoding': 'gzip' });
    expect(zipped.hot.headers['content-encoding']).toBe('gzip');
    // The first gzip form is the fastest one, replaced by a smaller one a moment later: the bytes
    // compressed, not their compressed length, are what both paths must agree on.
    const { 'content-length': _hotLength, ...hotZipped } = stable(zipped.hot.headers);
    const { 'content-length': _referenceLength, ...referenceZipped } = stable(zipped.reference.headers);
    expect(hotZipped).toEqual(referenceZipped);
    expect(gunzipSync(zipped.hot.body).equals(plain.reference.body)).toBe(true);
    expect(gunzipSync(zipped.reference.body).equals(plain.reference.body)).toBe(true);

    const etag = plain.hot.headers.etag as string;
    const notModified = await warmThenHot(full(), { ...auth(who), 'if-none-match': etag });
    expect(notModified.hot.status).toBe(304);
    expect(notModified.hot.body.length).toBe(0);
    expect(stable(notModified.hot.headers)).toEqual(stable(notModified.reference.headers));
  });

  it('GET /services: same headers and bytes as the full route', async () => {
    const list = await warmThenHot('/api/services', auth('reader'));
    expect(list.hot.status).toBe(200);
    expect(stable(list.hot.headers)).toEqual(stable(list.reference.headers));
    expect(list.hot.body.equals(list.reference.body)).toBe(true);
    expect(list.hot.headers['content-security-policy']).toContain("default-src 'self'");
  });

  it("never answers another tenant's service, nor for a tenant the caller does not belong to", async () => {
    await warmThenHot(full(), auth('editor'));
    const before = t.app.hotReads.answered;
    const foreign = await get(base, full(w.foreign.id), auth('editor'));
    expect(foreign.status).toBe(404);
    const otherTenant = await get(base, full(w.foreign.id), { ...auth('editor'), 'x-tenant-slug': w.other.slug });
    expect(otherTenant.status).toBe(403);
    // The other tenant's admin asking for this tenant's warm service.
    const otherAdmin = await get(base, full(), auth('otherAdmin'));
    expect(otherAdmin.status).toBe(404);
    expect(t.app.hotReads.answered).toBe(before);
  });

  it('takes the full route for missing and malformed tokens', async () => {
    expect((await get(base, full(), {})).status).toBe(401);
    expect((await get(base, full(), { authorization: 'Bearer not-a-token' })).status).toBe(401);
    expect((await get(base, full(), { authorization: 'Basic abc' })).status).toBe(401);
  });

  it('a write shows at once: the next hot-eligible call is rebuilt with the new value', async () => {
    await warmThenHot(full(), auth('editor'));
    const quarter = w.service.timeline[0]!;
    const write = await as(t, w, 'editor')('POST', '/api/availabilities', { aspectId: w.publicAspect.id, timeBucket: quarter, value: 'Hot then cold' });
    expect(write.statusCode).toBe(200);
    const after = await get(base, full(), auth('editor'));
    const aspect = JSON.parse(after.body.toString()).resolved_data.aspects.find((a: { id: string }) => a.id === w.publicAspect.id);
    expect(aspect.availabilities[quarter]).toBe('Hot then cold');
  });

  it('a demotion, an archived tenant and a sign-out take effect on the next call', async () => {
    const user = await createUser(t.db, w.tenant.id, { role: 'editor' });
    const token = await signIn(t.app, user.email);
    const headers = { authorization: `Bearer ${token}` };
    await warmThenHot(full(), headers);
    expect(JSON.parse((await get(base, full(), headers)).body.toString()).permissions.canEdit).toBe(true);

    const demote = await call(t.app, 'PATCH', `/api/admin/users/${user.id}`, { token: w.tokens.superAdmin, body: { role: 'reader' } });
    expect(demote.statusCode).toBe(200);
    const demoted = JSON.parse((await get(base, full(), headers)).body.toString());
    expect(demoted.permissions.canEdit).toBe(false);
    expect(demoted.resolved_data.aspects.some((a: { title: string }) => a.title === 'Private aspect')).toBe(false);

    const logout = await call(t.app, 'POST', '/api/auth/logout', { token });
    expect(logout.statusCode).toBeLessThan(300);
    expect((await get(base, full(), headers)).status).toBe(401);
  });

  it('an archived tenant is refused on the next call', async () => {
    const { tenants } = await import('../db/schema');
    const { eq } = await import('drizzle-orm');
    const user = await createUser(t.db, w.other.id, { role: 'admin' });
    const token = await signIn(t.app, user.email);
    const service = await createService(t.db, w.other.id);
    const headers = { authorization: `Bearer ${token}` };
    await warmThenHot(full(service.id), headers);
    const archive = await call(t.app, 'PATCH', `/api/tenants/${w.other.id}/archive`, { token: w.tokens.superAdmin });
    expect(archive.statusCode).toBe(200);
    const archived = await t.db.select().from(tenants).where(eq(tenants.id, w.other.id));
    expect(archived[0]!.archived).toBe(true);
    expect((await get(base, full(service.id), headers)).status).toBe(403);
  });
});

describe('hot reads count against the rate limit', () => {
  let t: TestApp;
  let w: CatalogWorld;
  let base: string;
  beforeAll(async () => {
    t = await buildTestApp({ API_RATE_LIMIT: '8' });
    w = await createCatalogWorld(t);
    base = await listen(t);
  });
  afterAll(() => t.close());

  it('answers with the limiter headers, and refuses the call over the limit with 429', async () => {
    const headers = { authorization: `Bearer ${w.tokens.reader}` };
    // Signing in and the fixtures used none of the reader's calls; the first call fills the caches,
    // which no late change of the fixtures empties again.
    await settleChangeStream(t);
    const answers = [];
    for (let i = 0; i < 9; i++) answers.push(await get(base, '/api/services', headers));
    expect(answers.slice(0, 8).every((a) => a.status === 200)).toBe(true);
    expect(t.app.hotReads.answered).toBe(7);
    expect(answers.map((a) => a.headers['x-ratelimit-remaining'])).toEqual(['7', '6', '5', '4', '3', '2', '1', '0', '0']);
    expect(answers[1]!.headers['x-ratelimit-limit']).toBe('8');
    expect(answers[8]!.status).toBe(429);
    expect(JSON.parse(answers[8]!.body.toString()).code).toBe('rate_limited');
  });
});

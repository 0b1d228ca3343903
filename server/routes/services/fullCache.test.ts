import { gunzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createService } from '../../test/factories';
import { raiseStamps } from '../../db/writeStamps';
import { as, countStatements, createCatalogWorld, type CatalogWorld } from './catalog.fixtures';
import { acceptsGzip, etagMatches, FullCache, type EncodedBody } from './fullCache';

let t: TestApp;
let w: CatalogWorld;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createCatalogWorld(t);
});
afterAll(() => t.close());

const fullUrl = (id = w.service.id) => `/api/services/${id}/full`;
const get = (who: 'reader' | 'editor' | 'admin', headers: Record<string, string> = {}, id?: string) =>
  call(t.app, 'GET', fullUrl(id), { token: w.tokens[who], headers });

/**
 * A service of `aspectCount` aspects over `categoryCount` categories, every quarter filled: one
 * statement per table, so that thousands of aspects take a moment.
 */
async function seedService(categoryCount: number, aspectCount: number) {
  const tenantId = w.tenant.id;
  const service = await createService(t.db, tenantId);
  const scope = sql`${tenantId}::uuid, ${service.id}::uuid`;
  await t.db.execute(sql`insert into categories (tenant_id, service_id, name, position)
    select ${scope}, 'Category ' || i, i from generate_series(0, ${categoryCount - 1}::int) as i`);
  await t.db.execute(sql`insert into aspects (tenant_id, service_id, category_id, title, description, is_public, position)
    select ${scope}, c.id, 'Aspect ' || i, '<p>Description of aspect <strong>' || i || '</strong></p>', i % 3 <> 0, i / ${categoryCount}::int
    from generate_series(0, ${aspectCount - 1}::int) as i
    join categories c on c.service_id = ${service.id}::uuid and c.position = i % ${categoryCount}::int`);
  await t.db.execute(sql`insert into availabilities (tenant_id, service_id, aspect_id, time_bucket, value)
    select ${scope}, a.id, q, 'Available' from aspects a, unnest(${`{${service.timeline.join(',')}}`}::text[]) as q
    where a.service_id = ${service.id}::uuid`);
  return service;
}

describe('GET /api/services/:id/full served from encoded bodies', () => {
  it('answers 304 with no body when If-None-Match names the current ETag', async () => {
    const first = await get('editor');
    expect(first.statusCode).toBe(200);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^W\/".+"$/);
    expect(first.headers.vary).toContain('Accept-Encoding');
    expect(first.headers['cache-control']).toBe('private, no-cache');
    const again = await get('editor', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
  });

  it('changes the ETag after a write, and the next /full shows the new value', async () => {
    const before = await get('editor');
    const quarter = w.service.timeline[2]!;
    const write = await as(t, w, 'editor')('POST', '/api/availabilities', { aspectId: w.publicAspect.id, timeBucket: quarter, value: 'Pilot' });
    expect(write.statusCode).toBe(200);
    const after = await get('editor', { 'if-none-match': before.headers.etag as string });
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    const aspect = after.json().resolved_data.aspects.find((a: { id: string }) => a.id === w.publicAspect.id);
    expect(aspect.availabilities[quarter]).toBe('Pilot');
    expect(after.json().service.version).toBe(before.json().service.version + 1);
  });

  it('never gives a reader the editor variant, even from a warm cache or with the editor’s ETag', async () => {
    const editor = await get('editor');
    expect(JSON.stringify(editor.json())).toContain('Private aspect');
    const reader = await get('reader', { 'if-none-match': editor.headers.etag as string });
    expect(reader.statusCode).toBe(200);
    expect(reader.headers.etag).not.toBe(editor.headers.etag);
    expect(reader.json().resolved_data.aspects.map((a: { title: string }) => a.title)).toEqual(['Public aspect']);
    expect(reader.json().permissions.canEdit).toBe(false);
    const readerGzip = await get('reader', { 'accept-encoding': 'gzip' });
    expect(gunzipSync(readerGzip.rawPayload).toString()).not.toContain('Private aspect');
  });

  it('answers gzip when accepted, decoding to the same JSON, and plain JSON otherwise', async () => {
    const plain = await get('admin');
    expect(plain.headers['content-encoding']).toBeUndefined();
    const zipped = await get('admin', { 'accept-encoding': 'br;q=1, gzip;q=0.8' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers['content-type']).toContain('application/json');
    expect(zipped.headers.etag).toBe(plain.headers.etag);
    expect(JSON.parse(gunzipSync(zipped.rawPayload).toString())).toEqual(plain.json());
    const refused = await get('admin', { 'accept-encoding': 'gzip;q=0, identity' });
    expect(refused.headers['content-encoding']).toBeUndefined();
  });

  it('still checks authorization on every request of a warm entry', async () => {
    await get('admin');
    const foreign = await call(t.app, 'GET', fullUrl(), { token: w.tokens.otherAdmin });
    expect(foreign.statusCode).toBe(404);
    const anonymous = await call(t.app, 'GET', fullUrl(), { headers: { 'if-none-match': '*' } });
    expect(anonymous.statusCode).toBe(401);
  });

  it('runs the same number of SQL statements for a 6-aspect and a 6,000-aspect service: /full cold and warm, /services, CSV', async () => {
    const small = await seedService(2, 6);
    const large = await seedService(30, 6000);
    const token = w.tokens.editor;
    const counts = async (id: string) => {
      let body: any;
      const cold = await countStatements(t, async () => {
        body = (await call(t.app, 'GET', fullUrl(id), { token })).json();
      });
      const warm = await countStatements(t, () => call(t.app, 'GET', fullUrl(id), { token, headers: { 'accept-encoding': 'gzip' } }));
      // The list as right after a write (cold), then again (warm, from memory).
      raiseStamps(['services', 'service_role_assignments']);
      const list = await countStatements(t, () => call(t.app, 'GET', '/api/services', { token }));
      const warmList = await countStatements(t, () => call(t.app, 'GET', '/api/services', { token }));
      let csv = '';
      const csvCount = await countStatements(t, async () => {
        const res = await call(t.app, 'GET', `/api/export/service/${id}/csv?showPrivate=true`, { token: w.tokens.admin });
        expect(res.statusCode).toBe(200);
        csv = res.body;
      });
      return { cold, warm, list, warmList, csv: csvCount, aspects: body.resolved_data.aspects.length, lines: csv.trim().split('\n').length };
    };
    const s = await counts(small.id);
    const l = await counts(large.id);
    expect(s.aspects).toBe(6);
    expect(l.aspects).toBe(6000);
    expect(l.lines).toBeGreaterThan(6000);
    expect({ cold: l.cold, warm: l.warm, list: l.list, csv: l.csv }).toEqual({ cold: s.cold, warm: s.warm, list: s.list, csv: s.csv });
    expect(s.list).toBeGreaterThan(0);
    expect({ warm: s.warm, warmList: s.warmList }).toEqual({ warm: 0, warmList: 0 });
    expect(s.warm).toBeLessThan(s.cold);
    expect(s.cold).toBeLessThanOrEqual(12);
  });
});

describe('FullCache', () => {
  const key = (serviceId: string, version = 1) => ({ tenantId: 't', serviceId, version, variant: '1' });
  const body = (size: number) => async () => ({ body: JSON.stringify({ text: 'x'.repeat(size) }) });

  it('keeps the bytes it holds within its budget, dropping the least recently used first', async () => {
    const cache = new FullCache(3_000);
    await cache.get(key('a'), body(1_000));
    await cache.get(key('b'), body(1_000));
    await cache.get(key('a'), body(1_000));
    await cache.get(key('c'), body(1_000));
    expect(cache.bytes).toBeLessThanOrEqual(3_000);
    let rebuilt = 0;
    await cache.get(key('a'), async () => (rebuilt++, { body: '{}' }));
    expect(rebuilt).toBe(0);
    await cache.get(key('b'), async () => (rebuilt++, { body: '{}' }));
    expect(rebuilt).toBe(1);
  });

  it('rebuilds for a new version and shares one build between concurrent requests', async () => {
    const cache = new FullCache(1_000_000);
    let builds = 0;
    const earlier: (EncodedBody | undefined)[] = [];
    const build = async (held: EncodedBody | undefined) => (builds++, earlier.push(held), { body: JSON.stringify({ n: builds }) });
    const [x, y] = await Promise.all([cache.get(key('a', 1), build), cache.get(key('a', 1), build)]);
    expect(x).toBe(y);
    expect(builds).toBe(1);
    const next = await cache.get(key('a', 2), build);
    expect(JSON.parse(next.json.toString())).toEqual({ n: 2 });
    expect(cache.size).toBe(1);
    // The build of a new version is handed the variant's body of the version before it.
    expect(earlier).toEqual([undefined, x]);
  });

  it('answers the first gzip quickly, then keeps the smaller default-level form for later requests', async () => {
    const cache = new FullCache(10_000_000);
    const text = JSON.stringify({ rows: Array.from({ length: 3_000 }, (_, i) => ({ id: i, text: `Available from quarter ${i % 12}` })) });
    const entry = await cache.get(key('z'), async () => ({ body: text }));
    const first = await entry.gzip();
    expect(gunzipSync(first).toString()).toBe(text);
    await vi.waitFor(() => expect(entry.gzipped!.length).toBeLessThan(first.length));
    const later = await entry.gzip();
    expect(later).toBe(entry.gzipped);
    expect(gunzipSync(later).toString()).toBe(text);
    expect(entry.bytes).toBe(entry.json.length + later.length);
  });

  it('parses Accept-Encoding and If-None-Match', () => {
    expect(acceptsGzip('gzip, deflate, br')).toBe(true);
    expect(acceptsGzip('br')).toBe(false);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
    // The same headers again, in turn, answer the same (the last one read is remembered).
    for (const [header, accepts] of [
      ['gzip;q=0', false],
      ['gzip;q=0', false],
      ['GZIP', true],
      ['gzip;q=0', false],
      ['*', true],
    ] as const) {
      expect(acceptsGzip(header)).toBe(accepts);
    }
    expect(etagMatches('"x", W/"a.1.1"', 'W/"a.1.1"')).toBe(true);
    expect(etagMatches('"a.1.1"', 'W/"a.1.1"')).toBe(true);
    expect(etagMatches('W/"a.2.1"', 'W/"a.1.1"')).toBe(false);
  });
});

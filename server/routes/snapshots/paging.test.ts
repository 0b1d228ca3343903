import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshots } from '../../db/schema';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createService, createWorld, type World } from '../../test/factories';

let t: TestApp;
let w: World;
let serviceId: string;

beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
  const s = await createService(t.db, w.tenant.id);
  serviceId = s.id;
  const start = Date.parse('2026-01-01T00:00:00Z');
  // 30 snapshots, every third public; pairs share their time, as snapshots taken at once do.
  await t.db.insert(snapshots).values(
    Array.from({ length: 30 }, (_, i) => ({
      tenantId: w.tenant.id,
      serviceId: s.id,
      label: `Snap ${i}`,
      visibility: i % 3 === 0 ? ('public' as const) : ('internal' as const),
      data: {},
      createdBy: 'Editor',
      createdAt: new Date(start + Math.floor(i / 2) * 60_000),
    })),
  );
});
afterAll(() => t.close());

const get = (url: string, token: string) => call(t.app, 'GET', url, { token, tenant: w.tenant.slug });

async function walk(token: string, limit: number) {
  const ids: string[] = [];
  let before: string | null = null;
  for (let i = 0; i < 100; i++) {
    const res = await get(`/api/snapshots/service/${serviceId}?limit=${limit}${before ? `&before=${before}` : ''}`, token);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.snapshots.length).toBeLessThanOrEqual(limit);
    ids.push(...body.snapshots.map((s: { id: string }) => s.id));
    before = body.next_before;
    if (before === null) return ids;
  }
  throw new Error('the cursor never ended');
}

describe('GET /api/snapshots/service/:id: limit and before', () => {
  it('answers every snapshot without paging parameters, newest first', async () => {
    const body = (await get(`/api/snapshots/service/${serviceId}`, w.tokens.editor)).json();
    expect(body.snapshots).toHaveLength(30);
    expect(body.next_before).toBeNull();
    const times = body.snapshots.map((s: { created_at: string }) => s.created_at);
    expect(times).toEqual([...times].sort().reverse());
  });

  it('walks the same snapshots in the same order page by page, for editors and readers alike', async () => {
    const whole = (await get(`/api/snapshots/service/${serviceId}`, w.tokens.editor)).json().snapshots.map((s: { id: string }) => s.id);
    expect(await walk(w.tokens.editor, 4)).toEqual(whole);
    const pub = (await get(`/api/snapshots/service/${serviceId}`, w.tokens.reader)).json().snapshots;
    expect(pub).toHaveLength(10);
    expect(pub.every((s: { visibility: string }) => s.visibility === 'public')).toBe(true);
    expect(await walk(w.tokens.reader, 3)).toEqual(pub.map((s: { id: string }) => s.id));
  });

  it('answers the public snapshots only, newest first, to an editor who asks for visibility=public', async () => {
    const body = (await get(`/api/snapshots/service/${serviceId}?visibility=public&limit=1`, w.tokens.editor)).json();
    expect(body.snapshots).toHaveLength(1);
    expect(body.snapshots[0].visibility).toBe('public');
    expect(body.snapshots[0].label).toBe('Snap 27');
    const all = (await get(`/api/snapshots/service/${serviceId}?visibility=public`, w.tokens.editor)).json().snapshots;
    expect(all).toHaveLength(10);
  });

  it('answers 400 for a bad limit, cursor or visibility, and 404 for another tenant', async () => {
    for (const q of ['limit=0', 'limit=1001', 'before=nope', 'visibility=internal']) {
      expect((await get(`/api/snapshots/service/${serviceId}?${q}`, w.tokens.editor)).statusCode, q).toBe(400);
    }
    const other = await call(t.app, 'GET', `/api/snapshots/service/${serviceId}?limit=2`, { token: w.tokens.otherAdmin, tenant: w.other.slug });
    expect(other.statusCode).toBe(404);
  });
});

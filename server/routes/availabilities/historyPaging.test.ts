import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availabilityHistory } from '../../db/schema';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createAspect, createCategory, createService, createWorld, type World } from '../../test/factories';
import { HISTORY_PAGE_DEFAULT } from '../../../common/schemas/paging';

let t: TestApp;
let w: World;
let aspectId: string;
let privateId: string;
const TOTAL = 230;

beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
  const s = await createService(t.db, w.tenant.id);
  const c = await createCategory(t.db, w.tenant.id, s.id);
  const a = await createAspect(t.db, w.tenant.id, s.id, c.id, { isPublic: true });
  const p = await createAspect(t.db, w.tenant.id, s.id, c.id, { isPublic: false });
  aspectId = a.id;
  privateId = p.id;
  // A cell changed many times; some changes share their time, as a batch of writes does.
  const start = Date.parse('2026-01-01T00:00:00Z');
  await t.db.insert(availabilityHistory).values(
    Array.from({ length: TOTAL }, (_, i) => ({
      tenantId: w.tenant.id,
      serviceId: s.id,
      aspectId: a.id,
      timeBucket: s.timeline[0]!,
      value: `v${i}`,
      changedBy: 'editor@example.com',
      changedAt: new Date(start + Math.floor(i / 3) * 1000),
    })),
  );
});
afterAll(() => t.close());

const get = (url: string, token = w.tokens.reader) => call(t.app, 'GET', url, { token, tenant: w.tenant.slug });
const newestFirst = Array.from({ length: TOTAL }, (_, i) => `v${TOTAL - 1 - i}`);

describe('GET /api/availabilities/aspect/:id/history: paged by id', () => {
  it('answers the newest 100 entries by default, with the cursor of the next page', async () => {
    const body = (await get(`/api/availabilities/aspect/${aspectId}/history`)).json();
    expect(body.history).toHaveLength(HISTORY_PAGE_DEFAULT);
    expect(body.history.map((h: { value: string }) => h.value)).toEqual(newestFirst.slice(0, HISTORY_PAGE_DEFAULT));
    expect(body.history[0]).toEqual({
      time_bucket: expect.any(String),
      value: `v${TOTAL - 1}`,
      changed_by: 'editor@example.com',
      changed_at: expect.any(String),
    });
    expect(typeof body.next_before).toBe('number');
  });

  it('walks every entry once, newest first, with no gap across pages', async () => {
    const values: string[] = [];
    let before: number | null = null;
    for (let i = 0; i < 50; i++) {
      const res = await get(`/api/availabilities/aspect/${aspectId}/history?limit=7${before ? `&before=${before}` : ''}`);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.history.length).toBeLessThanOrEqual(7);
      values.push(...body.history.map((h: { value: string }) => h.value));
      before = body.next_before;
      if (before === null) break;
    }
    expect(values).toEqual(newestFirst);
  });

  it('answers 400 for a bad limit or cursor, and 404 for a private aspect to a reader', async () => {
    for (const q of ['limit=0', 'limit=1001', 'before=abc', 'before=0']) {
      expect((await get(`/api/availabilities/aspect/${aspectId}/history?${q}`)).statusCode, q).toBe(400);
    }
    expect((await get(`/api/availabilities/aspect/${privateId}/history?limit=5`)).statusCode).toBe(404);
    expect((await get(`/api/availabilities/aspect/${aspectId}/history?limit=5`, w.tokens.otherAdmin)).statusCode).toBe(403);
  });
});

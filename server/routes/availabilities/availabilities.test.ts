import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { M } from '../../../common/messages';
import { MAX_TEXT_LENGTH } from '../../../common/limits';
import { CATALOG_MESSAGES as C } from '../../../common/schemas/catalog';
import { buildTestApp, type TestApp } from '../../test/app';
import { createAspect, createCategory, createService, setAvailability } from '../../test/factories';
import { services } from '../../db/schema';
import { as, createCatalogWorld, type CatalogWorld, type Who } from '../services/catalog.fixtures';

let t: TestApp;
let w: CatalogWorld;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createCatalogWorld(t);
});
afterAll(() => t.close());

const api = (who: Who) => as(t, w, who);

async function freshAspect() {
  const service = await createService(t.db, w.tenant.id);
  const category = await createCategory(t.db, w.tenant.id, service.id);
  const aspect = await createAspect(t.db, w.tenant.id, service.id, category.id);
  return { service, category, aspect };
}

describe('POST /api/availabilities', () => {
  const body = (over: Record<string, unknown> = {}) => ({ aspectId: w.publicAspect.id, timeBucket: '2026-Q1', value: 'Beta', ...over });

  it('answers 401 without a token', async () => {
    expect((await api('nobody')('POST', '/api/availabilities', body())).statusCode).toBe(401);
  });

  it.each([
    [{ timeBucket: '2026-Q5' }, 'timeBucket'],
    [{ timeBucket: 'Q1 2026' }, 'timeBucket'],
    [{ timeBucket: undefined }, 'timeBucket'],
    [{ value: 'x'.repeat(MAX_TEXT_LENGTH + 1) }, 'value'],
    [{ value: 12 }, 'value'],
    [{ aspectId: 'nope' }, 'aspectId'],
    [{ expectedValue: 5 }, 'expectedValue'],
  ])('answers 400 for %j', async (over, field) => {
    const res = await api('editor')('POST', '/api/availabilities', body(over));
    expect(res.statusCode).toBe(400);
    expect(res.json().field).toBe(field);
  });

  it('answers 403 to a reader, 404 for another tenant’s aspect and to a reader for a private one, 409 when archived', async () => {
    expect((await api('reader')('POST', '/api/availabilities', body())).statusCode).toBe(403);
    expect((await api('reader')('POST', '/api/availabilities', body({ aspectId: w.privateAspect.id }))).statusCode).toBe(404);
    expect((await api('admin')('POST', '/api/availabilities', body({ aspectId: w.foreignAspect.id }))).statusCode).toBe(404);
    const res = await api('admin')('POST', '/api/availabilities', body({ aspectId: w.archivedAspect.id }));
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe(M.serviceArchivedConflict);
  });

  it('sets, replaces and clears one value per aspect and quarter, with history newest first', async () => {
    const f = await freshAspect();
    const set = (value: string) => api('editor')('POST', '/api/availabilities', { aspectId: f.aspect.id, timeBucket: '2026-Q2', value });
    const first = await set('  Pilot ');
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ availability: { aspect_id: f.aspect.id, time_bucket: '2026-Q2', value: 'Pilot' } });
    await set('Available');
    const list = await api('reader')('GET', `/api/availabilities/aspect/${f.aspect.id}`);
    expect(list.json().availabilities).toEqual([{ aspect_id: f.aspect.id, time_bucket: '2026-Q2', value: 'Available' }]);
    const cleared = await set('   ');
    expect(cleared.json().availability.value).toBe('');
    expect((await api('reader')('GET', `/api/availabilities/aspect/${f.aspect.id}`)).json().availabilities).toEqual([]);
    const history = (await api('reader')('GET', `/api/availabilities/aspect/${f.aspect.id}/history`)).json().history;
    expect(history.map((h: { value: string }) => h.value)).toEqual(['', 'Available', 'Pilot']);
    expect(history[0]).toEqual({ time_bucket: '2026-Q2', value: '', changed_by: w.users.editor.email, changed_at: expect.any(String) });
    const [row] = await t.db.select().from(services).where(eq(services.id, f.service.id));
    expect(row!.version).toBe(f.service.version + 3);
  });

  it('answers 409 with the current value when expectedValue differs from the stored one', async () => {
    const f = await freshAspect();
    const post = (value: string, expectedValue: string | null) =>
      api('editor')('POST', '/api/availabilities', { aspectId: f.aspect.id, timeBucket: '2026-Q3', value, expectedValue });
    expect((await post('One', null)).statusCode).toBe(200);
    const stale = await post('Two', null);
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ error: C.availabilityChanged, current: 'One' });
    expect((await post('Two', 'One')).statusCode).toBe(200);
  });
});

describe('GET /api/availabilities/aspect/:id and its history', () => {
  it('answers 401, 404 for foreign and malformed ids, and 404 to a reader for a private aspect', async () => {
    for (const suffix of ['', '/history']) {
      expect((await api('nobody')('GET', `/api/availabilities/aspect/${w.publicAspect.id}${suffix}`)).statusCode).toBe(401);
      expect((await api('admin')('GET', `/api/availabilities/aspect/${w.foreignAspect.id}${suffix}`)).statusCode).toBe(404);
      expect((await api('admin')('GET', `/api/availabilities/aspect/bad${suffix}`)).statusCode).toBe(404);
      expect((await api('reader')('GET', `/api/availabilities/aspect/${w.privateAspect.id}${suffix}`)).statusCode).toBe(404);
      expect((await api('editor')('GET', `/api/availabilities/aspect/${w.privateAspect.id}${suffix}`)).statusCode).toBe(200);
    }
  });

  it('keeps texts outside the timeline and lists them', async () => {
    const f = await freshAspect();
    await setAvailability(t.db, w.tenant.id, f.service.id, f.aspect.id, '1999-Q4', 'Old');
    const res = await api('reader')('GET', `/api/availabilities/aspect/${f.aspect.id}`);
    expect(res.json().availabilities).toEqual([{ aspect_id: f.aspect.id, time_bucket: '1999-Q4', value: 'Old' }]);
  });
});

describe('GET /api/availabilities/service/:id/resolved', () => {
  it('answers 401 and 404 for foreign and malformed ids', async () => {
    expect((await api('nobody')('GET', `/api/availabilities/service/${w.service.id}/resolved`)).statusCode).toBe(401);
    expect((await api('admin')('GET', `/api/availabilities/service/${w.foreign.id}/resolved`)).statusCode).toBe(404);
    expect((await api('admin')('GET', '/api/availabilities/service/x/resolved')).statusCode).toBe(404);
  });

  it('answers aspects with availability maps over the timeline; readers get no private aspects', async () => {
    const f = await freshAspect();
    const hidden = await createAspect(t.db, w.tenant.id, f.service.id, f.category.id, { isPublic: false, position: 1 });
    const [q1, q2] = f.service.timeline as [string, string];
    await setAvailability(t.db, w.tenant.id, f.service.id, f.aspect.id, q1, 'Now');
    await setAvailability(t.db, w.tenant.id, f.service.id, hidden.id, q2, 'Secret');
    const editor = (await api('editor')('GET', `/api/availabilities/service/${f.service.id}/resolved`)).json();
    expect(editor.timeline).toEqual(f.service.timeline);
    expect(editor.aspects.map((a: { id: string }) => a.id)).toEqual([f.aspect.id, hidden.id]);
    expect(editor.aspects[0].availabilities).toEqual({ [q1]: 'Now' });
    const reader = (await api('reader')('GET', `/api/availabilities/service/${f.service.id}/resolved`)).json();
    expect(reader.aspects.map((a: { id: string }) => a.id)).toEqual([f.aspect.id]);
    expect(JSON.stringify(reader)).not.toContain('Secret');
  });

  it('hides texts outside the timeline until the timeline covers them again', async () => {
    const f = await freshAspect();
    const last = f.service.timeline[f.service.timeline.length - 1]!;
    await setAvailability(t.db, w.tenant.id, f.service.id, f.aspect.id, last, 'Later');
    const shrink = await api('editor')('PUT', `/api/services/${f.service.id}`, { name: f.service.name, timeline: { first: f.service.timeline[0], last: f.service.timeline[0] } });
    expect(shrink.statusCode).toBe(200);
    const shrunk = (await api('editor')('GET', `/api/availabilities/service/${f.service.id}/resolved`)).json();
    expect(shrunk.aspects[0].availabilities).toEqual({});
    await api('editor')('PUT', `/api/services/${f.service.id}`, { name: f.service.name, timeline: { first: f.service.timeline[0], last } });
    const grown = (await api('editor')('GET', `/api/availabilities/service/${f.service.id}/resolved`)).json();
    expect(grown.aspects[0].availabilities).toEqual({ [last]: 'Later' });
  });
});

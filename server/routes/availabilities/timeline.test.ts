import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { CATALOG_MESSAGES as C } from '../../../common/schemas/catalog';
import { addQuarters } from '../../../common/quarters';
import { buildTestApp, type TestApp } from '../../test/app';
import { createAspect, createCategory, createService, setAvailability } from '../../test/factories';
import { availabilities, availabilityHistory, services } from '../../db/schema';
import { writeAvailabilities } from '../../db/queries/catalog';
import { tenantScope, withScope } from '../../db/scope';
import { as, createCatalogWorld, type CatalogWorld, type Who } from '../services/catalog.fixtures';

let t: TestApp;
let w: CatalogWorld;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createCatalogWorld(t);
});
afterAll(() => t.close());

const api = (who: Who) => as(t, w, who);

async function fresh(n = 2) {
  const service = await createService(t.db, w.tenant.id);
  const category = await createCategory(t.db, w.tenant.id, service.id);
  const aspects = [];
  for (let i = 0; i < n; i++) aspects.push(await createAspect(t.db, w.tenant.id, service.id, category.id, { title: `Aspect ${i}`, position: i }));
  const first = service.timeline[0]!;
  const last = service.timeline[service.timeline.length - 1]!;
  return { service, aspects, first, last, outside: ['1900-Q1', '9999-Q4', addQuarters(first, -1), addQuarters(last, 1)] };
}

/** What the service holds: its cells, its history rows and its version. */
async function stateOf(serviceId: string) {
  const cells = await t.db.select().from(availabilities).where(eq(availabilities.serviceId, serviceId));
  const history = await t.db.select().from(availabilityHistory).where(eq(availabilityHistory.serviceId, serviceId));
  const [service] = await t.db.select({ version: services.version }).from(services).where(eq(services.id, serviceId));
  return { cells: cells.map((c) => `${c.timeBucket} ${c.value}`).sort(), history: history.length, version: service!.version };
}

describe("cell writes outside the service's timeline", () => {
  it('are refused one at a time, naming the quarter, and write nothing', async () => {
    const f = await fresh();
    const aspectId = f.aspects[0]!.id;
    const before = await stateOf(f.service.id);
    for (const timeBucket of f.outside) {
      const res = await api('editor')('POST', '/api/availabilities', { aspectId, timeBucket, value: 'Far away' });
      expect(res.statusCode, timeBucket).toBe(400);
      expect(res.json()).toMatchObject({ field: 'timeBucket', error: C.quarterOutsideTimeline(timeBucket) });
    }
    expect(await stateOf(f.service.id)).toEqual(before);
    // Inside it, at both ends, the write is made.
    for (const timeBucket of [f.first, f.last])
      expect((await api('editor')('POST', '/api/availabilities', { aspectId, timeBucket, value: 'Near' })).statusCode).toBe(200);
    expect((await stateOf(f.service.id)).cells).toEqual([`${f.first} Near`, `${f.last} Near`]);
  });

  it('are refused among writes sent together, the others made', async () => {
    const f = await fresh(4);
    const writes = f.aspects.flatMap((a, i) => [
      { aspectId: a.id, timeBucket: f.service.timeline[i]!, value: `In ${i}` },
      { aspectId: a.id, timeBucket: f.outside[i]!, value: `Out ${i}` },
    ]);
    const answers = await Promise.all(writes.map((body) => api('editor')('POST', '/api/availabilities', body)));
    expect(answers.map((r) => r.statusCode)).toEqual(writes.map((x) => (x.value.startsWith('In') ? 200 : 400)));
    const state = await stateOf(f.service.id);
    expect(state.cells).toEqual(f.aspects.map((_, i) => `${f.service.timeline[i]} In ${i}`).sort());
    expect(state.history).toBe(4);
    // The statement that makes a group of writes answers each outside one as such, and makes the others.
    const grouped = await withScope(tenantScope(w.tenant.id), () =>
      writeAvailabilities(
        t.db,
        w.tenant.id,
        writes.map((x) => ({ key: { tenantId: w.tenant.id, aspectId: x.aspectId, timeBucket: x.timeBucket }, value: `${x.value} again`, changedBy: 'group' })),
      ),
    );
    expect(grouped.map((r) => r.status)).toEqual(writes.map((x) => (x.value.startsWith('In') ? 'applied' : 'outside')));
    expect((await stateOf(f.service.id)).cells).toEqual(f.aspects.map((_, i) => `${f.service.timeline[i]} In ${i} again`).sort());
  });

  it('refuse a whole batch, naming the cell, and write none of it', async () => {
    const f = await fresh();
    const before = await stateOf(f.service.id);
    for (const quarter of f.outside) {
      const cells = [
        { aspectId: f.aspects[0]!.id, timeBucket: f.first, value: 'Fine' },
        { aspectId: f.aspects[1]!.id, timeBucket: quarter, value: 'Far away' },
      ];
      const res = await api('editor')('POST', '/api/availabilities/batch', { serviceId: f.service.id, cells });
      expect(res.statusCode, quarter).toBe(400);
      expect(res.json()).toMatchObject({ field: 'cells.1.timeBucket', error: C.cellOutsideTimeline(1, f.aspects[1]!.id, quarter) });
    }
    expect(await stateOf(f.service.id)).toEqual(before);
  });

  it('keep what is stored outside a shortened timeline, which a write there no longer changes', async () => {
    const f = await fresh(1);
    const aspectId = f.aspects[0]!.id;
    await setAvailability(t.db, w.tenant.id, f.service.id, aspectId, f.last, 'Later');
    const shrink = await api('editor')('PUT', `/api/services/${f.service.id}`, { name: f.service.name, timeline: { first: f.first, last: f.first } });
    expect(shrink.statusCode).toBe(200);
    expect((await api('editor')('POST', '/api/availabilities', { aspectId, timeBucket: f.last, value: 'Changed' })).statusCode).toBe(400);
    const batch = await api('editor')('POST', '/api/availabilities/batch', { serviceId: f.service.id, cells: [{ aspectId, timeBucket: f.last, value: '' }] });
    expect(batch.statusCode).toBe(400);
    const stored = (await api('editor')('GET', `/api/availabilities/aspect/${aspectId}`)).json();
    expect(stored.availabilities).toEqual([{ aspect_id: aspectId, time_bucket: f.last, value: 'Later' }]);
  });
});

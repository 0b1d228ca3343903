import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { M } from '../../../common/messages';
import { MAX_TEXT_LENGTH } from '../../../common/limits';
import { CATALOG_MESSAGES as C } from '../../../common/schemas/catalog';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { assignServiceRole, createAspect, createCategory, createService, createUser, setAvailability, signIn } from '../../test/factories';
import { availabilities, availabilityHistory, services } from '../../db/schema';
import { lockService } from '../../db/queries/services';
import { writeAvailability } from '../../db/queries/catalog';
import { tenantScope, withScope } from '../../db/scope';
import { as, countStatements, createCatalogWorld, type CatalogWorld, type Who } from '../services/catalog.fixtures';
import { defaultTimeline } from '../../../common/quarters';

/** The quarters of a service's default timeline, which the writes below must fall in. */
const TIMELINE = defaultTimeline();

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
  const body = (over: Record<string, unknown> = {}) => ({ aspectId: w.publicAspect.id, timeBucket: TIMELINE[0], value: 'Beta', ...over });

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
    const set = (value: string) => api('editor')('POST', '/api/availabilities', { aspectId: f.aspect.id, timeBucket: TIMELINE[1], value });
    const first = await set('  Pilot ');
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ availability: { aspect_id: f.aspect.id, time_bucket: TIMELINE[1], value: 'Pilot' } });
    await set('Available');
    const list = await api('reader')('GET', `/api/availabilities/aspect/${f.aspect.id}`);
    expect(list.json().availabilities).toEqual([{ aspect_id: f.aspect.id, time_bucket: TIMELINE[1], value: 'Available' }]);
    const cleared = await set('   ');
    expect(cleared.json().availability.value).toBe('');
    expect((await api('reader')('GET', `/api/availabilities/aspect/${f.aspect.id}`)).json().availabilities).toEqual([]);
    const history = (await api('reader')('GET', `/api/availabilities/aspect/${f.aspect.id}/history`)).json().history;
    expect(history.map((h: { value: string }) => h.value)).toEqual(['', 'Available', 'Pilot']);
    expect(history[0]).toEqual({ time_bucket: TIMELINE[1], value: '', changed_by: w.users.editor.email, changed_at: expect.any(String) });
    const [row] = await t.db.select().from(services).where(eq(services.id, f.service.id));
    expect(row!.version).toBe(f.service.version + 3);
  });

  it('answers 409 with the current value when expectedValue differs from the stored one', async () => {
    const f = await freshAspect();
    const post = (value: string, expectedValue: string | null) =>
      api('editor')('POST', '/api/availabilities', { aspectId: f.aspect.id, timeBucket: TIMELINE[2], value, expectedValue });
    expect((await post('One', null)).statusCode).toBe(200);
    const stale = await post('Two', null);
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ error: C.availabilityChanged, current: 'One' });
    expect((await post('Two', 'One')).statusCode).toBe(200);
  });
});

/** What a write may change: the aspect's texts and history, its service's version and last_updated. */
async function stateOf(serviceId: string, aspectId: string) {
  const texts = await t.db.select().from(availabilities).where(eq(availabilities.aspectId, aspectId));
  const history = await t.db.select().from(availabilityHistory).where(eq(availabilityHistory.aspectId, aspectId));
  const [service] = await t.db.select({ version: services.version, lastUpdated: services.lastUpdated }).from(services).where(eq(services.id, serviceId));
  return { texts, history, service };
}

describe('POST /api/availabilities in one statement', () => {
  /** A reader of the tenant who edits through a service role assignment (on fresh services only). */
  let serviceEditor: { id: string; email: string; token: string };
  beforeAll(async () => {
    const user = await createUser(t.db, w.tenant.id, { role: 'reader' });
    serviceEditor = { id: user.id, email: user.email, token: await signIn(t.app, user.email) };
  });
  const post = (token: string, body: Record<string, unknown>) => call(t.app, 'POST', '/api/availabilities', { token, body });

  it('runs one statement for an editor, two for a reader who edits through a service role', async () => {
    const f = await freshAspect();
    await assignServiceRole(t.db, w.tenant.id, f.service.id, serviceEditor.id, 'editor');
    const write = (token: string, value: string) => post(token, { aspectId: f.aspect.id, timeBucket: TIMELINE[0], value });
    // The first calls resolve and keep the sessions; the counted ones are the writes alone.
    expect((await write(w.tokens.editor, 'Warm')).statusCode).toBe(200);
    expect((await write(serviceEditor.token, 'Warm too')).statusCode).toBe(200);
    expect((await write(w.tokens.reader, 'No')).statusCode).toBe(403);
    expect(await countStatements(t, async () => expect((await write(w.tokens.editor, 'One')).statusCode).toBe(200))).toBe(1);
    expect(await countStatements(t, async () => expect((await write(serviceEditor.token, 'Two')).statusCode).toBe(200))).toBe(2);
    expect(await countStatements(t, async () => expect((await write(w.tokens.reader, 'No')).statusCode).toBe(403))).toBe(1);
    const history = (await api('reader')('GET', `/api/availabilities/aspect/${f.aspect.id}/history`)).json().history;
    expect(history.map((h: { value: string; changed_by: string }) => [h.value, h.changed_by])).toEqual([
      ['Two', serviceEditor.email],
      ['One', w.users.editor.email],
      ['Warm too', serviceEditor.email],
      ['Warm', w.users.editor.email],
    ]);
    const [row] = await t.db.select().from(services).where(eq(services.id, f.service.id));
    expect(row!.version).toBe(f.service.version + 4);
  });

  it('lets an editor write a private aspect, and a reader with a service role too', async () => {
    const f = await freshAspect();
    const hidden = await createAspect(t.db, w.tenant.id, f.service.id, f.category.id, { isPublic: false, position: 1 });
    const body = { aspectId: hidden.id, timeBucket: TIMELINE[1], value: 'Hidden' };
    expect((await post(serviceEditor.token, body)).statusCode).toBe(404);
    expect((await post(w.tokens.editor, body)).statusCode).toBe(200);
    await assignServiceRole(t.db, w.tenant.id, f.service.id, serviceEditor.id, 'editor');
    expect((await post(serviceEditor.token, { ...body, value: 'Hidden too' })).statusCode).toBe(200);
    expect((await stateOf(f.service.id, hidden.id)).texts.map((r) => r.value)).toEqual(['Hidden too']);
  });

  it('answers the aspect id as stored when it is sent in capitals', async () => {
    const f = await freshAspect();
    const res = await post(w.tokens.editor, { aspectId: f.aspect.id.toUpperCase(), timeBucket: TIMELINE[0], value: 'Caps' });
    expect(res.statusCode).toBe(200);
    expect(res.json().availability.aspect_id).toBe(f.aspect.id);
  });

  it('shows the written value in the next /full, however warm its caches were', async () => {
    const f = await freshAspect();
    const quarter = f.service.timeline[0]!;
    const cell = async () => {
      const res = await api('editor')('GET', `/api/services/${f.service.id}/full`);
      expect(res.statusCode).toBe(200);
      return res.json().resolved_data.aspects[0].availabilities[quarter];
    };
    expect(await cell()).toBeUndefined();
    expect(await cell()).toBeUndefined();
    expect((await post(w.tokens.editor, { aspectId: f.aspect.id, timeBucket: quarter, value: 'Fresh' })).statusCode).toBe(200);
    expect(await cell()).toBe('Fresh');
    await assignServiceRole(t.db, w.tenant.id, f.service.id, serviceEditor.id, 'editor');
    expect((await post(serviceEditor.token, { aspectId: f.aspect.id, timeBucket: quarter, value: 'Fresher' })).statusCode).toBe(200);
    expect(await cell()).toBe('Fresher');
  });

  it('answers 409 for an archived service and writes nothing, whoever asks', async () => {
    await setAvailability(t.db, w.tenant.id, w.archived.id, w.archivedAspect.id, TIMELINE[0], 'Frozen');
    await assignServiceRole(t.db, w.tenant.id, w.archived.id, serviceEditor.id, 'editor');
    const before = await stateOf(w.archived.id, w.archivedAspect.id);
    for (const token of [w.tokens.editor, w.tokens.superAdmin, serviceEditor.token]) {
      for (const expectedValue of [undefined, 'Frozen', 'Other']) {
        const res = await post(token, { aspectId: w.archivedAspect.id, timeBucket: TIMELINE[0], value: 'Thawed', expectedValue });
        expect(res.statusCode).toBe(409);
        expect(res.json().error).toBe(M.serviceArchivedConflict);
      }
      expect((await post(token, { aspectId: w.archivedAspect.id, timeBucket: TIMELINE[0], value: '' })).statusCode).toBe(409);
    }
    expect(await stateOf(w.archived.id, w.archivedAspect.id)).toEqual(before);
  });

  it('answers 404 for another tenant’s aspect and an unknown one, and writes nothing', async () => {
    await setAvailability(t.db, w.other.id, w.foreign.id, w.foreignAspect.id, TIMELINE[0], 'Theirs');
    const before = await stateOf(w.foreign.id, w.foreignAspect.id);
    for (const token of [w.tokens.editor, w.tokens.admin, w.tokens.superAdmin, w.tokens.reader, serviceEditor.token]) {
      for (const aspectId of [w.foreignAspect.id, '00000000-0000-4000-8000-000000000000']) {
        const res = await post(token, { aspectId, timeBucket: TIMELINE[0], value: 'Ours', expectedValue: 'Theirs' });
        expect(res.statusCode).toBe(404);
        expect(res.json().error).toBe(M.notFound);
      }
    }
    expect(await stateOf(w.foreign.id, w.foreignAspect.id)).toEqual(before);
  });

  it('runs the write function under row-level security: another tenant’s aspect is not found in this tenant’s scope', async () => {
    const before = await stateOf(w.foreign.id, w.foreignAspect.id);
    // A call that names the other tenant, as a forgotten check would: the function runs as the
    // application role, so the policies hide that tenant's rows from it.
    const key = { tenantId: w.other.id, aspectId: w.foreignAspect.id, timeBucket: TIMELINE[0] };
    const result = await withScope(tenantScope(w.tenant.id), () => writeAvailability(t.db, key, 'Ours', 'someone'));
    expect(result).toEqual({ status: 'not_found', current: null, serviceId: null, serviceVersion: null });
    expect(await stateOf(w.foreign.id, w.foreignAspect.id)).toEqual(before);
  });

  it('applies exactly one of concurrent writes from the same expected value; the others answer 409', async () => {
    const f = await freshAspect();
    await assignServiceRole(t.db, w.tenant.id, f.service.id, serviceEditor.id, 'editor');
    const timeBucket = TIMELINE[3];
    expect((await post(w.tokens.editor, { aspectId: f.aspect.id, timeBucket, value: 'Start' })).statusCode).toBe(200);
    const before = await stateOf(f.service.id, f.aspect.id);
    // The service stays locked while the writes start, so that they all reach the database before
    // any is done: on PostgreSQL they queue on the lock (without it, each would find 'Start' and
    // apply); the embedded database runs them one after another anyway.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holder!: Promise<void>;
    await new Promise<void>((locked) => {
      holder = t.db.transaction(async (tx) => {
        await lockService(tx, w.tenant.id, f.service.id);
        locked();
        await released;
      });
    });
    const tokens = [w.tokens.editor, w.tokens.admin, w.tokens.superAdmin, serviceEditor.token, w.tokens.editor, serviceEditor.token];
    const writes = Promise.all(tokens.map((token, i) => post(token, { aspectId: f.aspect.id, timeBucket, value: `Writer ${i}`, expectedValue: 'Start' })));
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    await holder;
    const results = await writes;
    const applied = results.filter((r) => r.statusCode === 200);
    expect(applied).toHaveLength(1);
    const winner = applied[0]!.json().availability.value;
    for (const res of results.filter((r) => r !== applied[0])) {
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ error: C.availabilityChanged, current: winner });
    }
    const after = await stateOf(f.service.id, f.aspect.id);
    expect(after.texts.map((r) => [r.value, r.version])).toEqual([[winner, before.texts[0]!.version + 1]]);
    expect(after.history).toHaveLength(before.history.length + 1);
    expect(after.service!.version).toBe(before.service!.version + 1);
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
    const shrink = await api('editor')('PUT', `/api/services/${f.service.id}`, {
      name: f.service.name,
      timeline: { first: f.service.timeline[0], last: f.service.timeline[0] },
    });
    expect(shrink.statusCode).toBe(200);
    const shrunk = (await api('editor')('GET', `/api/availabilities/service/${f.service.id}/resolved`)).json();
    expect(shrunk.aspects[0].availabilities).toEqual({});
    await api('editor')('PUT', `/api/services/${f.service.id}`, { name: f.service.name, timeline: { first: f.service.timeline[0], last } });
    const grown = (await api('editor')('GET', `/api/availabilities/service/${f.service.id}/resolved`)).json();
    expect(grown.aspects[0].availabilities).toEqual({ [last]: 'Later' });
  });
});

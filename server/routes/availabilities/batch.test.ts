import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { M } from '../../../common/messages';
import { MAX_BATCH_CELLS, MAX_TEXT_LENGTH } from '../../../common/limits';
import { CATALOG_MESSAGES as C } from '../../../common/schemas/catalog';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { assignServiceRole, createAspect, createCategory, createService, createUser, setAvailability, signIn } from '../../test/factories';
import { auditLog, availabilities, availabilityHistory, services } from '../../db/schema';
import { as, createCatalogWorld, type CatalogWorld, type Who } from '../services/catalog.fixtures';
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

/** A fresh service with `n` aspects in one category. */
async function freshService(n = 3, overrides: Parameters<typeof createService>[2] = {}) {
  const service = await createService(t.db, w.tenant.id, overrides);
  const category = await createCategory(t.db, w.tenant.id, service.id);
  const aspects = [];
  for (let i = 0; i < n; i++)
    aspects.push(await createAspect(t.db, w.tenant.id, service.id, category.id, { title: `Aspect ${i}`, position: i, isPublic: true }));
  return { service, category, aspects };
}

async function textsOf(serviceId: string) {
  const rows = await t.db.select().from(availabilities).where(eq(availabilities.serviceId, serviceId));
  return Object.fromEntries(rows.map((r) => [`${r.aspectId}|${r.timeBucket}`, r.value]));
}

async function historyOf(serviceId: string) {
  return t.db.select().from(availabilityHistory).where(eq(availabilityHistory.serviceId, serviceId));
}

async function versionOf(serviceId: string) {
  const [row] = await t.db.select({ version: services.version }).from(services).where(eq(services.id, serviceId));
  return row!.version;
}

async function auditOf(serviceId: string) {
  return t.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.targetId, serviceId), eq(auditLog.action, 'availability.batch')));
}

const batch = (who: Who, body: unknown) => api(who)('POST', '/api/availabilities/batch', body);

describe('POST /api/availabilities/batch', () => {
  it('answers 401 without a token', async () => {
    expect((await batch('nobody', { serviceId: w.service.id, cells: [{ aspectId: w.publicAspect.id, timeBucket: TIMELINE[0], value: 'x' }] })).statusCode).toBe(
      401,
    );
  });

  it.each([
    [{ cells: [] }, 'cells'],
    [{ cells: 'nope' }, 'cells'],
    [{ serviceId: 'nope' }, 'serviceId'],
    [{ cells: [{ aspectId: 'nope', timeBucket: TIMELINE[0], value: 'x' }] }, 'cells.0.aspectId'],
    [{ cells: [{ aspectId: '00000000-0000-4000-8000-000000000000', timeBucket: '2026-Q9', value: 'x' }] }, 'cells.0.timeBucket'],
    [{ cells: [{ aspectId: '00000000-0000-4000-8000-000000000000', timeBucket: TIMELINE[0], value: 'x'.repeat(MAX_TEXT_LENGTH + 1) }] }, 'cells.0.value'],
  ])('answers 400 naming the field (%#)', async (over, field) => {
    const res = await batch('editor', { serviceId: w.service.id, ...over });
    expect(res.statusCode).toBe(400);
    expect(res.json().field).toBe(field);
  });

  it('refuses more cells than the largest timeline times 1,000 aspects', async () => {
    const cell = { aspectId: w.publicAspect.id, timeBucket: TIMELINE[0], value: '' };
    const res = await batch('editor', { serviceId: w.service.id, cells: Array.from({ length: MAX_BATCH_CELLS + 1 }, () => cell) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: C.tooManyCells, field: 'cells' });
  });

  it('writes every cell in one call: one history row per changed cell, one version step, one audit row with the count', async () => {
    const f = await freshService(3);
    await setAvailability(t.db, w.tenant.id, f.service.id, f.aspects[0]!.id, TIMELINE[0], 'Same');
    await setAvailability(t.db, w.tenant.id, f.service.id, f.aspects[1]!.id, TIMELINE[0], 'To clear');
    const before = await versionOf(f.service.id);
    const historyBefore = (await historyOf(f.service.id)).length;
    const cells = [
      { aspectId: f.aspects[0]!.id, timeBucket: TIMELINE[0], value: 'Same' },
      { aspectId: f.aspects[1]!.id, timeBucket: TIMELINE[0], value: '  ' },
      { aspectId: f.aspects[2]!.id.toUpperCase(), timeBucket: TIMELINE[1], value: ' Line one\n"quoted"\tand tab ' },
      { aspectId: f.aspects[0]!.id, timeBucket: TIMELINE[2], value: 'New' },
    ];
    const res = await batch('editor', { serviceId: f.service.id, cells });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      changed: 3,
      unchanged: 1,
      availabilities: [
        { aspect_id: f.aspects[1]!.id, time_bucket: TIMELINE[0], value: '' },
        { aspect_id: f.aspects[2]!.id, time_bucket: TIMELINE[1], value: 'Line one\n"quoted"\tand tab' },
        { aspect_id: f.aspects[0]!.id, time_bucket: TIMELINE[2], value: 'New' },
      ],
    });
    expect(await textsOf(f.service.id)).toEqual({
      [`${f.aspects[0]!.id}|${TIMELINE[0]}`]: 'Same',
      [`${f.aspects[2]!.id}|${TIMELINE[1]}`]: 'Line one\n"quoted"\tand tab',
      [`${f.aspects[0]!.id}|${TIMELINE[2]}`]: 'New',
    });
    const history = await historyOf(f.service.id);
    expect(history.length - historyBefore).toBe(3);
    expect(
      history
        .filter((h) => h.changedBy === w.users.editor.email)
        .map((h) => h.value)
        .sort(),
    ).toEqual(['', 'Line one\n"quoted"\tand tab', 'New']);
    expect(await versionOf(f.service.id)).toBe(before + 1);
    const audit = await auditOf(f.service.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actorEmail: w.users.editor.email, tenantId: w.tenant.id, details: { count: 3 } });
    // The history API shows each cell's change as one cell's write would.
    const cellHistory = (await api('reader')('GET', `/api/availabilities/aspect/${f.aspects[0]!.id}/history`)).json().history;
    expect(cellHistory[0]).toMatchObject({ time_bucket: TIMELINE[2], value: 'New', changed_by: w.users.editor.email });
  });

  it('writes nothing and records nothing when no cell changes', async () => {
    const f = await freshService(1);
    await setAvailability(t.db, w.tenant.id, f.service.id, f.aspects[0]!.id, TIMELINE[0], 'Kept');
    const before = await versionOf(f.service.id);
    const res = await batch('editor', { serviceId: f.service.id, cells: [{ aspectId: f.aspects[0]!.id, timeBucket: TIMELINE[0], value: 'Kept' }] });
    expect(res.json()).toEqual({ changed: 0, unchanged: 1, availabilities: [] });
    expect(await versionOf(f.service.id)).toBe(before);
    expect(await auditOf(f.service.id)).toHaveLength(0);
  });

  it('answers 409 naming every conflicting cell and writes none of the batch', async () => {
    const f = await freshService(3);
    await setAvailability(t.db, w.tenant.id, f.service.id, f.aspects[0]!.id, TIMELINE[0], 'Theirs');
    await setAvailability(t.db, w.tenant.id, f.service.id, f.aspects[1]!.id, TIMELINE[1], 'Also theirs');
    const before = { texts: await textsOf(f.service.id), history: (await historyOf(f.service.id)).length, version: await versionOf(f.service.id) };
    const res = await batch('editor', {
      serviceId: f.service.id,
      cells: [
        { aspectId: f.aspects[2]!.id, timeBucket: TIMELINE[0], value: 'Would be fine', expectedValue: null },
        { aspectId: f.aspects[0]!.id, timeBucket: TIMELINE[0], value: 'Mine', expectedValue: 'What I saw' },
        { aspectId: f.aspects[1]!.id, timeBucket: TIMELINE[1], value: 'Mine too', expectedValue: null },
        { aspectId: f.aspects[1]!.id, timeBucket: TIMELINE[2], value: 'No expectation' },
      ],
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      error: C.cellsChanged,
      conflicts: [
        { aspect_id: f.aspects[0]!.id, time_bucket: TIMELINE[0], current: 'Theirs' },
        { aspect_id: f.aspects[1]!.id, time_bucket: TIMELINE[1], current: 'Also theirs' },
      ],
    });
    expect(await textsOf(f.service.id)).toEqual(before.texts);
    expect((await historyOf(f.service.id)).length).toBe(before.history);
    expect(await versionOf(f.service.id)).toBe(before.version);
    expect(await auditOf(f.service.id)).toHaveLength(0);
    // With the values it now knows, the same batch goes through.
    const retry = await batch('editor', {
      serviceId: f.service.id,
      cells: [
        { aspectId: f.aspects[0]!.id, timeBucket: TIMELINE[0], value: 'Mine', expectedValue: 'Theirs' },
        { aspectId: f.aspects[1]!.id, timeBucket: TIMELINE[1], value: 'Mine too', expectedValue: '  Also theirs ' },
      ],
    });
    expect(retry.statusCode).toBe(200);
  });

  it('answers 403 to a reader and to an editor of the tenant only through nothing, 200 once a service role raises a reader', async () => {
    const f = await freshService(1);
    const body = { serviceId: f.service.id, cells: [{ aspectId: f.aspects[0]!.id, timeBucket: TIMELINE[0], value: 'Raised' }] };
    expect((await batch('reader', body)).statusCode).toBe(403);
    const user = await createUser(t.db, w.tenant.id, { role: 'reader' });
    const token = await signIn(t.app, user.email);
    const post = () => call(t.app, 'POST', '/api/availabilities/batch', { token, body });
    expect((await post()).statusCode).toBe(403);
    await assignServiceRole(t.db, w.tenant.id, f.service.id, user.id, 'editor');
    expect((await post()).statusCode).toBe(200);
    expect(Object.values(await textsOf(f.service.id))).toEqual(['Raised']);
    // A service role on another service raises nothing here.
    const g = await freshService(1);
    const other = await post().then(() =>
      call(t.app, 'POST', '/api/availabilities/batch', {
        token,
        body: { serviceId: g.service.id, cells: [{ aspectId: g.aspects[0]!.id, timeBucket: TIMELINE[0], value: 'x' }] },
      }),
    );
    expect(other.statusCode).toBe(403);
  });

  it('answers 404 for another tenant’s service or aspect, and writes none of the batch', async () => {
    expect((await batch('admin', { serviceId: w.foreign.id, cells: [{ aspectId: w.foreignAspect.id, timeBucket: TIMELINE[0], value: 'x' }] })).statusCode).toBe(
      404,
    );
    expect(
      (await batch('otherAdmin', { serviceId: w.service.id, cells: [{ aspectId: w.publicAspect.id, timeBucket: TIMELINE[0], value: 'x' }] })).statusCode,
    ).toBe(404);
    const f = await freshService(1);
    const res = await batch('admin', {
      serviceId: f.service.id,
      cells: [
        { aspectId: f.aspects[0]!.id, timeBucket: TIMELINE[0], value: 'Mine' },
        { aspectId: w.foreignAspect.id, timeBucket: TIMELINE[0], value: 'Theirs' },
      ],
    });
    expect(res.statusCode).toBe(404);
    expect(await textsOf(f.service.id)).toEqual({});
    expect(await textsOf(w.foreign.id)).toEqual({});
  });

  it('refuses cells of another service of the tenant (400) and writes none', async () => {
    const f = await freshService(1);
    const g = await freshService(1);
    const res = await batch('editor', {
      serviceId: f.service.id,
      cells: [
        { aspectId: f.aspects[0]!.id, timeBucket: TIMELINE[0], value: 'Here' },
        { aspectId: g.aspects[0]!.id, timeBucket: TIMELINE[0], value: 'There' },
      ],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: C.cellNotInService, field: 'cells' });
    expect(await textsOf(f.service.id)).toEqual({});
    expect(await textsOf(g.service.id)).toEqual({});
  });

  it('refuses the same cell twice in one batch', async () => {
    const f = await freshService(1);
    const cell = { aspectId: f.aspects[0]!.id, timeBucket: TIMELINE[0], value: 'One' };
    const res = await batch('editor', { serviceId: f.service.id, cells: [cell, { ...cell, aspectId: cell.aspectId.toUpperCase(), value: 'Two' }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe(C.duplicateCell);
    expect(await textsOf(f.service.id)).toEqual({});
  });

  it('answers 409 on an archived service and writes nothing', async () => {
    const res = await batch('admin', { serviceId: w.archived.id, cells: [{ aspectId: w.archivedAspect.id, timeBucket: TIMELINE[0], value: 'x' }] });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe(M.serviceArchivedConflict);
    expect(await textsOf(w.archived.id)).toEqual({});
  });

  it('writes a 1,000-aspect by 8-quarter block in one call', async () => {
    const service = await createService(t.db, w.tenant.id);
    const category = await createCategory(t.db, w.tenant.id, service.id);
    const ids: string[] = [];
    for (let i = 0; i < 1_000; i++) ids.push((await createAspect(t.db, w.tenant.id, service.id, category.id, { title: `A${i}`, position: i })).id);
    const quarters = [TIMELINE[0], TIMELINE[1], TIMELINE[2], TIMELINE[3], TIMELINE[4], TIMELINE[5], TIMELINE[6], TIMELINE[7]];
    const cells = ids.flatMap((aspectId, i) => quarters.map((timeBucket) => ({ aspectId, timeBucket, value: `v${i}-${timeBucket}` })));
    const res = await batch('editor', { serviceId: service.id, cells });
    expect(res.statusCode).toBe(200);
    expect(res.json().changed).toBe(8_000);
    expect(Object.keys(await textsOf(service.id))).toHaveLength(8_000);
    expect(await historyOf(service.id)).toHaveLength(8_000);
  });

  it('tells the change stream and the next /full of the service', async () => {
    const f = await freshService(1);
    const full = async () => (await api('editor')('GET', `/api/services/${f.service.id}/full`)).json();
    await full();
    expect(
      (await batch('editor', { serviceId: f.service.id, cells: [{ aspectId: f.aspects[0]!.id, timeBucket: f.service.timeline[0]!, value: 'Fresh' }] }))
        .statusCode,
    ).toBe(200);
    expect(JSON.stringify(await full())).toContain('Fresh');
  });
});

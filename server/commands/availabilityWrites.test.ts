import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, asc, eq, type SQLWrapper } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { M } from '../../common/messages';
import { CATALOG_MESSAGES as C } from '../../common/schemas/catalog';
import { buildTestApp, call, type TestApp } from '../test/app';
import { createAspect, createCategory, createService, setAvailability } from '../test/factories';
import { availabilities, availabilityHistory, services } from '../db/schema';
import { lockService } from '../db/queries/services';
import type { Db } from '../db/client';
import { writeAvailabilities } from '../db/queries/catalog';
import { tenantScope, withScope } from '../db/scope';
import { createCatalogWorld, type CatalogWorld } from '../routes/services/catalog.fixtures';
import { AvailabilityWriter, MAX_BATCH } from './availabilityWrites';
import { defaultTimeline } from '../../common/quarters';

/** The quarters of a service's default timeline, which the writes below must fall in. */
const TIMELINE = defaultTimeline();

let t: TestApp;
let w: CatalogWorld;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createCatalogWorld(t);
});
afterAll(() => t.close());

async function serviceWithAspects(count: number) {
  const service = (await createService(t.db, w.tenant.id, { timeline: [TIMELINE[0], TIMELINE[1], TIMELINE[2], TIMELINE[3]] }))!;
  const category = (await createCategory(t.db, w.tenant.id, service.id))!;
  const aspects = [];
  for (let i = 0; i < count; i++) aspects.push((await createAspect(t.db, w.tenant.id, service.id, category.id, { position: i }))!);
  return { service, aspects };
}

async function texts(serviceId: string) {
  const rows = await t.db
    .select()
    .from(availabilities)
    .where(eq(availabilities.serviceId, serviceId))
    .orderBy(asc(availabilities.aspectId), asc(availabilities.timeBucket));
  return new Map(rows.map((r) => [`${r.aspectId} ${r.timeBucket}`, r.value]));
}

async function historyOf(serviceId: string) {
  return t.db.select().from(availabilityHistory).where(eq(availabilityHistory.serviceId, serviceId));
}

async function versionOf(serviceId: string) {
  const [row] = await t.db.select({ version: services.version }).from(services).where(eq(services.id, serviceId));
  return row!.version;
}

const dialect = new PgDialect();

/** The app's database, with every write call it makes noted (and the ones `fail` picks refused). */
function watched(fail: (call: number) => boolean = () => false) {
  const calls: string[] = [];
  const db = new Proxy(t.db, {
    get(target, prop, receiver) {
      if (prop !== 'execute') return Reflect.get(target, prop, receiver);
      return (query: SQLWrapper) => {
        const text = dialect.sqlToQuery(query.getSQL()).sql;
        calls.push(/catalog_write_availabilities\(/.test(text) ? 'group' : 'alone');
        if (fail(calls.length)) return Promise.reject(new Error('refused'));
        return target.execute(query);
      };
    },
  }) as Db;
  return { db, calls };
}

describe('AvailabilityWriter', () => {
  it('sends the writes that arrive while one is under way as one statement, each made as it would be alone', async () => {
    const { service, aspects } = await serviceWithAspects(4);
    await setAvailability(t.db, w.tenant.id, service.id, aspects[2]!.id, TIMELINE[0], 'Old');
    await setAvailability(t.db, w.tenant.id, service.id, aspects[3]!.id, TIMELINE[0], 'Start');
    const versionBefore = await versionOf(service.id);
    const { db, calls } = watched();
    const writer = new AvailabilityWriter();
    const key = (aspect: number, timeBucket = TIMELINE[0]) => ({ tenantId: w.tenant.id, aspectId: aspects[aspect]!.id, timeBucket });
    const results = await Promise.all([
      writer.write(db, { key: key(0), value: 'One', changedBy: 'first' }),
      writer.write(db, { key: key(1), value: 'Two', changedBy: 'second' }),
      writer.write(db, { key: key(2), value: '', changedBy: 'third' }),
      writer.write(db, { key: key(3), value: 'Mine', changedBy: 'fourth', expected: 'Start' }),
      writer.write(db, { key: key(3), value: 'Yours', changedBy: 'fifth', expected: 'Start' }),
      writer.write(db, { key: { tenantId: w.tenant.id, aspectId: w.foreignAspect.id, timeBucket: TIMELINE[0] }, value: 'No', changedBy: 'sixth' }),
      writer.write(db, { key: { tenantId: w.tenant.id, aspectId: w.archivedAspect.id, timeBucket: TIMELINE[0] }, value: 'No', changedBy: 'seventh' }),
      writer.write(db, { key: key(0, TIMELINE[1]), value: 'Later', changedBy: 'eighth', expected: null }),
    ]);
    // The first went alone; the seven that came while it was under way went together.
    expect(calls).toEqual(['alone', 'group']);
    expect(results).toEqual([
      // Each applied write answers the service version it made, in the order they were made.
      { status: 'applied', current: null, serviceId: service.id, serviceVersion: versionBefore + 1 },
      { status: 'applied', current: null, serviceId: service.id, serviceVersion: versionBefore + 2 },
      { status: 'applied', current: 'Old', serviceId: service.id, serviceVersion: versionBefore + 3 },
      { status: 'applied', current: 'Start', serviceId: service.id, serviceVersion: versionBefore + 4 },
      { status: 'conflict', current: 'Mine', serviceId: service.id, serviceVersion: null },
      { status: 'not_found', current: null, serviceId: null, serviceVersion: null },
      { status: 'archived', current: null, serviceId: w.archived.id, serviceVersion: null },
      { status: 'applied', current: null, serviceId: service.id, serviceVersion: versionBefore + 5 },
    ]);
    expect(await texts(service.id)).toEqual(
      new Map([
        [`${aspects[0]!.id} ${TIMELINE[0]}`, 'One'],
        [`${aspects[0]!.id} ${TIMELINE[1]}`, 'Later'],
        [`${aspects[1]!.id} ${TIMELINE[0]}`, 'Two'],
        [`${aspects[3]!.id} ${TIMELINE[0]}`, 'Mine'],
      ]),
    );
    const history = await historyOf(service.id);
    expect(history.map((h) => h.changedBy).sort()).toEqual(['eighth', 'first', 'fourth', 'second', 'third']);
    expect(await versionOf(service.id)).toBe(versionBefore + 5);
    expect(writer.waiting(w.tenant.id)).toBe(0);
  });

  it(`sends at most ${MAX_BATCH} writes in one statement, in the order they came`, async () => {
    const { service, aspects } = await serviceWithAspects(1);
    const { db, calls } = watched();
    const writer = new AvailabilityWriter();
    const count = MAX_BATCH + 6;
    const results = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        writer.write(db, { key: { tenantId: w.tenant.id, aspectId: aspects[0]!.id, timeBucket: TIMELINE[2] }, value: `Write ${i}`, changedBy: `writer ${i}` }),
      ),
    );
    expect(calls).toEqual(['alone', 'group', 'group']);
    // Each write found the one before it: they were made one after another, in order.
    expect(results.map((r) => r.current)).toEqual([null, ...Array.from({ length: count - 1 }, (_, i) => `Write ${i}`)]);
    expect((await texts(service.id)).get(`${aspects[0]!.id} ${TIMELINE[2]}`)).toBe(`Write ${count - 1}`);
    expect(await historyOf(service.id)).toHaveLength(count);
  });

  it('tries each write of a group that failed as a whole again alone; only a write that fails alone fails', async () => {
    const { service, aspects } = await serviceWithAspects(3);
    // Call 2 is the group; call 4 is its last write's try alone.
    const { db, calls } = watched((n) => n === 2 || n === 4);
    const writer = new AvailabilityWriter();
    const write = (i: number) =>
      writer.write(db, { key: { tenantId: w.tenant.id, aspectId: aspects[i]!.id, timeBucket: TIMELINE[0] }, value: `Value ${i}`, changedBy: 'someone' });
    const results = await Promise.allSettled([write(0), write(1), write(2)]);
    expect(calls).toEqual(['alone', 'group', 'alone', 'alone']);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect([...(await texts(service.id)).values()].sort()).toEqual(['Value 0', 'Value 1']);
    // The lane is free again: the next write goes alone at once.
    calls.length = 0;
    await expect(write(2)).resolves.toMatchObject({ status: 'applied' });
    expect(calls).toEqual(['alone']);
  });

  it('keeps each tenant’s writes apart: a group holds one tenant only', async () => {
    const { aspects } = await serviceWithAspects(1);
    const { db, calls } = watched();
    const writer = new AvailabilityWriter();
    const ours = { tenantId: w.tenant.id, aspectId: aspects[0]!.id, timeBucket: TIMELINE[0] };
    // The other tenant's aspect, named with that tenant's id: a lane of its own, sent alone.
    const theirs = { tenantId: w.other.id, aspectId: w.foreignAspect.id, timeBucket: TIMELINE[3] };
    const results = await Promise.all([
      writer.write(db, { key: ours, value: 'A', changedBy: 'x' }),
      writer.write(db, { key: theirs, value: 'B', changedBy: 'y' }),
      writer.write(db, { key: ours, value: 'C', changedBy: 'x' }),
    ]);
    expect(calls).toEqual(['alone', 'alone', 'alone']);
    expect(results.map((r) => r.status)).toEqual(['applied', 'applied', 'applied']);
    const [row] = await t.db
      .select()
      .from(availabilities)
      .where(and(eq(availabilities.aspectId, w.foreignAspect.id), eq(availabilities.timeBucket, TIMELINE[3])));
    expect(row!.tenantId).toBe(w.other.id);
  });
});

describe('catalog_write_availabilities', () => {
  it('runs under row-level security: in one tenant’s scope, another tenant’s aspects are not found and nothing is written', async () => {
    const { service, aspects } = await serviceWithAspects(1);
    const before = await texts(w.foreign.id);
    const [theirs, ours] = await withScope(tenantScope(w.tenant.id), () =>
      writeAvailabilities(t.db, w.other.id, [
        { key: { tenantId: w.other.id, aspectId: w.foreignAspect.id, timeBucket: TIMELINE[0] }, value: 'Ours', changedBy: 'someone' },
        { key: { tenantId: w.other.id, aspectId: aspects[0]!.id, timeBucket: TIMELINE[0] }, value: 'Ours', changedBy: 'someone' },
      ]),
    );
    expect(theirs).toEqual({ status: 'not_found', current: null, serviceId: null, serviceVersion: null });
    expect(ours).toEqual({ status: 'not_found', current: null, serviceId: null, serviceVersion: null });
    expect(await texts(w.foreign.id)).toEqual(before);
    expect(await texts(service.id)).toEqual(new Map());
  });
});

describe('POST /api/availabilities, written together', () => {
  it('answers each of the writes that waited behind another as if it had been made alone', async () => {
    const { service, aspects } = await serviceWithAspects(3);
    await setAvailability(t.db, w.tenant.id, service.id, aspects[2]!.id, TIMELINE[1], 'Start');
    const post = (token: string, body: Record<string, unknown>) => call(t.app, 'POST', '/api/availabilities', { token, body });
    // Each caller's session and tenant are read once before, so that the writes read nothing first.
    for (const token of [w.tokens.editor, w.tokens.admin, w.tokens.superAdmin]) {
      expect((await post(token, { aspectId: aspects[0]!.id, timeBucket: TIMELINE[3], value: 'Warm' })).statusCode).toBe(200);
    }
    const versionBefore = await versionOf(service.id);
    // The service stays locked while the writes start, so that they all wait behind the first.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holder!: Promise<void>;
    await new Promise<void>((locked) => {
      holder = t.db.transaction(async (tx) => {
        await lockService(tx, w.tenant.id, service.id);
        locked();
        await released;
      });
    });
    const writes = Promise.all([
      post(w.tokens.editor, { aspectId: aspects[0]!.id, timeBucket: TIMELINE[0], value: 'First' }),
      post(w.tokens.admin, { aspectId: aspects[1]!.id, timeBucket: TIMELINE[0], value: 'Second' }),
      post(w.tokens.superAdmin, { aspectId: aspects[2]!.id, timeBucket: TIMELINE[1], value: 'Third', expectedValue: 'Start' }),
      post(w.tokens.editor, { aspectId: aspects[2]!.id, timeBucket: TIMELINE[1], value: 'Fourth', expectedValue: 'Start' }),
      post(w.tokens.admin, { aspectId: w.archivedAspect.id, timeBucket: TIMELINE[0], value: 'Frozen' }),
      post(w.tokens.editor, { aspectId: w.foreignAspect.id, timeBucket: TIMELINE[0], value: 'Theirs' }),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    await holder;
    const results = await writes;
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 409, 409, 404]);
    expect(results[0]!.json()).toEqual({ availability: { aspect_id: aspects[0]!.id, time_bucket: TIMELINE[0], value: 'First' } });
    expect(results[3]!.json()).toMatchObject({ error: C.availabilityChanged, current: 'Third' });
    expect(results[4]!.json().error).toBe(M.serviceArchivedConflict);
    expect(results[5]!.json().error).toBe(M.notFound);
    expect(await versionOf(service.id)).toBe(versionBefore + 3);
    const full = (await call(t.app, 'GET', `/api/services/${service.id}/full`, { token: w.tokens.editor })).json();
    const cells = full.resolved_data.aspects.map((a: { availabilities: Record<string, string> }) => a.availabilities);
    expect(cells.map((c: Record<string, string>) => [c[TIMELINE[0]], c[TIMELINE[1]]])).toEqual([
      ['First', undefined],
      ['Second', undefined],
      [undefined, 'Third'],
    ]);
  });
});

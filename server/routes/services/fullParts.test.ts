import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app';
import { loadConfig } from '../../config';
import { buildTestApp, call, TEST_SECRET, type TestApp } from '../../test/app';
import { createAspect, createCategory, createService } from '../../test/factories';
import { createCatalogWorld, statementsOf, type CatalogWorld } from './catalog.fixtures';
import { openDatabase, type Database } from '../../db';
import { AVAILABILITY_VERSIONS } from '../../db/changes';
import { AvailabilityChanges } from './fullParts';

let t: TestApp;
let w: CatalogWorld;
/**
 * A second process on the same database: its writes are none of this process's own. On PostgreSQL
 * it has connections and a change stream listener of its own, as another server process would.
 */
let other: Awaited<ReturnType<typeof buildApp>>;
let otherDatabase: Database | undefined;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createCatalogWorld(t);
  const config = loadConfig({ API_RATE_LIMIT: '0', LOG_LEVEL: 'silent', CACHE_MAX_AGE_MS: '600000' });
  if (t.databaseUrl) otherDatabase = await openDatabase({ url: t.databaseUrl, poolSize: 3 });
  other = await buildApp({ config, database: otherDatabase ?? t.database, jwtSecret: TEST_SECRET, webRoot: null, logger: false });
  await other.ready();
});
afterAll(async () => {
  await other.close();
  await otherDatabase?.close();
  await t.close();
});

type Who = 'reader' | 'editor';

/** A service of six aspects in two categories, every other one private, a text in each quarter. */
async function seedService() {
  const tenantId = w.tenant.id;
  const service = await createService(t.db, tenantId);
  const ids: string[] = [];
  for (let c = 0; c < 2; c++) {
    const category = await createCategory(t.db, tenantId, service.id, `Category ${c}`, c);
    for (let i = 0; i < 3; i++) {
      const aspect = await createAspect(t.db, tenantId, service.id, category.id, { title: `Aspect ${c}.${i}`, isPublic: i !== 1, position: i });
      ids.push(aspect.id);
    }
  }
  for (const aspectId of ids) {
    for (const timeBucket of service.timeline.slice(0, 3)) {
      const res = await write(aspectId, timeBucket, `Planned ${timeBucket}`);
      expect(res.statusCode).toBe(200);
    }
  }
  return { service, ids };
}

const write = (aspectId: string, timeBucket: string, value: string, app = t.app) =>
  call(app, 'POST', '/api/availabilities', { token: w.tokens.editor, body: { aspectId, timeBucket, value } });
const full = (serviceId: string, who: Who, app = t.app) => call(app, 'GET', `/api/services/${serviceId}/full`, { token: w.tokens[who] });

/** The statements of one /full, and its body. */
async function timedFull(serviceId: string, who: Who) {
  let body = '';
  const statements = await statementsOf(t, async () => {
    const res = await full(serviceId, who);
    expect(res.statusCode).toBe(200);
    body = res.body;
  });
  return { body, wholeBuild: statements.some((s) => /from "categories"/.test(s)) };
}

describe('GET /api/services/:id/full after availability writes', () => {
  it('is made from the body before them, reading only the aspects written, the same as built whole', async () => {
    const { service, ids } = await seedService();
    const [a, b, c] = [ids[0]!, ids[1]!, ids[3]!]; // public, private, public
    const [q0, q1, q5] = [service.timeline[0]!, service.timeline[1]!, service.timeline[5]!];
    for (const who of ['editor', 'reader'] as const) expect((await timedFull(service.id, who)).wholeBuild).toBe(true);

    expect((await write(a, q0, 'Changed')).statusCode).toBe(200);
    expect((await write(b, q5, 'Private news')).statusCode).toBe(200);
    expect((await write(c, q1, '')).statusCode).toBe(200); // cleared
    // A quarter beyond the timeline is refused, and changes nothing.
    expect((await write(a, '2099-Q1', 'Beyond the timeline')).statusCode).toBe(400);

    for (const who of ['editor', 'reader'] as const) {
      const next = await timedFull(service.id, who);
      expect(next.wholeBuild).toBe(false);
      // Byte for byte what a process that made none of the writes builds whole.
      const whole = await full(service.id, who, other);
      expect(next.body).toBe(whole.body);
      const aspects = JSON.parse(next.body).resolved_data.aspects as { id: string; availabilities: Record<string, string> }[];
      const byId = new Map(aspects.map((x) => [x.id, x.availabilities]));
      expect(byId.get(a)).toEqual({ [q0]: 'Changed', [q1]: `Planned ${q1}`, [service.timeline[2]!]: `Planned ${service.timeline[2]}` });
      expect(byId.get(c)?.[q1]).toBeUndefined();
      expect(byId.has(b)).toBe(who === 'editor');
      if (who === 'editor') expect(byId.get(b)?.[q5]).toBe('Private news');
      expect(JSON.parse(next.body).service.version).toBe(JSON.parse(whole.body).service.version);
    }
  });

  it('ends the same as built whole when writes and reads of the editor and a reader interleave', async () => {
    const { service, ids } = await seedService();
    for (let round = 0; round < 3; round++) {
      const calls: Promise<unknown>[] = [];
      for (let i = 0; i < 24; i++) {
        const aspectId = ids[(i * 5 + round) % ids.length]!;
        calls.push(write(aspectId, service.timeline[i % 4]!, i % 7 === 0 ? '' : `Round ${round} write ${i}`));
        if (i % 3 === 0) calls.push(full(service.id, i % 2 ? 'editor' : 'reader'));
      }
      await Promise.all(calls);
      for (const who of ['editor', 'reader'] as const) {
        const next = await timedFull(service.id, who);
        // Made from a body held during the round (or that body itself, when it is the newest).
        expect(next.wholeBuild).toBe(false);
        expect(next.body).toBe((await full(service.id, who, other)).body);
      }
    }
  });

  it('is built whole when a write of another kind came between', async () => {
    const { service, ids } = await seedService();
    await timedFull(service.id, 'editor');
    const renamed = await call(t.app, 'PUT', `/api/aspects/${ids[0]}`, { token: w.tokens.editor, body: { title: 'Renamed aspect' } });
    expect(renamed.statusCode).toBe(200);
    expect((await write(ids[2]!, service.timeline[0]!, 'After the rename')).statusCode).toBe(200);
    const next = await timedFull(service.id, 'editor');
    expect(next.wholeBuild).toBe(true);
    const aspects = JSON.parse(next.body).resolved_data.aspects as { id: string; title: string; availabilities: Record<string, string> }[];
    expect(aspects.find((x) => x.id === ids[0])!.title).toBe('Renamed aspect');
    expect(aspects.find((x) => x.id === ids[2])!.availabilities[service.timeline[0]!]).toBe('After the rename');
  });

  it('is made from the held body after another process’s availability write once the change stream announced it', async () => {
    const { service, ids } = await seedService();
    await timedFull(service.id, 'editor');
    // The other process's write reaches this one as an announcement on the change stream.
    const heard = new Promise<void>((resolve) => {
      const stop = t.database.changes.follow((change) => {
        if (change.table === AVAILABILITY_VERSIONS && change.availabilityVersions?.some((v) => v.aspectId === ids[4])) {
          stop();
          resolve();
        }
      });
    });
    expect((await write(ids[4]!, service.timeline[1]!, 'Written elsewhere', other)).statusCode).toBe(200);
    await heard;
    expect((await write(ids[5]!, service.timeline[1]!, 'Written here')).statusCode).toBe(200);
    const next = await timedFull(service.id, 'editor');
    expect(next.wholeBuild).toBe(false);
    const aspects = JSON.parse(next.body).resolved_data.aspects as { id: string; availabilities: Record<string, string> }[];
    expect(aspects.find((x) => x.id === ids[4])!.availabilities[service.timeline[1]!]).toBe('Written elsewhere');
    expect(aspects.find((x) => x.id === ids[5])!.availabilities[service.timeline[1]!]).toBe('Written here');
    // Byte for byte what a process that holds nothing builds whole.
    const fresh = await buildApp({
      config: loadConfig({ API_RATE_LIMIT: '0', LOG_LEVEL: 'silent' }),
      database: t.database,
      jwtSecret: TEST_SECRET,
      webRoot: null,
      logger: false,
    });
    try {
      expect((await full(service.id, 'editor', fresh)).body).toBe(next.body);
    } finally {
      await fresh.close();
    }
  });

  it('is built whole after another process’s write of another kind, and shows it', async () => {
    const { service, ids } = await seedService();
    await timedFull(service.id, 'editor');
    const renamed = await call(other, 'PUT', `/api/aspects/${ids[4]}`, { token: w.tokens.editor, body: { title: 'Renamed elsewhere', description: '' } });
    expect(renamed.statusCode).toBe(200);
    expect((await write(ids[5]!, service.timeline[1]!, 'Written here')).statusCode).toBe(200);
    const next = await timedFull(service.id, 'editor');
    expect(next.wholeBuild).toBe(true);
    const aspects = JSON.parse(next.body).resolved_data.aspects as { id: string; title: string; availabilities: Record<string, string> }[];
    expect(aspects.find((x) => x.id === ids[4])!.title).toBe('Renamed elsewhere');
    expect(aspects.find((x) => x.id === ids[5])!.availabilities[service.timeline[1]!]).toBe('Written here');
  });
});

describe('AvailabilityChanges', () => {
  it('answers the aspects written between two versions only when this process made every version between them', () => {
    const changes = new AvailabilityChanges();
    changes.record('t1', 's1', 4, 'a');
    changes.record('t1', 's1', 5, 'b');
    changes.record('t1', 's1', 6, 'a');
    changes.record('t1', 's1', 8, 'c');
    expect(changes.between('t1', 's1', 3, 6)).toEqual(new Set(['a', 'b']));
    expect(changes.between('t1', 's1', 5, 6)).toEqual(new Set(['a']));
    // Version 7 came from elsewhere.
    expect(changes.between('t1', 's1', 6, 8)).toBeUndefined();
    expect(changes.between('t1', 's1', 2, 4)).toBeUndefined();
    expect(changes.between('t1', 's1', 6, 6)).toBeUndefined();
    expect(changes.between('t2', 's1', 3, 4)).toBeUndefined();
    expect(changes.between('t1', 's2', 3, 4)).toBeUndefined();
  });

  it('forgets the services written longest ago first', () => {
    const changes = new AvailabilityChanges(2);
    changes.record('t', 'a', 2, 'x');
    changes.record('t', 'b', 2, 'x');
    changes.record('t', 'a', 3, 'y');
    changes.record('t', 'c', 2, 'x');
    expect(changes.between('t', 'b', 1, 2)).toBeUndefined();
    expect(changes.between('t', 'a', 1, 3)).toEqual(new Set(['x', 'y']));
    expect(changes.between('t', 'c', 1, 2)).toEqual(new Set(['x']));
  });
});

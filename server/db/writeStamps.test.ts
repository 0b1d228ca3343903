import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll } from 'vitest';
import { markStreamDown, markStreamUp, raiseStamps, stampOf, StampedCache } from './writeStamps';
import { buildTestApp, call, type TestApp } from '../test/app';
import { createWorld, type World } from '../test/factories';
import { services, tenantMemberships, users } from './schema';

describe('StampedCache', () => {
  it('serves an entry until one of its tables is written, and reads again after', async () => {
    const cache = new StampedCache<number>(['t_one', 't_two'], 60_000);
    let loads = 0;
    const get = () => cache.get('k', async () => ++loads);
    expect(await get()).toBe(1);
    expect(await get()).toBe(1);
    raiseStamps(['t_other']);
    expect(await get()).toBe(1);
    raiseStamps(['t_two']);
    expect(await get()).toBe(2);
    raiseStamps(['users']); // a cascading table makes every entry stale
    expect(await get()).toBe(3);
  });

  it('does not keep what was read while a write ended', async () => {
    const cache = new StampedCache<string>(['t_race'], 60_000);
    const before = stampOf(['t_race']);
    const value = await cache.get('k', async () => {
      raiseStamps(['t_race']); // a transaction commits while the read is under way
      return 'old';
    });
    expect(value).toBe('old');
    expect(stampOf(['t_race'])).toBe(before + 1);
    expect(await cache.get('k', async () => 'new')).toBe('new');
  });

  it('serves nothing while a change stream is down, and reads everything again once it is back', async () => {
    const cache = new StampedCache<number>(['t_down'], 60_000);
    let loads = 0;
    const get = () => cache.get('k', async () => ++loads);
    expect(await get()).toBe(1);
    markStreamDown();
    try {
      expect(await get()).toBe(2);
      expect(await get()).toBe(3);
      expect(cache.peek('k')).toBeUndefined();
    } finally {
      markStreamUp();
    }
    expect(await get()).toBe(4);
    expect(await get()).toBe(4);
  });

  it('reads again after the maximum age', async () => {
    const cache = new StampedCache<number>(['t_age'], 0);
    let loads = 0;
    await cache.get('k', async () => ++loads);
    await cache.get('k', async () => ++loads);
    expect(loads).toBe(2);
  });
});

describe('request caches through the API', () => {
  let t: TestApp;
  let w: World;
  beforeAll(async () => {
    t = await buildTestApp();
    w = await createWorld(t.app, t.db);
  }, 60_000);
  afterAll(() => t?.close());

  it('see a change written straight to the database on the next request', async () => {
    const list = async () => (await call(t.app, 'GET', '/api/services', { token: w.tokens.reader })).json().services.map((s: { name: string }) => s.name);
    expect(await list()).toEqual([]);
    await t.db.insert(services).values({ tenantId: w.tenant.id, name: 'Written directly', slug: 'written-directly', timeline: [] });
    expect(await list()).toEqual(['Written directly']);
    const me = async () => call(t.app, 'GET', '/api/auth/me', { token: w.tokens.reader });
    expect((await me()).statusCode).toBe(200);
    await t.db.delete(users).where(eq(users.id, w.users.reader.id));
    expect((await me()).statusCode).toBe(401);
  });

  it('see a demotion written straight to the database on the next request', async () => {
    const create = (name: string) => call(t.app, 'POST', '/api/services', { token: w.tokens.admin, body: { name, slug: name.toLowerCase() } });
    expect((await create('Before')).statusCode).toBe(201);
    await t.db.update(tenantMemberships).set({ role: 'reader' }).where(eq(tenantMemberships.userId, w.users.admin.id));
    expect((await create('After')).statusCode).toBe(403);
  });
});

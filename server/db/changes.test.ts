import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { buildTestApp, settleChangeStream, type TestApp } from '../test/app';
import { createAspect, createCategory, createService, createTenant } from '../test/factories';
import type { Change } from './changes';
import { availabilities, categories } from './schema';
import { stampOf } from './writeStamps';

/**
 * What the database announces of the tables a roadmap is made of (migration 0014): the tenant and
 * services a statement wrote, read from the rows' own columns, for every process's caches and every
 * open page that follows them.
 */
describe('the change stream of categories, aspects and availabilities', () => {
  let t: TestApp;
  const heard: Change[] = [];
  beforeAll(async () => {
    t = await buildTestApp();
    t.database.changes.follow((change) => heard.push(change));
  });
  afterAll(() => t.close());

  /** The changes of `table` heard once `write` committed (the stream is asynchronous on PostgreSQL). */
  async function announced(table: string, write: () => Promise<unknown>): Promise<Change[]> {
    const from = heard.length;
    await write();
    await expect.poll(() => heard.slice(from).filter((c) => c.table === table).length, { timeout: 10_000 }).toBeGreaterThan(0);
    return heard.slice(from).filter((c) => c.table === table);
  }

  it('names the tenant and every service a statement wrote, once each, and no user', async () => {
    const tenant = await createTenant(t.db);
    const other = await createTenant(t.db);
    const [one, two] = [await createService(t.db, tenant.id), await createService(t.db, tenant.id)];
    const elsewhere = await createService(t.db, other.id);

    // One statement writes categories of two services of one tenant and one service of another.
    const inserted = await announced('categories', () =>
      t.db.insert(categories).values([
        { tenantId: tenant.id, serviceId: one.id, name: 'A' },
        { tenantId: tenant.id, serviceId: one.id, name: 'B' },
        { tenantId: tenant.id, serviceId: two.id, name: 'C' },
        { tenantId: other.id, serviceId: elsewhere.id, name: 'D' },
      ]),
    );
    expect(inserted).toHaveLength(1);
    expect([...inserted[0].tenants!].sort()).toEqual([tenant.id, other.id].sort());
    expect([...inserted[0].services!].sort()).toEqual([one.id, two.id, elsewhere.id].sort());
    expect(inserted[0].users).toEqual([]);
    expect(inserted[0].tokens).toEqual([]);

    // An update names the services of the rows before and after it.
    const updated = await announced('categories', () => t.db.update(categories).set({ name: 'Renamed' }).where(eq(categories.serviceId, two.id)));
    expect(updated[0].services).toEqual([two.id]);
    expect(updated[0].tenants).toEqual([tenant.id]);

    const deleted = await announced('categories', () => t.db.delete(categories).where(inArray(categories.serviceId, [one.id, elsewhere.id])));
    expect([...deleted[0].services!].sort()).toEqual([one.id, elsewhere.id].sort());
  });

  it('announces a paste of thousands of cells of one service as that one service', async () => {
    const tenant = await createTenant(t.db);
    const service = await createService(t.db, tenant.id);
    const category = await createCategory(t.db, tenant.id, service.id);
    const aspect = await createAspect(t.db, tenant.id, service.id, category.id);
    const cells = Array.from({ length: 2000 }, (_, i) => ({
      tenantId: tenant.id,
      serviceId: service.id,
      aspectId: aspect.id,
      timeBucket: `${2000 + Math.floor(i / 4)}-Q${(i % 4) + 1}`,
      value: `Cell ${i}`,
    }));
    const written = await announced('availabilities', () => t.db.insert(availabilities).values(cells));
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({ tenants: [tenant.id], services: [service.id], users: [], tokens: [] });

    const cleared = await announced('availabilities', () => t.db.delete(availabilities).where(eq(availabilities.aspectId, aspect.id)));
    expect(cleared[0]).toMatchObject({ tenants: [tenant.id], services: [service.id] });
  });

  it('tells "any service" when a statement wrote more than fifty', async () => {
    const tenant = await createTenant(t.db);
    const many: { id: string }[] = [];
    for (let i = 0; i < 51; i++) many.push(await createService(t.db, tenant.id));
    const written = await announced('categories', () =>
      t.db.insert(categories).values(many.map((s) => ({ tenantId: tenant.id, serviceId: s.id, name: 'Many' }))),
    );
    expect(written[0].services).toBeNull();
    expect(written[0].tenants).toEqual([tenant.id]);
  });
});

/**
 * On PostgreSQL a process hears its own writes twice: on the writing connection as it commits, and
 * on the shared channel with every other process's. The second copy goes to the followers only:
 * raising the caches' stamps again would throw away what they read since the write.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)("a process's own writes on PostgreSQL", () => {
  let t: TestApp;
  const heard: Change[] = [];
  beforeAll(async () => {
    t = await buildTestApp();
    t.database.changes.follow((change) => heard.push(change));
  });
  afterAll(() => t.close());

  it("raise the caches' stamps once, as they commit, and reach the followers; another process's write raises them", async () => {
    const tenant = await createTenant(t.db);
    const service = await createService(t.db, tenant.id);
    await settleChangeStream(t);
    const before = stampOf(['categories']);
    const from = heard.length;
    await t.db.insert(categories).values({ tenantId: tenant.id, serviceId: service.id, name: 'Own' });
    expect(stampOf(['categories'])).toBe(before + 1);
    await settleChangeStream(t);
    expect(heard.slice(from).filter((c) => c.table === 'categories')).toHaveLength(1);
    expect(stampOf(['categories'])).toBe(before + 1);

    const other = new pg.Client({ connectionString: t.databaseUrl });
    await other.connect();
    try {
      await other.query('insert into categories (tenant_id, service_id, name) values ($1, $2, $3)', [tenant.id, service.id, 'Theirs']);
    } finally {
      await other.end();
    }
    await settleChangeStream(t);
    expect(stampOf(['categories'])).toBe(before + 2);
  });
});

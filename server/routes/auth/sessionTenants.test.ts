import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_TENANTS_CAP } from '../../../common/limits';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createTenant, createUser, PASSWORD, signIn } from '../../test/factories';
import { tenants } from '../../db/schema';

/** A super admin of more tenants than a session lists: the answer stays small and holds what the browser needs. */
let t: TestApp;
const ids = (list: { id: string }[]) => list.map((x) => x.id);
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('the tenants a session lists', () => {
  it('lists the first tenants by name up to the cap, the own tenant and the tenant in use always among them, and counts them all', async () => {
    const count = SESSION_TENANTS_CAP + 20;
    const many = await t.db
      .insert(tenants)
      .values(Array.from({ length: count }, (_, i) => ({ name: `Bulk ${String(i).padStart(4, '0')}`, slug: `bulk-${i}` })))
      .returning();
    const archived = await createTenant(t.db, { name: 'Bulk 9999 archived', slug: 'bulk-archived', archived: true });
    // The own tenant sorts after every other: the cap alone would leave it out.
    const own = await createTenant(t.db, { name: 'Zulu', slug: 'zulu' });
    const superAdmin = await createUser(t.db, own.id, { role: 'admin', superAdmin: true });
    const total = count + 1;

    const login = await call(t.app, 'POST', '/api/auth/login', { body: { email: superAdmin.email, password: PASSWORD } });
    expect(login.statusCode).toBe(200);
    const session = login.json();
    expect(session.availableTenantsTotal).toBe(total);
    expect(session.availableTenants).toHaveLength(SESSION_TENANTS_CAP + 1);
    expect(ids(session.availableTenants.slice(0, SESSION_TENANTS_CAP))).toEqual(ids(many.slice(0, SESSION_TENANTS_CAP)));
    expect(session.availableTenants.at(-1).id).toBe(own.id);
    expect(session.tenant.id).toBe(own.id);
    expect(ids(session.availableTenants)).not.toContain(archived.id);

    // Working in a tenant past the cap: the session names it and lists it.
    const token = await signIn(t.app, superAdmin.email);
    const far = many.at(-1)!;
    const me = await call(t.app, 'GET', '/api/auth/me', { token, tenant: far.slug });
    expect(me.statusCode).toBe(200);
    expect(me.json().tenant.id).toBe(far.id);
    expect(me.json().availableTenantsTotal).toBe(total);
    expect(ids(me.json().availableTenants)).toEqual(expect.arrayContaining([far.id, own.id]));
    expect(me.json().availableTenants).toHaveLength(SESSION_TENANTS_CAP + 2);

    // The switcher finds the rest on the server.
    const found = await call(t.app, 'GET', '/api/admin/tenants', { token, query: { search: far.name, limit: '20' } });
    expect(found.statusCode).toBe(200);
    expect(ids(found.json().tenants)).toEqual([far.id]);
  });

  it('lists every tenant of a member of a few, with their count', async () => {
    const [a, b, c] = await Promise.all([
      createTenant(t.db, { name: 'Member A' }),
      createTenant(t.db, { name: 'Member B' }),
      createTenant(t.db, { name: 'Member C' }),
    ]);
    const member = await createUser(t.db, b.id, { role: 'editor', extraTenantIds: [a.id, c.id] });
    const me = await call(t.app, 'GET', '/api/auth/me', { token: await signIn(t.app, member.email) });
    expect(me.json().availableTenantsTotal).toBe(3);
    expect(ids(me.json().availableTenants)).toEqual([a.id, b.id, c.id]);
    expect(me.json().tenant.id).toBe(b.id);
  });
});

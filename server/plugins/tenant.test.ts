import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../common/messages';
import { buildTestApp, call, type TestApp } from '../test/app';
import { createService, createTenant, createUser, signIn } from '../test/factories';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('X-Tenant-Slug', () => {
  it('lets a member work in their tenant and answers only that tenant’s records', async () => {
    const mine = await createTenant(t.db);
    const theirs = await createTenant(t.db);
    await createService(t.db, mine.id, { name: 'Mine' });
    await createService(t.db, theirs.id, { name: 'Theirs' });
    const user = await createUser(t.db, mine.id);
    const token = await signIn(t.app, user.email);
    const res = await call(t.app, 'GET', '/api/services', { token, tenant: mine.slug });
    expect(res.statusCode).toBe(200);
    expect(res.json().services.map((s: { name: string }) => s.name)).toEqual(['Mine']);
  });

  it('answers 403 for a tenant the user does not belong to', async () => {
    const mine = await createTenant(t.db);
    const theirs = await createTenant(t.db);
    const user = await createUser(t.db, mine.id);
    const token = await signIn(t.app, user.email);
    const res = await call(t.app, 'GET', '/api/services', { token, tenant: theirs.slug });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe(M.noTenantAccess);
  });

  it('answers the same 403 for an unknown slug, so slugs do not leak', async () => {
    const mine = await createTenant(t.db);
    const user = await createUser(t.db, mine.id);
    const token = await signIn(t.app, user.email);
    const res = await call(t.app, 'GET', '/api/services', { token, tenant: 'no-such-tenant' });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe(M.noTenantAccess);
  });

  it('uses the primary tenant without a header', async () => {
    const mine = await createTenant(t.db);
    await createService(t.db, mine.id, { name: 'Primary service' });
    const user = await createUser(t.db, mine.id);
    const token = await signIn(t.app, user.email);
    const res = await call(t.app, 'GET', '/api/services', { token });
    expect(res.statusCode).toBe(200);
    expect(res.json().services.map((s: { name: string }) => s.name)).toEqual(['Primary service']);
  });

  it('lets a member of several tenants work in each of them', async () => {
    const a = await createTenant(t.db);
    const b = await createTenant(t.db);
    await createService(t.db, b.id, { name: 'In B' });
    const user = await createUser(t.db, a.id, { extraTenantIds: [b.id] });
    const token = await signIn(t.app, user.email);
    const res = await call(t.app, 'GET', '/api/services', { token, tenant: b.slug });
    expect(res.statusCode).toBe(200);
    expect(res.json().services.map((s: { name: string }) => s.name)).toEqual(['In B']);
    const me = await call(t.app, 'GET', '/api/auth/me', { token, tenant: b.slug });
    expect(me.json().tenant.id).toBe(b.id);
    expect(
      me
        .json()
        .availableTenants.map((x: { id: string }) => x.id)
        .sort(),
    ).toEqual([a.id, b.id].sort());
  });

  it('lets a super admin work in every active tenant', async () => {
    const home = await createTenant(t.db);
    const other = await createTenant(t.db);
    await createService(t.db, other.id, { name: 'Elsewhere' });
    const sa = await createUser(t.db, home.id, { role: 'admin', superAdmin: true });
    const token = await signIn(t.app, sa.email);
    const res = await call(t.app, 'GET', '/api/services', { token, tenant: other.slug });
    expect(res.statusCode).toBe(200);
    expect(res.json().services.map((s: { name: string }) => s.name)).toEqual(['Elsewhere']);
    const me = await call(t.app, 'GET', '/api/auth/me', { token });
    expect(me.json().availableTenants.map((x: { id: string }) => x.id)).toEqual(expect.arrayContaining([home.id, other.id]));
  });

  it('answers 403 "This tenant is archived" to members and super admins of an archived tenant', async () => {
    const active = await createTenant(t.db);
    const archived = await createTenant(t.db, { archived: true });
    const member = await createUser(t.db, active.id, { extraTenantIds: [archived.id] });
    const sa = await createUser(t.db, active.id, { role: 'admin', superAdmin: true });
    for (const u of [member, sa]) {
      const token = await signIn(t.app, u.email);
      const res = await call(t.app, 'GET', '/api/services', { token, tenant: archived.slug });
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe(M.tenantArchived);
    }
  });

  it('does not offer archived tenants in availableTenants', async () => {
    const active = await createTenant(t.db);
    const archived = await createTenant(t.db, { archived: true });
    const member = await createUser(t.db, active.id, { extraTenantIds: [archived.id] });
    const token = await signIn(t.app, member.email);
    const me = await call(t.app, 'GET', '/api/auth/me', { token });
    expect(me.json().availableTenants.map((x: { id: string }) => x.id)).toEqual([active.id]);
  });
});

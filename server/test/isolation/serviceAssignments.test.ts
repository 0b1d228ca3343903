import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../../common/roles';
import { buildTestApp, call, type TestApp } from '../app';
import { createService, createTenant, createUser, signIn } from '../factories';
import { fingerprinter, seedDataset } from './world';

/**
 * A service role assignment raises rights on that one service and never reaches past it
 * (CONTRACT section 4): the takeover through a service's "Create New User", and every tenant-level
 * call, refused to rights that come from an assignment, with nothing written.
 */
let t: TestApp;
let tenant: { id: string; slug: string };
let other: { id: string; slug: string };
let adminToken: string;
let realAdmin: { id: string; email: string };

beforeAll(async () => {
  t = await buildTestApp();
  tenant = await createTenant(t.db);
  other = await createTenant(t.db);
  realAdmin = await createUser(t.db, tenant.id, { role: 'admin', extraTenantIds: [other.id] });
  adminToken = await signIn(t.app, realAdmin.email);
}, 120_000);
afterAll(() => t.close());

const as = (token: string) => ({ token, tenant: tenant.slug });

/** A user of the tenant whose assignment on a fresh service a tenant admin raised through the API. */
async function raised(role: Role, assigned: Role) {
  const d = await seedDataset(t.db, tenant.id, tenant.slug);
  const user = await createUser(t.db, tenant.id, { role, extraTenantIds: [other.id] });
  const res = await call(t.app, 'POST', `/api/services/${d.service.id}/users`, { ...as(adminToken), body: { userId: user.id, role: assigned } });
  expect(res.statusCode).toBe(201);
  return { d, user, token: await signIn(t.app, user.email) };
}

const VARIANTS: [Role, Role][] = [
  ['reader', 'admin'],
  ['editor', 'admin'],
  ['reader', 'editor'],
];

describe.each(VARIANTS)('a %s raised to %s on one service', (role, assigned) => {
  it('is refused every tenant-level call, with nothing written', async () => {
    const { d, token } = await raised(role, assigned);
    const fingerprint = await fingerprinter(t.db);
    const before = await fingerprint();
    const email = `takeover-${role}-${assigned}-${Date.now()}@example.com`;
    const refused: [string, string, unknown?][] = [
      // The reproduction: a brand-new tenant admin made through the service's Create New User.
      ['POST', `/api/services/${d.service.id}/users/new`, { email, name: 'Takeover', role: 'admin', password: 'takeover-1' }],
      ['POST', '/api/users', { email, name: 'Takeover', role: 'admin', password: 'takeover-1' }],
      ['GET', '/api/users'],
      ['DELETE', `/api/users/${realAdmin.id}`],
      ['GET', '/api/audit'],
      ['POST', '/api/services', { name: 'Not theirs', slug: `not-theirs-${Date.now()}` }],
      ['PATCH', `/api/services/${d.service.id}/move-tenant`, { targetTenantId: other.id }],
      ['DELETE', `/api/services/${d.archivedService.id}/hard-delete`],
    ];
    for (const [method, url, body] of refused) {
      const res = await call(t.app, method as 'POST', url, { ...as(token), body });
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(403);
    }
    expect(await fingerprint()).toEqual(before);
    expect((await call(t.app, 'POST', '/api/auth/login', { body: { email, password: 'takeover-1' } })).statusCode).toBe(401);
  });

  it('is given no user of the tenant in settings-data, only what the service allows', async () => {
    const { d, token, user } = await raised(role, assigned);
    const res = await call(t.app, 'GET', `/api/services/${d.service.id}/settings-data`, as(token));
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.users).toEqual([]);
    expect(JSON.stringify(body)).not.toContain(realAdmin.email);
    expect(body.permissions).toMatchObject({ canManageSettings: true, canAdmin: assigned === 'admin', canManageUsers: false, canMove: false });
    if (assigned === 'admin') expect(body.assignments.map((a: { user_id: string }) => a.user_id)).toContain(user.id);
    else expect(body.assignments).toEqual([]);
  });

  it('holds the raised rights on that service and none on another', async () => {
    const { d, token } = await raised(role, assigned);
    const elsewhere = await seedDataset(t.db, tenant.id, tenant.slug);
    const edit = (id: string) => call(t.app, 'PUT', `/api/categories/${id}`, { ...as(token), body: { name: 'Raised edit' } });
    expect((await edit(d.category.id)).statusCode).toBe(200);
    expect((await edit(elsewhere.category.id)).statusCode).toBe(role === 'reader' ? 403 : 200);
    // The private aspect is the raised rights' to see on this service only.
    expect((await call(t.app, 'GET', `/api/aspects/${d.privateAspect.id}`, as(token))).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/api/aspects/${elsewhere.privateAspect.id}`, as(token))).statusCode).toBe(role === 'reader' ? 404 : 200);
    const archive = await call(t.app, 'PATCH', `/api/services/${elsewhere.service.id}/archive`, as(token));
    expect(archive.statusCode).toBe(403);
    if (assigned === 'admin') {
      expect((await call(t.app, 'PUT', `/api/services/${d.service.id}/users/${d.assignee.id}`, { ...as(token), body: { role: 'admin' } })).statusCode).toBe(
        200,
      );
      expect((await call(t.app, 'PATCH', `/api/services/${d.service.id}/archive`, as(token))).statusCode).toBe(200);
    }
  });

  it('is told the same rights by /full, the service list and the session', async () => {
    const { d, token } = await raised(role, assigned);
    const full = (await call(t.app, 'GET', `/api/services/${d.service.id}/full`, as(token))).json();
    expect(full.permissions).toMatchObject({ canEdit: true, canViewPrivate: true, canAdmin: assigned === 'admin', canManageUsers: false, canMove: false });
    expect(full.resolved_data.aspects.map((a: { id: string }) => a.id)).toContain(d.privateAspect.id);
    const list = (await call(t.app, 'GET', '/api/services', as(token))).json();
    expect(list.permissions.default).toMatchObject({ canEdit: role !== 'reader', canAdmin: false });
    expect(list.permissions.services[d.service.id]).toMatchObject({ canEdit: true, canAdmin: assigned === 'admin', canManageUsers: false });
    const me = (await call(t.app, 'GET', '/api/auth/me', as(token))).json();
    expect(me.permissions).toEqual({
      canCreateServices: false,
      canShowArchived: false,
      canManageUsers: false,
      canOpenTenantSettings: false,
      canManagePlatform: false,
    });
  });
});

describe('a tenant admin', () => {
  it('keeps every tenant-level right, Create New User included', async () => {
    const s = await createService(t.db, tenant.id);
    const res = await call(t.app, 'POST', `/api/services/${s.id}/users/new`, {
      ...as(adminToken),
      body: { email: `made-${Date.now()}@example.com`, name: 'Made', role: 'editor' },
    });
    expect(res.statusCode).toBe(201);
    const data = (await call(t.app, 'GET', `/api/services/${s.id}/settings-data`, as(adminToken))).json();
    expect(data.permissions).toMatchObject({ canAdmin: true, canManageUsers: true, canMove: true });
    expect(data.users.length).toBeGreaterThan(0);
    const me = (await call(t.app, 'GET', '/api/auth/me', as(adminToken))).json();
    expect(me.permissions).toMatchObject({ canCreateServices: true, canManageUsers: true, canOpenTenantSettings: true });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { M } from '../../../common/messages';
import { ADMIN_MESSAGES } from '../../../common/schemas/users';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { assignServiceRole, createService, createTenant, createUser, createWorld, type World } from '../../test/factories';
import { auditLog, serviceRoleAssignments, tenantInvitations, users } from '../../db/schema';

let t: TestApp;
let w: World;
const MISSING = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

const audit = (action: string, targetId: string) =>
  t.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action), eq(auditLog.targetId, targetId)));

describe('GET /api/admin/users and /api/admin/panel-data', () => {
  it('lists every user of every tenant with tenant_name and never a password hash', async () => {
    const res = await call(t.app, 'GET', '/api/admin/users', { token: w.tokens.superAdmin });
    expect(res.statusCode).toBe(200);
    const byId = new Map(res.json().users.map((u: { id: string }) => [u.id, u]));
    expect(byId.get(w.users.otherAdmin.id)).toMatchObject({
      tenant_name: w.other.name,
      tenant_ids: [w.other.id],
      user_group: 'manual',
      auth_provider: 'local',
    });
    expect(byId.get(w.users.superAdmin.id)).toMatchObject({ super_admin: true });
    expect(res.body).not.toContain('scrypt');
  });

  it('answers the panel data: tenants (archived when asked), users and no impersonation', async () => {
    const archived = await createTenant(t.db, { archived: true });
    const res = await call(t.app, 'GET', '/api/admin/panel-data', { token: w.tokens.superAdmin, query: { includeArchived: 'true' } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.tenants.map((x: { id: string }) => x.id)).toContain(archived.id);
    expect(body.users.length).toBeGreaterThanOrEqual(5);
    expect(body).toMatchObject({ is_impersonating: false, impersonation: null });
    const active = await call(t.app, 'GET', '/api/admin/panel-data', { token: w.tokens.superAdmin });
    expect(active.json().tenants.map((x: { id: string }) => x.id)).not.toContain(archived.id);
    const bad = await call(t.app, 'GET', '/api/admin/panel-data', { token: w.tokens.superAdmin, query: { includeArchived: 'maybe' } });
    expect(bad.statusCode).toBe(400);
  });

  it('answers 401 without a token and 403 to tenant admins, editors and readers', async () => {
    for (const url of ['/api/admin/users', '/api/admin/panel-data']) {
      expect((await call(t.app, 'GET', url)).statusCode).toBe(401);
      for (const token of [w.tokens.admin, w.tokens.editor, w.tokens.reader, w.tokens.otherAdmin]) {
        expect((await call(t.app, 'GET', url, { token })).statusCode).toBe(403);
      }
    }
  });
});

describe('POST /api/admin/users', () => {
  it('creates a local user with a password and a Microsoft user without one, with audit rows', async () => {
    const local = await call(t.app, 'POST', '/api/admin/users', {
      token: w.tokens.superAdmin,
      body: { email: 'New.Local@Example.com', name: 'New Local', role: 'editor', tenant_id: w.other.id, password: 'secret1' },
    });
    expect(local.statusCode).toBe(201);
    expect(local.json().user).toMatchObject({
      email: 'new.local@example.com',
      role: 'editor',
      tenant_id: w.other.id,
      tenant_ids: [w.other.id],
      tenant_name: w.other.name,
      auth_provider: 'local',
      user_group: 'manual',
    });
    const signIn = await call(t.app, 'POST', '/api/auth/login', { body: { email: 'new.local@example.com', password: 'secret1' } });
    expect(signIn.statusCode).toBe(200);

    const entra = await call(t.app, 'POST', '/api/admin/users', {
      token: w.tokens.superAdmin,
      body: { email: 'sso@example.com', name: 'Sso', role: 'reader', tenantId: w.tenant.id },
    });
    expect(entra.statusCode).toBe(201);
    expect(entra.json().user.auth_provider).toBe('entra');
    expect(await audit('user.create', entra.json().user.id)).toHaveLength(1);
  });

  it.each([
    [{ name: 'A', role: 'reader', tenantId: MISSING }, M.emailNameRoleTenantRequired, 'email'],
    [{ email: 'a@example.com', role: 'reader', tenantId: MISSING }, M.emailNameRoleTenantRequired, 'name'],
    [{ email: 'a@example.com', name: 'A', tenantId: MISSING }, M.emailNameRoleTenantRequired, 'role'],
    [{ email: 'a@example.com', name: 'A', role: 'reader' }, M.emailNameRoleTenantRequired, 'tenantId'],
    [{ email: 'not-an-email', name: 'A', role: 'reader', tenantId: MISSING }, M.invalidEmail, 'email'],
    [{ email: 'a@example.com', name: 'A', role: 'reader', tenantId: MISSING, password: '12345' }, M.passwordMin, 'password'],
  ])('answers 400 for %j', async (body, error, field) => {
    const res = await call(t.app, 'POST', '/api/admin/users', { token: w.tokens.superAdmin, body });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error, field });
  });

  it('answers 409 for a taken email, 409 for an archived tenant and 404 for an unknown tenant', async () => {
    const taken = await call(t.app, 'POST', '/api/admin/users', {
      token: w.tokens.superAdmin,
      body: { email: w.users.reader.email, name: 'A', role: 'reader', tenantId: w.tenant.id },
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error).toBe(M.emailTaken);
    const archived = await createTenant(t.db, { archived: true });
    const arch = await call(t.app, 'POST', '/api/admin/users', {
      token: w.tokens.superAdmin,
      body: { email: 'arch@example.com', name: 'A', role: 'reader', tenantId: archived.id },
    });
    expect(arch.statusCode).toBe(409);
    const unknown = await call(t.app, 'POST', '/api/admin/users', {
      token: w.tokens.superAdmin,
      body: { email: 'unk@example.com', name: 'A', role: 'reader', tenantId: MISSING },
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('answers 409 for an address of any tenant and invites nobody: the panel sees every tenant (decision 0110)', async () => {
    const stranger = await createUser(t.db, w.other.id);
    const res = await call(t.app, 'POST', '/api/admin/users', {
      token: w.tokens.superAdmin,
      body: { email: stranger.email, name: 'A', role: 'reader', tenantId: w.tenant.id },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe(M.emailTaken);
    expect(await t.db.select().from(tenantInvitations)).toEqual([]);
  });

  it('answers 401 and 403', async () => {
    const body = { email: 'x@example.com', name: 'X', role: 'reader', tenantId: w.tenant.id };
    expect((await call(t.app, 'POST', '/api/admin/users', { body })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/api/admin/users', { token: w.tokens.admin, body })).statusCode).toBe(403);
  });
});

describe('PATCH /api/admin/users/:id (role)', () => {
  it('changes the role with an audit row; answers 400, 403 and 404', async () => {
    const user = await createUser(t.db, w.other.id);
    const res = await call(t.app, 'PATCH', `/api/admin/users/${user.id}`, { token: w.tokens.superAdmin, body: { role: 'admin' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().user.role).toBe('admin');
    expect(await audit('user.role_change', user.id)).toHaveLength(1);
    expect((await call(t.app, 'PATCH', `/api/admin/users/${user.id}`, { token: w.tokens.superAdmin, body: { role: 'owner' } })).statusCode).toBe(400);
    expect((await call(t.app, 'PATCH', `/api/admin/users/${user.id}`, { token: w.tokens.otherAdmin, body: { role: 'reader' } })).statusCode).toBe(403);
    expect((await call(t.app, 'PATCH', `/api/admin/users/${MISSING}`, { token: w.tokens.superAdmin, body: { role: 'reader' } })).statusCode).toBe(404);
    expect((await call(t.app, 'PATCH', `/api/admin/users/${user.id}`, { body: { role: 'reader' } })).statusCode).toBe(401);
  });
});

describe('DELETE /api/admin/users/:id', () => {
  it('deletes a user of any tenant with an audit row', async () => {
    const user = await createUser(t.db, w.other.id);
    const res = await call(t.app, 'DELETE', `/api/admin/users/${user.id}`, { token: w.tokens.superAdmin });
    expect(res.statusCode).toBe(204);
    expect(await t.db.select().from(users).where(eq(users.id, user.id))).toHaveLength(0);
    expect(await audit('user.delete', user.id)).toHaveLength(1);
  });

  it('refuses deleting your own account and answers 401, 403, 404', async () => {
    const own = await call(t.app, 'DELETE', `/api/admin/users/${w.users.superAdmin.id}`, { token: w.tokens.superAdmin });
    expect(own.statusCode).toBe(400);
    expect(own.json().error).toBe(M.cannotDeleteOwnAccount);
    expect((await call(t.app, 'DELETE', `/api/admin/users/${w.users.reader.id}`)).statusCode).toBe(401);
    expect((await call(t.app, 'DELETE', `/api/admin/users/${w.users.reader.id}`, { token: w.tokens.admin })).statusCode).toBe(403);
    expect((await call(t.app, 'DELETE', `/api/admin/users/${MISSING}`, { token: w.tokens.superAdmin })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', '/api/admin/users/nope', { token: w.tokens.superAdmin })).statusCode).toBe(404);
  });
});

describe('PATCH /api/admin/users/:id/tenants', () => {
  it('replaces memberships, drops service roles of a tenant left, and audits the change', async () => {
    const third = await createTenant(t.db);
    const user = await createUser(t.db, w.tenant.id, { extraTenantIds: [third.id] });
    const service = await createService(t.db, third.id);
    await assignServiceRole(t.db, third.id, service.id, user.id, 'editor');
    const res = await call(t.app, 'PATCH', `/api/admin/users/${user.id}/tenants`, {
      token: w.tokens.superAdmin,
      body: { tenantIds: [w.tenant.id, w.other.id] },
    });
    expect(res.statusCode).toBe(200);
    expect([...res.json().user.tenant_ids].sort()).toEqual([w.tenant.id, w.other.id].sort());
    expect(await t.db.select().from(serviceRoleAssignments).where(eq(serviceRoleAssignments.userId, user.id))).toHaveLength(0);
    expect(await audit('user.memberships_change', user.id)).toHaveLength(1);
    // The new membership works at once.
    const login = await call(t.app, 'POST', '/api/auth/login', { body: { email: user.email, password: 'correct-horse-battery' } });
    expect((await call(t.app, 'GET', '/api/services', { token: login.json().token, tenant: w.other.slug })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/api/services', { token: login.json().token, tenant: third.slug })).statusCode).toBe(403);
  });

  it('requires at least one tenant and the primary tenant', async () => {
    const user = await createUser(t.db, w.tenant.id);
    const none = await call(t.app, 'PATCH', `/api/admin/users/${user.id}/tenants`, { token: w.tokens.superAdmin, body: { tenantIds: [] } });
    expect(none.statusCode).toBe(400);
    expect(none.json().error).toBe(M.membershipAtLeastOne);
    const missing = await call(t.app, 'PATCH', `/api/admin/users/${user.id}/tenants`, { token: w.tokens.superAdmin, body: {} });
    expect(missing.json().error).toBe(M.membershipAtLeastOne);
    const primary = await call(t.app, 'PATCH', `/api/admin/users/${user.id}/tenants`, { token: w.tokens.superAdmin, body: { tenantIds: [w.other.id] } });
    expect(primary.statusCode).toBe(400);
    expect(primary.json().error).toBe(M.membershipPrimary);
    const unknown = await call(t.app, 'PATCH', `/api/admin/users/${user.id}/tenants`, {
      token: w.tokens.superAdmin,
      body: { tenantIds: [w.tenant.id, MISSING] },
    });
    expect(unknown.json().error).toBe(ADMIN_MESSAGES.unknownTenant);
  });

  it('answers 401, 403 and 404', async () => {
    const body = { tenantIds: [w.tenant.id] };
    expect((await call(t.app, 'PATCH', `/api/admin/users/${w.users.reader.id}/tenants`, { body })).statusCode).toBe(401);
    expect((await call(t.app, 'PATCH', `/api/admin/users/${w.users.reader.id}/tenants`, { token: w.tokens.admin, body })).statusCode).toBe(403);
    expect((await call(t.app, 'PATCH', `/api/admin/users/${MISSING}/tenants`, { token: w.tokens.superAdmin, body })).statusCode).toBe(404);
  });
});

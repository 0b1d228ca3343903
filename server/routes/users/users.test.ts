import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { M } from '../../../common/messages';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createTenant, createUser, createWorld, type World } from '../../test/factories';
import { auditLog, tenantMemberships, users } from '../../db/schema';

let t: TestApp;
let w: World;

beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

const exists = async (id: string) => (await t.db.select().from(users).where(eq(users.id, id))).length === 1;

describe('GET /api/users', () => {
  it("lists the current tenant's users, members from other tenants included, and nobody else", async () => {
    const guest = await createUser(t.db, w.other.id, { extraTenantIds: [w.tenant.id] });
    const res = await call(t.app, 'GET', '/api/users', { token: w.tokens.admin, tenant: w.tenant.slug });
    expect(res.statusCode).toBe(200);
    const ids = res.json().users.map((u: { id: string }) => u.id);
    expect(ids).toEqual(expect.arrayContaining([w.users.reader.id, w.users.admin.id, guest.id]));
    expect(ids).not.toContain(w.users.otherAdmin.id);
    expect(res.json().users[0]).toHaveProperty('auth_provider');
  });

  it('answers 401, 403 for editors and readers, and 403 for another tenant', async () => {
    expect((await call(t.app, 'GET', '/api/users')).statusCode).toBe(401);
    expect((await call(t.app, 'GET', '/api/users', { token: w.tokens.editor })).statusCode).toBe(403);
    expect((await call(t.app, 'GET', '/api/users', { token: w.tokens.reader })).statusCode).toBe(403);
    expect((await call(t.app, 'GET', '/api/users', { token: w.tokens.admin, tenant: w.other.slug })).statusCode).toBe(403);
  });

  it('keeps a tenant admin out of the /admin routes', async () => {
    for (const url of ['/api/admin/users', '/api/admin/panel-data', '/api/tenants']) {
      expect((await call(t.app, 'GET', url, { token: w.tokens.admin })).statusCode).toBe(403);
    }
  });
});

describe('POST /api/users', () => {
  it('creates a local user in the current tenant, or a Microsoft user without a password', async () => {
    const res = await call(t.app, 'POST', '/api/users', { token: w.tokens.admin, body: { email: 'Team@Example.com', name: 'Team', role: 'editor', password: 'secret1' } });
    expect(res.statusCode).toBe(201);
    expect(res.json().user).toMatchObject({ email: 'team@example.com', tenant_id: w.tenant.id, tenant_ids: [w.tenant.id], role: 'editor', auth_provider: 'local' });
    const sso = await call(t.app, 'POST', '/api/users', { token: w.tokens.admin, body: { email: 'team-sso@example.com', name: 'Sso', role: 'reader', password: '' } });
    expect(sso.json().user.auth_provider).toBe('entra');
    const rows = await t.db.select().from(auditLog).where(and(eq(auditLog.action, 'user.create'), eq(auditLog.targetId, res.json().user.id)));
    expect(rows).toHaveLength(1);
  });

  it.each([
    [{ name: 'A', role: 'reader' }, M.emailNameRoleRequired, 'email'],
    [{ email: 'a@example.com', role: 'reader' }, M.emailNameRoleRequired, 'name'],
    [{ email: 'a@example.com', name: 'A' }, M.emailNameRoleRequired, 'role'],
    [{ email: 'a@example', name: 'A', role: 'reader' }, M.invalidEmail, 'email'],
    [{ email: 'a@example.com', name: 'A', role: 'reader', password: 'short' }, M.passwordMin, 'password'],
  ])('answers 400 for %j', async (body, error, field) => {
    const res = await call(t.app, 'POST', '/api/users', { token: w.tokens.admin, body });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error, field });
  });

  it('answers 409 for a taken email, 401 and 403', async () => {
    const taken = await call(t.app, 'POST', '/api/users', { token: w.tokens.admin, body: { email: w.users.otherAdmin.email, name: 'A', role: 'reader' } });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error).toBe(M.emailTaken);
    const body = { email: 'z@example.com', name: 'Z', role: 'reader' };
    expect((await call(t.app, 'POST', '/api/users', { body })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/api/users', { token: w.tokens.editor, body })).statusCode).toBe(403);
  });
});

describe('DELETE /api/users/:id', () => {
  it('deletes a user whose primary tenant this is', async () => {
    const user = await createUser(t.db, w.tenant.id);
    const res = await call(t.app, 'DELETE', `/api/users/${user.id}`, { token: w.tokens.admin });
    expect(res.statusCode).toBe(204);
    expect(await exists(user.id)).toBe(false);
  });

  it('only removes the membership of a user whose primary tenant is another one', async () => {
    const guest = await createUser(t.db, w.other.id, { extraTenantIds: [w.tenant.id] });
    const res = await call(t.app, 'DELETE', `/api/users/${guest.id}`, { token: w.tokens.admin });
    expect(res.statusCode).toBe(204);
    expect(await exists(guest.id)).toBe(true);
    const memberships = await t.db.select().from(tenantMemberships).where(eq(tenantMemberships.userId, guest.id));
    expect(memberships.map((m) => m.tenantId)).toEqual([w.other.id]);
  });

  it('refuses your own account and a super admin', async () => {
    const own = await call(t.app, 'DELETE', `/api/users/${w.users.admin.id}`, { token: w.tokens.admin });
    expect(own.statusCode).toBe(400);
    expect(own.json().error).toBe(M.cannotDeleteOwnAccount);
    const sa = await call(t.app, 'DELETE', `/api/users/${w.users.superAdmin.id}`, { token: w.tokens.admin });
    expect(sa.statusCode).toBe(403);
    expect(sa.json().error).toBe(M.cannotDeleteSuperAdmin);
    expect(await exists(w.users.superAdmin.id)).toBe(true);
  });

  it("answers 404 for another tenant's user and malformed ids, 401 and 403", async () => {
    const stranger = await createUser(t.db, w.other.id);
    expect((await call(t.app, 'DELETE', `/api/users/${stranger.id}`, { token: w.tokens.admin })).statusCode).toBe(404);
    expect(await exists(stranger.id)).toBe(true);
    expect((await call(t.app, 'DELETE', '/api/users/42', { token: w.tokens.admin })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/api/users/${stranger.id}`)).statusCode).toBe(401);
    expect((await call(t.app, 'DELETE', `/api/users/${w.users.reader.id}`, { token: w.tokens.editor })).statusCode).toBe(403);
    const third = await createTenant(t.db);
    const thirdUser = await createUser(t.db, third.id);
    expect((await call(t.app, 'DELETE', `/api/users/${thirdUser.id}`, { token: w.tokens.admin, tenant: third.slug })).statusCode).toBe(403);
  });
});

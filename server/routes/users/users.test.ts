import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { M } from '../../../common/messages';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createTenant, createUser, createWorld, type World } from '../../test/factories';
import { auditLog, tenantInvitations, tenantMemberships, users } from '../../db/schema';
import { ADMIN_MESSAGES } from '../../../common/schemas/users';

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
    const res = await call(t.app, 'POST', '/api/users', {
      token: w.tokens.admin,
      body: { email: 'Team@Example.com', name: 'Team', role: 'editor', password: 'secret1' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().user).toMatchObject({
      email: 'team@example.com',
      tenant_id: w.tenant.id,
      tenant_ids: [w.tenant.id],
      role: 'editor',
      auth_provider: 'local',
    });
    const sso = await call(t.app, 'POST', '/api/users', {
      token: w.tokens.admin,
      body: { email: 'team-sso@example.com', name: 'Sso', role: 'reader', password: '' },
    });
    expect(sso.json().user.auth_provider).toBe('entra');
    // Recorded as a pending invitation, as an account outside the tenant would be (decision 0110).
    const rows = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'user.invite'), eq(auditLog.targetId, res.json().user.id)));
    expect(rows).toMatchObject([{ details: { email: 'team@example.com', name: 'Team', role: 'editor' } }]);
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

  it('answers 409 for the address of a member of the tenant, a guest from another tenant included, 401 and 403', async () => {
    const guest = await createUser(t.db, w.other.id, { extraTenantIds: [w.tenant.id] });
    for (const email of [w.users.reader.email, guest.email, w.users.admin.email.toUpperCase()]) {
      const taken = await call(t.app, 'POST', '/api/users', { token: w.tokens.admin, body: { email, name: 'A', role: 'reader' } });
      expect(taken.statusCode).toBe(409);
      expect(taken.json().error).toBe(M.emailTaken);
    }
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

/** What an account is, as nobody but the account and a super admin may change it. */
async function accountState(id: string) {
  const [u] = await t.db.select().from(users).where(eq(users.id, id));
  const memberships = await t.db.select().from(tenantMemberships).where(eq(tenantMemberships.userId, id));
  return {
    name: u.name,
    roles: Object.fromEntries(memberships.map((m) => [m.tenantId, m.role])),
    passwordHash: u.passwordHash,
    tenantId: u.tenantId,
    superAdmin: u.superAdmin,
    authProvider: u.authProvider,
    memberships: memberships.map((m) => m.tenantId).sort(),
  };
}

/** Each field's kind, so that two answers can be compared for anything that tells them apart. */
const kinds = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v]));

let seq = 0;
const freshEmail = () => `fresh-${Date.now()}-${++seq}@example.com`;

describe('POST /api/users with the address of an account outside the tenant (decision 0110)', () => {
  it('answers 201 with the user entered, shaped as a new one, and leaves the account alone', async () => {
    const stranger = await createUser(t.db, w.other.id, { role: 'editor', name: 'Stranger Own Name' });
    const before = await accountState(stranger.id);
    const fresh = await call(t.app, 'POST', '/api/users', {
      token: w.tokens.admin,
      body: { email: freshEmail(), name: 'Fresh', role: 'reader', password: 'typed-secret' },
    });
    const invited = await call(t.app, 'POST', '/api/users', {
      token: w.tokens.admin,
      body: { email: stranger.email.toUpperCase(), name: 'Entered Name', role: 'admin', password: 'typed-secret' },
    });
    expect(fresh.statusCode).toBe(201);
    expect(invited.statusCode).toBe(201);
    expect(kinds(invited.json())).toEqual(kinds(fresh.json()));
    expect(kinds(invited.json().user)).toEqual(kinds(fresh.json().user));
    expect(invited.json().user).toEqual({
      id: expect.any(String),
      name: 'Entered Name',
      email: stranger.email,
      role: 'admin',
      super_admin: false,
      tenant_id: w.tenant.id,
      tenant_ids: [w.tenant.id],
      tenant_name: fresh.json().user.tenant_name,
      user_group: fresh.json().user.user_group,
      auth_provider: 'local',
      created_at: expect.any(String),
    });
    expect(invited.json().user.id).not.toBe(stranger.id);
    expect(await accountState(stranger.id)).toEqual(before);
    // The password the admin typed opens nothing.
    expect((await call(t.app, 'POST', '/api/auth/login', { body: { email: stranger.email, password: 'typed-secret' } })).statusCode).toBe(401);

    const audit = await t.db.select().from(auditLog).where(eq(auditLog.targetId, invited.json().user.id));
    expect(audit).toMatchObject([
      { action: 'user.invite', tenantId: w.tenant.id, actorId: w.users.admin.id, details: { email: stranger.email, role: 'admin' } },
    ]);
    expect(JSON.stringify(audit)).not.toContain(stranger.id);
    const created = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'user.create'), eq(auditLog.targetId, stranger.id)));
    expect(created).toEqual([]);
  });

  it("shows the sign-in kind entered, not the account's", async () => {
    const stranger = await createUser(t.db, w.other.id);
    const res = await call(t.app, 'POST', '/api/users', { token: w.tokens.admin, body: { email: stranger.email, name: 'Sso Entered', role: 'reader' } });
    expect(res.statusCode).toBe(201);
    expect(res.json().user).toMatchObject({ auth_provider: 'entra', role: 'reader', name: 'Sso Entered' });
  });

  it('answers 409 to a second create of the same address, as for a new address created twice', async () => {
    const stranger = await createUser(t.db, w.other.id);
    const email = freshEmail();
    for (const address of [stranger.email, email]) {
      const body = { email: address, name: 'Twice', role: 'reader' };
      expect((await call(t.app, 'POST', '/api/users', { token: w.tokens.admin, body })).statusCode).toBe(201);
      const again = await call(t.app, 'POST', '/api/users', { token: w.tokens.admin, body });
      expect(again.statusCode).toBe(409);
      expect(again.json().error).toBe(M.emailTaken);
    }
  });

  it('keeps the 409 for a super admin, who sees every tenant, and invites nobody', async () => {
    const stranger = await createUser(t.db, w.other.id);
    const res = await call(t.app, 'POST', '/api/users', {
      token: w.tokens.superAdmin,
      tenant: w.tenant.slug,
      body: { email: stranger.email, name: 'A', role: 'reader' },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe(M.emailTaken);
    expect(await t.db.select().from(tenantInvitations).where(eq(tenantInvitations.userId, stranger.id))).toEqual([]);
  });
});

describe('pending invitations in GET and DELETE /api/users', () => {
  it('lists the invitation among the users as entered, marked invitation, with the same fields as every row', async () => {
    const stranger = await createUser(t.db, w.other.id, { name: 'Own Name', role: 'admin' });
    const created = await call(t.app, 'POST', '/api/users', { token: w.tokens.admin, body: { email: stranger.email, name: 'Listed Guest', role: 'editor' } });
    const list = (await call(t.app, 'GET', '/api/users', { token: w.tokens.admin })).json().users as Record<string, unknown>[];
    const row = list.find((u) => u.id === created.json().user.id);
    expect(row).toEqual({ ...created.json().user, invitation: true });
    expect(list.map((u) => u.id)).not.toContain(stranger.id);
    const member = list.find((u) => u.id === w.users.reader.id)!;
    expect(member.invitation).toBe(false);
    for (const u of list) expect(kinds(u)).toEqual(kinds(member));
    // Another tenant's list does not show it.
    const others = (await call(t.app, 'GET', '/api/users', { token: w.tokens.otherAdmin })).json().users as { id: string }[];
    expect(others.map((u) => u.id)).not.toContain(created.json().user.id);
  });

  it('withdraws the invitation when its row is deleted, and leaves the account alone', async () => {
    const stranger = await createUser(t.db, w.other.id);
    const before = await accountState(stranger.id);
    const id = (await call(t.app, 'POST', '/api/users', { token: w.tokens.admin, body: { email: stranger.email, name: 'Withdrawn', role: 'reader' } })).json()
      .user.id;
    const res = await call(t.app, 'DELETE', `/api/users/${id}`, { token: w.tokens.admin });
    expect(res.statusCode).toBe(204);
    expect(await t.db.select().from(tenantInvitations).where(eq(tenantInvitations.id, id))).toEqual([]);
    const list = (await call(t.app, 'GET', '/api/users', { token: w.tokens.admin })).json().users as { id: string }[];
    expect(list.map((u) => u.id)).not.toContain(id);
    expect(await accountState(stranger.id)).toEqual(before);
    expect(
      await t.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, 'invitation.withdraw'), eq(auditLog.targetId, id))),
    ).toHaveLength(1);
    expect((await call(t.app, 'DELETE', `/api/users/${id}`, { token: w.tokens.admin })).statusCode).toBe(404);
  });

  it("answers 404 to another tenant's admin for the invitation's id", async () => {
    const stranger = await createUser(t.db, w.other.id);
    const id = (await call(t.app, 'POST', '/api/users', { token: w.tokens.admin, body: { email: stranger.email, name: 'Kept', role: 'reader' } })).json().user
      .id;
    const res = await call(t.app, 'DELETE', `/api/users/${id}`, { token: w.tokens.otherAdmin, tenant: w.other.slug });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe(ADMIN_MESSAGES.userNotFound);
    expect(await t.db.select().from(tenantInvitations).where(eq(tenantInvitations.id, id))).toHaveLength(1);
  });
});

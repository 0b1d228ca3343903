import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../common/messages';
import { SETTINGS_MESSAGES } from '../../../common/schemas/settings';
import { auditLog, serviceRoleAssignments, tenantMemberships, users } from '../../db/schema';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createService, createUser, createWorld, signIn, type World } from '../../test/factories';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

const as = (token: string, tenant = w.tenant.slug) => ({ token, tenant });
const audits = (action: string, targetId: string) =>
  t.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action), eq(auditLog.targetId, targetId)));

describe('GET /api/services/:id/settings-data', () => {
  it('gives an admin the service, roles, templates, tenant users and assignments', async () => {
    const s = await createService(t.db, w.tenant.id);
    await call(t.app, 'POST', '/api/actor-roles', { ...as(w.tokens.admin), body: { serviceId: s.id, roleName: 'Student' } });
    await call(t.app, 'POST', '/api/quick-templates', { ...as(w.tokens.admin), body: { serviceId: s.id, templateText: 'Planned' } });
    await call(t.app, 'POST', `/api/services/${s.id}/users`, { ...as(w.tokens.admin), body: { userId: w.users.reader.id, role: 'editor' } });
    const res = await call(t.app, 'GET', `/api/services/${s.id}/settings-data`, as(w.tokens.admin));
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.service).toMatchObject({ id: s.id, slug: s.slug });
    expect(body.roles.map((r: { role_name: string }) => r.role_name)).toEqual(['Student']);
    expect(body.templates.map((r: { template_text: string }) => r.template_text)).toEqual(['Planned']);
    expect(body.users.map((u: { id: string }) => u.id)).toEqual(expect.arrayContaining([w.users.reader.id, w.users.editor.id]));
    expect(body.users.map((u: { id: string }) => u.id)).not.toContain(w.users.otherAdmin.id);
    expect(body.users[0]).not.toHaveProperty('passwordHash');
    expect(body.assignments).toEqual([expect.objectContaining({ user_id: w.users.reader.id, user_email: w.users.reader.email, role: 'editor' })]);
    expect(body.permissions).toMatchObject({ canManageSettings: true, canAdmin: true, canManageUsers: true, canMove: true, canHardDelete: false });
  });

  it('gives an editor no users or assignments', async () => {
    const s = await createService(t.db, w.tenant.id);
    const res = await call(t.app, 'GET', `/api/services/${s.id}/settings-data`, as(w.tokens.editor));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ users: [], assignments: [], permissions: { canManageSettings: true, canAdmin: false, canManageUsers: false } });
  });

  it('answers 401, 403 to a reader and 404 to another tenant', async () => {
    const s = await createService(t.db, w.tenant.id);
    expect((await call(t.app, 'GET', `/api/services/${s.id}/settings-data`)).statusCode).toBe(401);
    expect((await call(t.app, 'GET', `/api/services/${s.id}/settings-data`, as(w.tokens.reader))).statusCode).toBe(403);
    expect((await call(t.app, 'GET', `/api/services/${s.id}/settings-data`, as(w.tokens.otherAdmin, w.other.slug))).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/api/services/123/settings-data', as(w.tokens.admin))).statusCode).toBe(404);
  });
});

describe('service user assignments', () => {
  it('lets an admin assign, change and remove a tenant user, with audit rows', async () => {
    const s = await createService(t.db, w.tenant.id);
    const u = await createUser(t.db, w.tenant.id);
    const add = await call(t.app, 'POST', `/api/services/${s.id}/users`, { ...as(w.tokens.admin), body: { userId: u.id, role: 'editor' } });
    expect(add.statusCode).toBe(201);
    expect(add.json().assignment).toMatchObject({ user_id: u.id, user_email: u.email, user_name: u.name, role: 'editor' });
    const again = await call(t.app, 'POST', `/api/services/${s.id}/users`, { ...as(w.tokens.admin), body: { userId: u.id, role: 'reader' } });
    expect(again.statusCode).toBe(409);
    const put = await call(t.app, 'PUT', `/api/services/${s.id}/users/${u.id}`, { ...as(w.tokens.admin), body: { role: 'admin' } });
    expect(put.statusCode).toBe(200);
    expect(put.json().assignment.role).toBe('admin');
    const list = await call(t.app, 'GET', `/api/services/${s.id}/users`, as(w.tokens.admin));
    expect(list.json().assignments).toEqual([expect.objectContaining({ user_id: u.id, role: 'admin' })]);
    const del = await call(t.app, 'DELETE', `/api/services/${s.id}/users/${u.id}`, as(w.tokens.admin));
    expect(del.statusCode).toBe(204);
    expect((await call(t.app, 'GET', `/api/services/${s.id}/users`, as(w.tokens.admin))).json().assignments).toEqual([]);
    expect(await audits('service_role.assign', s.id)).toHaveLength(1);
    expect(await audits('service_role.change', s.id)).toHaveLength(1);
    expect(await audits('service_role.remove', s.id)).toHaveLength(1);
  });

  it('raises the rights of the assigned user on that service only', async () => {
    const s = await createService(t.db, w.tenant.id);
    const other = await createService(t.db, w.tenant.id);
    const u = await createUser(t.db, w.tenant.id, { role: 'reader' });
    const token = await signIn(t.app, u.email);
    await call(t.app, 'POST', `/api/services/${s.id}/users`, { ...as(w.tokens.admin), body: { userId: u.id, role: 'editor' } });
    expect((await call(t.app, 'GET', `/api/services/${s.id}/settings-data`, as(token))).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/api/services/${other.id}/settings-data`, as(token))).statusCode).toBe(403);
  });

  it('answers 400 "Please select a user" and "Please select a role"', async () => {
    const s = await createService(t.db, w.tenant.id);
    const noUser = await call(t.app, 'POST', `/api/services/${s.id}/users`, { ...as(w.tokens.admin), body: { role: 'editor' } });
    expect(noUser.json()).toMatchObject({ error: M.selectUser, field: 'userId' });
    const noRole = await call(t.app, 'POST', `/api/services/${s.id}/users`, { ...as(w.tokens.admin), body: { userId: w.users.reader.id } });
    expect(noRole.json()).toMatchObject({ error: M.selectRole, field: 'role' });
    const badRole = await call(t.app, 'POST', `/api/services/${s.id}/users`, { ...as(w.tokens.admin), body: { userId: w.users.reader.id, role: 'owner' } });
    expect(badRole.statusCode).toBe(400);
    const put = await call(t.app, 'PUT', `/api/services/${s.id}/users/${w.users.reader.id}`, { ...as(w.tokens.admin), body: {} });
    expect(put.json().error).toBe(M.selectRole);
  });

  it('answers 404 for a user who is not a member of the tenant', async () => {
    const s = await createService(t.db, w.tenant.id);
    const res = await call(t.app, 'POST', `/api/services/${s.id}/users`, { ...as(w.tokens.admin), body: { userId: w.users.otherAdmin.id, role: 'reader' } });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe(SETTINGS_MESSAGES.userNotMember);
    const missing = await call(t.app, 'PUT', `/api/services/${s.id}/users/${w.users.reader.id}`, { ...as(w.tokens.admin), body: { role: 'admin' } });
    expect(missing.statusCode).toBe(404);
  });

  it('answers 401, 403 to an editor and 404 to another tenant', async () => {
    const s = await createService(t.db, w.tenant.id);
    const body = { userId: w.users.reader.id, role: 'editor' };
    expect((await call(t.app, 'POST', `/api/services/${s.id}/users`, { body })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', `/api/services/${s.id}/users`, as(w.tokens.editor))).statusCode).toBe(403);
    expect((await call(t.app, 'POST', `/api/services/${s.id}/users`, { ...as(w.tokens.editor), body })).statusCode).toBe(403);
    expect((await call(t.app, 'DELETE', `/api/services/${s.id}/users/${w.users.reader.id}`, as(w.tokens.editor))).statusCode).toBe(403);
    expect((await call(t.app, 'POST', `/api/services/${s.id}/users`, { ...as(w.tokens.otherAdmin, w.other.slug), body })).statusCode).toBe(404);
  });
});

describe('POST /api/services/:id/users/new', () => {
  it('creates a reader of the current tenant and assigns them by default', async () => {
    const s = await createService(t.db, w.tenant.id);
    const email = `new-${Date.now()}@example.com`;
    const res = await call(t.app, 'POST', `/api/services/${s.id}/users/new`, {
      ...as(w.tokens.admin),
      body: { email: email.toUpperCase(), name: 'New Person', password: 'secret1', role: 'editor' },
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.user).toMatchObject({ email, name: 'New Person', role: 'editor' });
    expect(body.assignment).toMatchObject({ user_email: email, role: 'editor' });
    const [row] = await t.db.select().from(users).where(eq(users.email, email));
    expect(row!.tenantId).toBe(w.tenant.id);
    expect(row!.passwordHash).toMatch(/^scrypt\$/);
    expect(await t.db.select().from(tenantMemberships).where(eq(tenantMemberships.userId, row!.id))).toHaveLength(1);
    expect(await audits('user.invite', body.user.id)).toMatchObject([{ details: { email, name: 'New Person', role: 'editor', serviceId: s.id } }]);
    expect(await t.db.select().from(serviceRoleAssignments).where(eq(serviceRoleAssignments.userId, row!.id))).toMatchObject([
      { serviceId: s.id, role: 'editor' },
    ]);
    expect(await signIn(t.app, email, 'secret1')).toEqual(expect.any(String));
  });

  it('creates without assigning when asked, and without a password', async () => {
    const s = await createService(t.db, w.tenant.id);
    const email = `solo-${Date.now()}@example.com`;
    const res = await call(t.app, 'POST', `/api/services/${s.id}/users/new`, { ...as(w.tokens.admin), body: { email, name: 'Solo', assign: false } });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ user: { role: 'reader' }, assignment: null });
  });

  it('answers 400 for missing fields and a short password, 409 for a taken email', async () => {
    const s = await createService(t.db, w.tenant.id);
    const url = `/api/services/${s.id}/users/new`;
    for (const body of [{ name: 'x' }, { email: 'a@example.com' }, { email: '', name: '' }]) {
      const res = await call(t.app, 'POST', url, { ...as(w.tokens.admin), body });
      expect(res.json().error).toBe(M.emailAndNameRequired);
    }
    const short = await call(t.app, 'POST', url, { ...as(w.tokens.admin), body: { email: 'b@example.com', name: 'B', password: '123' } });
    expect(short.json()).toMatchObject({ error: M.passwordMin, field: 'password' });
    const taken = await call(t.app, 'POST', url, { ...as(w.tokens.admin), body: { email: w.users.reader.email, name: 'B' } });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error).toBe(M.emailTaken);
  });

  it('answers 401, 403 to an editor and 404 to another tenant', async () => {
    const s = await createService(t.db, w.tenant.id);
    const url = `/api/services/${s.id}/users/new`;
    const body = { email: 'c@example.com', name: 'C' };
    expect((await call(t.app, 'POST', url, { body })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', url, { ...as(w.tokens.editor), body })).statusCode).toBe(403);
    expect((await call(t.app, 'POST', url, { ...as(w.tokens.otherAdmin, w.other.slug), body })).statusCode).toBe(404);
  });
});

describe('POST /api/services/:id/users/new with the address of an account outside the tenant (decision 0110)', () => {
  const kinds = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v]));
  const assignmentsOf = async (serviceId: string) =>
    (await call(t.app, 'GET', `/api/services/${serviceId}/users`, as(w.tokens.admin))).json().assignments as {
      user_id: string;
      role: string;
      user_email: string;
    }[];

  it('answers as for a new address and assigns at once, the entered name shown; the assignment takes effect on acceptance', async () => {
    const s = await createService(t.db, w.tenant.id);
    const stranger = await createUser(t.db, w.other.id, { role: 'reader', name: 'Own Name' });
    const [before] = await t.db.select().from(users).where(eq(users.id, stranger.id));
    const fresh = await call(t.app, 'POST', `/api/services/${s.id}/users/new`, {
      ...as(w.tokens.admin),
      body: { email: `fresh-${Date.now()}@example.com`, name: 'Fresh', role: 'editor' },
    });
    const invited = await call(t.app, 'POST', `/api/services/${s.id}/users/new`, {
      ...as(w.tokens.admin),
      body: { email: stranger.email, name: 'Entered', role: 'editor', password: 'typed-1' },
    });
    expect(fresh.statusCode).toBe(201);
    expect(invited.statusCode).toBe(201);
    const body = invited.json();
    expect(kinds(body)).toEqual(kinds(fresh.json()));
    expect(kinds(body.user)).toEqual(kinds(fresh.json().user));
    expect(kinds(body.assignment)).toEqual(kinds(fresh.json().assignment));
    expect(body.user).toEqual({ id: expect.any(String), name: 'Entered', email: stranger.email, role: 'editor' });
    expect(body.assignment).toMatchObject({ service_id: s.id, user_id: body.user.id, user_email: stranger.email, user_name: 'Entered', role: 'editor' });
    expect(body.assignment.id).not.toBe(body.user.id);

    // Assigned at once, shown as entered and known by the invitation's id, never the account's.
    const listed = await assignmentsOf(s.id);
    expect(listed.find((a) => a.user_email === stranger.email)).toEqual(body.assignment);
    expect(listed.map((a) => a.user_id)).not.toContain(stranger.id);
    expect(await t.db.select().from(serviceRoleAssignments).where(eq(serviceRoleAssignments.userId, stranger.id))).toMatchObject([
      { serviceId: s.id, role: 'editor' },
    ]);
    const picker = (await call(t.app, 'GET', `/api/services/${s.id}/settings-data`, as(w.tokens.admin))).json().users as { id: string }[];
    expect(picker.map((u) => u.id)).not.toContain(stranger.id);
    expect(picker).toContainEqual(body.user);
    const [unchanged] = await t.db.select().from(users).where(eq(users.id, stranger.id));
    expect(unchanged).toEqual(before);
    expect(await audits('user.invite', body.user.id)).toMatchObject([{ details: { serviceId: s.id, role: 'editor', name: 'Entered' } }]);

    const token = await signIn(t.app, stranger.email);
    // The assignment grants nothing before the invitation is accepted.
    expect((await call(t.app, 'GET', `/api/services/${s.id}`, { token, tenant: w.tenant.slug })).statusCode).toBe(403);
    const [invitation] = (await call(t.app, 'GET', '/api/auth/me', { token })).json().invitations;
    expect((await call(t.app, 'POST', `/api/invitations/${invitation.id}/accept`, { token })).statusCode).toBe(200);
    expect((await assignmentsOf(s.id)).find((a) => a.user_id === stranger.id)).toMatchObject({ role: 'editor', user_name: 'Own Name' });
    // The invitation's role (editor) is their role in this tenant; their own tenant's role stays.
    const roles = await t.db.select().from(tenantMemberships).where(eq(tenantMemberships.userId, stranger.id));
    expect(Object.fromEntries(roles.map((m) => [m.tenantId, m.role]))).toEqual({ [w.other.id]: 'reader', [w.tenant.id]: 'editor' });
  });

  it('with assign off answers assignment null and assigns nothing on acceptance either', async () => {
    const s = await createService(t.db, w.tenant.id);
    const stranger = await createUser(t.db, w.other.id);
    const res = await call(t.app, 'POST', `/api/services/${s.id}/users/new`, {
      ...as(w.tokens.admin),
      body: { email: stranger.email, name: 'Solo', assign: false },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ user: { role: 'reader', name: 'Solo' }, assignment: null });
    const token = await signIn(t.app, stranger.email);
    const [invitation] = (await call(t.app, 'GET', '/api/auth/me', { token })).json().invitations;
    expect((await call(t.app, 'POST', `/api/invitations/${invitation.id}/accept`, { token })).statusCode).toBe(200);
    expect(await t.db.select().from(serviceRoleAssignments).where(eq(serviceRoleAssignments.userId, stranger.id))).toEqual([]);
    expect(
      await t.db
        .select()
        .from(tenantMemberships)
        .where(and(eq(tenantMemberships.userId, stranger.id), eq(tenantMemberships.tenantId, w.tenant.id))),
    ).toHaveLength(1);
  });

  it('keeps the 409 for a super admin', async () => {
    const s = await createService(t.db, w.tenant.id);
    const stranger = await createUser(t.db, w.other.id);
    const res = await call(t.app, 'POST', `/api/services/${s.id}/users/new`, { ...as(w.tokens.superAdmin), body: { email: stranger.email, name: 'X' } });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe(M.emailTaken);
  });
});

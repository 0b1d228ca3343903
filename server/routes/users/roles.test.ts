import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { M } from '../../../common/messages';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createService, createTenant, createUser, createWorld, signIn, type World } from '../../test/factories';
import { auditLog, tenantInvitations, tenantMemberships } from '../../db/schema';

/**
 * Roles are held per tenant membership (CONTRACT section 4, docs/decisions/0144-roles-per-membership.md):
 * an invitation grants exactly the role the inviter chose, whatever the person holds elsewhere.
 */
let t: TestApp;
let w: World;

beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

const rolesOf = async (userId: string) =>
  Object.fromEntries((await t.db.select().from(tenantMemberships).where(eq(tenantMemberships.userId, userId))).map((m) => [m.tenantId, m.role]));

/** An admin of another tenant of their own, signed in. */
async function adminElsewhere() {
  const home = await createTenant(t.db);
  const user = await createUser(t.db, home.id, { role: 'admin' });
  return { home, user, token: await signIn(t.app, user.email) };
}

async function acceptAll(token: string) {
  const me = (await call(t.app, 'GET', '/api/auth/me', { token })).json();
  for (const invitation of me.invitations) expect((await call(t.app, 'POST', `/api/invitations/${invitation.id}/accept`, { token })).statusCode).toBe(200);
}

describe('an invitation of an account that is an admin elsewhere', () => {
  const asInvited = (token: string) => ({ token, tenant: w.tenant.slug });

  async function checkJoinedAsReader(x: Awaited<ReturnType<typeof adminElsewhere>>) {
    await acceptAll(x.token);
    expect(await rolesOf(x.user.id)).toEqual({ [x.home.id]: 'admin', [w.tenant.id]: 'reader' });
    // A reader here: the tenant's people and its admins are out of reach.
    expect((await call(t.app, 'GET', '/api/users', asInvited(x.token))).statusCode).toBe(403);
    expect((await call(t.app, 'DELETE', `/api/users/${w.users.admin.id}`, asInvited(x.token))).statusCode).toBe(403);
    expect(
      (await call(t.app, 'POST', '/api/users', { ...asInvited(x.token), body: { email: 'mine@example.com', name: 'Mine', role: 'admin' } })).statusCode,
    ).toBe(403);
    const me = (await call(t.app, 'GET', '/api/auth/me', asInvited(x.token))).json();
    expect(me.user.role).toBe('reader');
    expect(me.permissions).toMatchObject({ canManageUsers: false, canCreateServices: false });
    // Still an admin of their own tenant.
    expect((await call(t.app, 'GET', '/api/users', { token: x.token, tenant: x.home.slug })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/api/auth/me', { token: x.token, tenant: x.home.slug })).json().user.role).toBe('admin');
    expect(await exists(w.users.admin.id)).toBe(true);
  }

  const exists = async (id: string) => (await rolesOf(id))[w.tenant.id] !== undefined;

  it('joins with the role chosen in Tenant Settings (reader), not their own (admin)', async () => {
    const x = await adminElsewhere();
    const added = await call(t.app, 'POST', '/api/users', { token: w.tokens.admin, body: { email: x.user.email, name: 'Invited', role: 'reader' } });
    expect(added.statusCode).toBe(201);
    expect(added.json().user.role).toBe('reader');
    await checkJoinedAsReader(x);
  });

  it("joins with the role chosen in a service's Create New User (reader)", async () => {
    const s = await createService(t.db, w.tenant.id);
    const x = await adminElsewhere();
    const added = await call(t.app, 'POST', `/api/services/${s.id}/users/new`, {
      token: w.tokens.admin,
      tenant: w.tenant.slug,
      body: { email: x.user.email, name: 'Invited', role: 'reader', assign: false },
    });
    expect(added.statusCode, added.body).toBe(201);
    await checkJoinedAsReader(x);
  });
});

describe('PATCH /api/users/:id', () => {
  const patch = (id: string, body: unknown, token = w.tokens.admin, tenant: string | null = w.tenant.slug) =>
    call(t.app, 'PATCH', `/api/users/${id}`, { token, tenant, body });

  it("changes a member's role in this tenant only, audited, and the member's rights follow at once", async () => {
    const member = await createUser(t.db, w.tenant.id, { role: 'reader', extraTenantIds: [w.other.id] });
    const token = await signIn(t.app, member.email);
    const s = await createService(t.db, w.tenant.id);
    const rename = () => call(t.app, 'PUT', `/api/services/${s.id}`, { token, tenant: w.tenant.slug, body: { name: 'Renamed' } });
    expect((await rename()).statusCode).toBe(403);

    const res = await patch(member.id, { role: 'editor' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().user).toMatchObject({ id: member.id, role: 'editor', invitation: false });
    expect(await rolesOf(member.id)).toEqual({ [w.tenant.id]: 'editor', [w.other.id]: 'reader' });
    expect((await rename()).statusCode).toBe(200);
    const listed = (await call(t.app, 'GET', '/api/users', { token: w.tokens.admin })).json().users.find((u: { id: string }) => u.id === member.id);
    expect(listed.role).toBe('editor');
    const audit = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'user.role_change'), eq(auditLog.targetId, member.id)));
    expect(audit).toMatchObject([{ tenantId: w.tenant.id, actorId: w.users.admin.id, details: { from: 'reader', to: 'editor' } }]);
  });

  it('changes the role a pending invitation grants', async () => {
    const x = await adminElsewhere();
    const id = (await call(t.app, 'POST', '/api/users', { token: w.tokens.admin, body: { email: x.user.email, name: 'Later', role: 'editor' } })).json().user
      .id;
    const res = await patch(id, { role: 'reader' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().user).toMatchObject({ id, role: 'reader', invitation: true });
    expect((await t.db.select().from(tenantInvitations).where(eq(tenantInvitations.id, id)))[0]?.role).toBe('reader');
    await acceptAll(x.token);
    expect((await rolesOf(x.user.id))[w.tenant.id]).toBe('reader');
  });

  it("refuses your own role (400) and a super admin's (403), and changes nothing", async () => {
    const own = await patch(w.users.admin.id, { role: 'reader' });
    expect(own.statusCode).toBe(400);
    expect(own.json().error).toBe(M.cannotChangeOwnRole);
    const sup = await patch(w.users.superAdmin.id, { role: 'reader' });
    expect(sup.statusCode).toBe(403);
    expect(sup.json().error).toBe(M.cannotChangeSuperAdminRole);
    expect((await rolesOf(w.users.admin.id))[w.tenant.id]).toBe('admin');
    expect((await rolesOf(w.users.superAdmin.id))[w.tenant.id]).toBe('admin');
  });

  it("answers 403 to editors and readers, 404 for another tenant's member, 400 naming a bad role, 401 signed out", async () => {
    const member = await createUser(t.db, w.tenant.id, { role: 'reader' });
    expect((await patch(member.id, { role: 'admin' }, w.tokens.editor)).statusCode).toBe(403);
    expect((await patch(member.id, { role: 'admin' }, w.tokens.reader)).statusCode).toBe(403);
    expect((await patch(w.users.otherAdmin.id, { role: 'reader' })).statusCode).toBe(404);
    expect((await patch(member.id, { role: 'admin' }, w.tokens.otherAdmin, w.other.slug)).statusCode).toBe(404);
    const bad = await patch(member.id, { role: 'owner' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().field).toBe('role');
    expect((await call(t.app, 'PATCH', `/api/users/${member.id}`, { body: { role: 'admin' } })).statusCode).toBe(401);
    expect((await rolesOf(member.id))[w.tenant.id]).toBe('reader');
  });
});

describe('memberships in the super admin panel', () => {
  const put = (id: string, body: unknown) => call(t.app, 'PATCH', `/api/admin/users/${id}/tenants`, { token: w.tokens.superAdmin, body });

  it('adds a tenant with the role of the primary tenant by {tenantIds}, and keeps the role of a tenant kept', async () => {
    const third = await createTenant(t.db);
    const person = await createUser(t.db, w.tenant.id, { role: 'editor', extraTenantIds: [w.other.id] });
    await t.db
      .update(tenantMemberships)
      .set({ role: 'admin' })
      .where(and(eq(tenantMemberships.userId, person.id), eq(tenantMemberships.tenantId, w.other.id)));
    const res = await put(person.id, { tenantIds: [w.tenant.id, w.other.id, third.id] });
    expect(res.statusCode, res.body).toBe(200);
    expect(await rolesOf(person.id)).toEqual({ [w.tenant.id]: 'editor', [w.other.id]: 'admin', [third.id]: 'editor' });
    expect(res.json().user).toMatchObject({ role: 'editor', tenant_roles: { [w.tenant.id]: 'editor', [w.other.id]: 'admin', [third.id]: 'editor' } });
  });

  it('sets the role of each tenant by {memberships}', async () => {
    const person = await createUser(t.db, w.tenant.id, { role: 'reader' });
    const res = await put(person.id, {
      memberships: [
        { tenantId: w.tenant.id, role: 'editor' },
        { tenantId: w.other.id, role: 'admin' },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await rolesOf(person.id)).toEqual({ [w.tenant.id]: 'editor', [w.other.id]: 'admin' });
    const bad = await put(person.id, { memberships: [{ tenantId: w.tenant.id, role: 'owner' }] });
    expect(bad.statusCode).toBe(400);
    expect((await put(person.id, { memberships: [] })).json().error).toBe(M.membershipAtLeastOne);
  });

  it('changes the role of the tenant named by PATCH /admin/users/:id, the primary one without it', async () => {
    const person = await createUser(t.db, w.tenant.id, { role: 'reader', extraTenantIds: [w.other.id] });
    const patchRole = (body: unknown) => call(t.app, 'PATCH', `/api/admin/users/${person.id}`, { token: w.tokens.superAdmin, body });
    expect((await patchRole({ role: 'admin', tenantId: w.other.id })).statusCode).toBe(200);
    expect(await rolesOf(person.id)).toEqual({ [w.tenant.id]: 'reader', [w.other.id]: 'admin' });
    const primary = await patchRole({ role: 'editor' });
    expect(primary.json().user.role).toBe('editor');
    expect(await rolesOf(person.id)).toEqual({ [w.tenant.id]: 'editor', [w.other.id]: 'admin' });
    const third = await createTenant(t.db);
    expect((await patchRole({ role: 'admin', tenantId: third.id })).statusCode).toBe(400);
  });
});

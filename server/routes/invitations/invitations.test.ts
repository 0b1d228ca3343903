import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../common/messages';
import { INVITATION_MESSAGES } from '../../../common/schemas/invitations';
import { auditLog, tenantInvitations, tenantMemberships, users } from '../../db/schema';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createTenant, createUser, createWorld, PASSWORD, signIn, type World } from '../../test/factories';

/**
 * The invitee's side of decision 0110: a tenant admin of `w.tenant` adds the address of an account
 * whose tenant is `w.other`; that person sees the invitation and accepts or declines it.
 */
let t: TestApp;
let w: World;

beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

/** An account of the other tenant, signed in. */
async function outsider(role: 'reader' | 'editor' | 'admin' = 'reader') {
  const user = await createUser(t.db, w.other.id, { role });
  return { user, token: await signIn(t.app, user.email) };
}

/** The tenant admin adds the address; answers the id the tenant's user list gives the row. */
async function invite(email: string, by = { token: w.tokens.admin, tenant: w.tenant.slug }) {
  const res = await call(t.app, 'POST', '/api/users', { ...by, body: { email, name: 'Entered Name', role: 'admin', password: 'typed-secret' } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().user.id as string;
}

async function account(id: string) {
  const [u] = await t.db.select().from(users).where(eq(users.id, id));
  const memberships = await t.db.select().from(tenantMemberships).where(eq(tenantMemberships.userId, id));
  return {
    name: u.name,
    passwordHash: u.passwordHash,
    tenantId: u.tenantId,
    memberships: memberships.map((m) => m.tenantId).sort(),
    roles: Object.fromEntries(memberships.map((m) => [m.tenantId, m.role])),
  };
}

const pending = async (id: string) => (await t.db.select().from(tenantInvitations).where(eq(tenantInvitations.id, id))).length === 1;
const audits = (action: string, targetId: string) =>
  t.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action), eq(auditLog.targetId, targetId)));

describe('invitations in the session answers', () => {
  it('shows the invitee who invited them to which tenant, on /auth/me and the login answer, and nothing the admin entered', async () => {
    const x = await outsider();
    const id = await invite(x.user.email);
    const expected = [{ id, tenant_name: w.tenant.name, invited_by_name: w.users.admin.name, created_at: expect.any(String) }];
    const me = await call(t.app, 'GET', '/api/auth/me', { token: x.token });
    expect(me.statusCode).toBe(200);
    expect(me.json().invitations).toEqual(expected);
    const login = await call(t.app, 'POST', '/api/auth/login', { body: { email: x.user.email, password: PASSWORD } });
    expect(login.json().invitations).toEqual(expected);
    // Nobody else sees it.
    expect((await call(t.app, 'GET', '/api/auth/me', { token: w.tokens.admin })).json().invitations).toEqual([]);
    expect((await call(t.app, 'GET', '/api/auth/me', { token: w.tokens.otherAdmin })).json().invitations).toEqual([]);
  });
});

describe('POST /api/invitations/:id/accept', () => {
  it('makes the invitee a member of the tenant with the role the inviter chose and their own password, and removes the invitation', async () => {
    const x = await outsider('reader');
    const before = await account(x.user.id);
    const id = await invite(x.user.email);
    expect((await call(t.app, 'GET', '/api/services', { token: x.token, tenant: w.tenant.slug })).statusCode).toBe(403);

    const res = await call(t.app, 'POST', `/api/invitations/${id}/accept`, { token: x.token });
    expect(res.statusCode).toBe(200);
    expect(res.json().tenant).toMatchObject({ id: w.tenant.id, slug: w.tenant.slug, name: w.tenant.name });

    // The role chosen (admin) holds in this tenant; the role in their own tenant stays.
    expect(await account(x.user.id)).toEqual({
      ...before,
      memberships: [...before.memberships, w.tenant.id].sort(),
      roles: { ...before.roles, [w.tenant.id]: 'admin' },
    });
    expect(await pending(id)).toBe(false);
    expect((await call(t.app, 'GET', '/api/services', { token: x.token, tenant: w.tenant.slug })).statusCode).toBe(200);
    const me = (await call(t.app, 'GET', '/api/auth/me', { token: x.token })).json();
    expect(me.invitations).toEqual([]);
    expect(me.availableTenants.map((tn: { id: string }) => tn.id)).toContain(w.tenant.id);
    expect(me.user.role).toBe('reader');
    expect((await call(t.app, 'GET', '/api/auth/me', { token: x.token, tenant: w.tenant.slug })).json().user.role).toBe('admin');

    // The tenant's list now shows the member with the role they hold here.
    const list = (await call(t.app, 'GET', '/api/users', { token: w.tokens.admin })).json().users as {
      id: string;
      name: string;
      role: string;
      invitation: boolean;
    }[];
    expect(list.find((u) => u.id === x.user.id)).toMatchObject({ name: x.user.name, role: 'admin', invitation: false });
    expect(list.map((u) => u.id)).not.toContain(id);

    expect(await audits('invitation.accept', id)).toMatchObject([{ tenantId: w.tenant.id, actorId: x.user.id }]);
    expect((await call(t.app, 'POST', `/api/invitations/${id}/accept`, { token: x.token })).statusCode).toBe(404);
  });

  it('answers 404 to everyone but the invitee, the inviter and super admin included, and changes nothing', async () => {
    const x = await outsider();
    const id = await invite(x.user.email);
    const bystander = await outsider('admin');
    const tokens = [w.tokens.admin, w.tokens.reader, w.tokens.superAdmin, w.tokens.otherAdmin, bystander.token];
    for (const token of tokens) {
      for (const tenant of [null, w.tenant.slug, w.other.slug]) {
        const accept = await call(t.app, 'POST', `/api/invitations/${id}/accept`, { token, tenant });
        expect(accept.statusCode).toBe(404);
        expect(accept.json().error).toBe(INVITATION_MESSAGES.notFound);
        expect((await call(t.app, 'DELETE', `/api/invitations/${id}`, { token, tenant })).statusCode).toBe(404);
      }
    }
    expect(await pending(id)).toBe(true);
    expect((await account(x.user.id)).memberships).toEqual([w.other.id]);
    expect(await audits('invitation.accept', id)).toEqual([]);
    expect(await audits('invitation.decline', id)).toEqual([]);
  });

  it('answers 404 for unknown and malformed ids, and 401 signed out', async () => {
    const x = await outsider();
    const id = await invite(x.user.email);
    expect((await call(t.app, 'POST', '/api/invitations/00000000-0000-4000-8000-000000000000/accept', { token: x.token })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', '/api/invitations/42/accept', { token: x.token })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', '/api/invitations/42', { token: x.token })).statusCode).toBe(404);
    expect((await call(t.app, 'POST', `/api/invitations/${id}/accept`)).statusCode).toBe(401);
    expect((await call(t.app, 'DELETE', `/api/invitations/${id}`)).statusCode).toBe(401);
    expect(await pending(id)).toBe(true);
  });

  it('answers 409 for a tenant that is archived, and joins nothing', async () => {
    const third = await createTenant(t.db);
    const thirdAdmin = await createUser(t.db, third.id, { role: 'admin' });
    const x = await outsider();
    const id = await invite(x.user.email, { token: await signIn(t.app, thirdAdmin.email), tenant: third.slug });
    expect((await call(t.app, 'PATCH', `/api/tenants/${third.id}/archive`, { token: w.tokens.superAdmin })).statusCode).toBe(200);
    const res = await call(t.app, 'POST', `/api/invitations/${id}/accept`, { token: x.token });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe(M.tenantArchived);
    expect((await account(x.user.id)).memberships).toEqual([w.other.id]);
    expect(await pending(id)).toBe(true);
    // An archived tenant's invitation is not offered.
    expect((await call(t.app, 'GET', '/api/auth/me', { token: x.token })).json().invitations).toEqual([]);
  });
});

describe('DELETE /api/invitations/:id', () => {
  it('declines: the invitation goes, the invitee joins nothing, and the tenant log says so', async () => {
    const x = await outsider();
    const before = await account(x.user.id);
    const id = await invite(x.user.email);
    const res = await call(t.app, 'DELETE', `/api/invitations/${id}`, { token: x.token });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await pending(id)).toBe(false);
    expect(await account(x.user.id)).toEqual(before);
    expect((await call(t.app, 'GET', '/api/auth/me', { token: x.token })).json().invitations).toEqual([]);
    const list = (await call(t.app, 'GET', '/api/users', { token: w.tokens.admin })).json().users as { id: string }[];
    expect(list.map((u) => u.id)).not.toContain(id);
    expect(await audits('invitation.decline', id)).toMatchObject([{ tenantId: w.tenant.id, actorId: x.user.id }]);
    expect((await call(t.app, 'POST', `/api/invitations/${id}/accept`, { token: x.token })).statusCode).toBe(404);
  });

  it('leaves the admin free to add the address again after a decline', async () => {
    const x = await outsider();
    const first = await invite(x.user.email);
    await call(t.app, 'DELETE', `/api/invitations/${first}`, { token: x.token });
    const second = await invite(x.user.email);
    expect(second).not.toBe(first);
    expect((await call(t.app, 'GET', '/api/auth/me', { token: x.token })).json().invitations.map((i: { id: string }) => i.id)).toEqual([second]);
  });
});

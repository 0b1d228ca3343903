import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, serviceRoleAssignments, tenantInvitations, tenantMemberships, users } from '../../db/schema';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createService, createTenant, createUser, PASSWORD, signIn } from '../../test/factories';

/**
 * Decision 0110: what a tenant admin reads after adding a new address and after adding the address
 * of an account of another tenant must be the same, but for the addresses and the ids. Each case
 * runs in a tenant of its own, so that everything the admin can read there can be compared whole.
 */
let t: TestApp;
let elsewhere: Awaited<ReturnType<typeof createTenant>>;

beforeAll(async () => {
  t = await buildTestApp();
  elsewhere = await createTenant(t.db);
});
afterAll(() => t.close());

type Kind = 'new' | 'outside';

/** A tenant, its admin and a service, named alike in every case. */
async function tenantCase() {
  const tenant = await createTenant(t.db, { name: 'Same Tenant' });
  const admin = await createUser(t.db, tenant.id, { role: 'admin', name: 'Admin' });
  const service = await createService(t.db, tenant.id, { name: 'Same Service' });
  const token = await signIn(t.app, admin.email);
  return { tenant, admin, service, token, as: { token, tenant: tenant.slug } };
}

/** The addresses to add: fresh ones, or those of accounts of another tenant (with names of their own). */
async function addresses(kind: Kind, n: number) {
  const out: { email: string; accountId: string | null }[] = [];
  for (let i = 0; i < n; i++) {
    if (kind === 'new') out.push({ email: `fresh-${kind}-${i}-${Math.random().toString(36).slice(2)}@example.com`, accountId: null });
    else {
      const account = await createUser(t.db, elsewhere.id, { name: `Own Name ${i}`, role: 'reader' });
      out.push({ email: account.email, accountId: account.id });
    }
  }
  return out;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const EMAIL = /^[^@\s]+@[^@\s]+$/;

/**
 * Replaces ids and addresses by the order they first appear in (so that one id used in two places
 * stays one), and timestamps by a mark: what is left must not differ between the cases.
 */
function normalise(value: unknown): unknown {
  const ids = new Map<string, string>();
  const emails = new Map<string, string>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (UUID.test(v) || /^n\d+$/.test(v)) return ids.get(v) ?? (ids.set(v, `id-${ids.size}`), ids.get(v));
      if (EMAIL.test(v)) return emails.get(v) ?? (emails.set(v, `email-${emails.size}`), emails.get(v));
      if (ISO.test(v)) return 'time';
      return v;
    }
    if (Array.isArray(v)) return v.map(walk);
    // Audit rows are numbered across the installation: their ids are ids like the others.
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(typeof x === 'number' && (k === 'id' || k === 'next_before') ? `n${x}` : x)]));
    return v;
  };
  return walk(value);
}

/** Everything the tenant admin reads after adding two people, one from Tenant Settings and one from a service. */
async function addAndLook(kind: Kind) {
  const c = await tenantCase();
  const [viaSettings, viaService] = await addresses(kind, 2);
  const body = { name: 'Entered Name', role: 'editor', password: 'typed-secret' };
  const created = await call(t.app, 'POST', '/api/users', { ...c.as, body: { ...body, email: viaSettings!.email } });
  const createdForService = await call(t.app, 'POST', `/api/services/${c.service.id}/users/new`, {
    ...c.as,
    body: { ...body, name: 'Service Name', email: viaService!.email },
  });
  const list = await call(t.app, 'GET', '/api/users', c.as);
  const audit = await call(t.app, 'GET', '/api/audit', c.as);
  const settings = await call(t.app, 'GET', `/api/services/${c.service.id}/settings-data`, c.as);
  const assignments = await call(t.app, 'GET', `/api/services/${c.service.id}/users`, c.as);
  const seen = {
    created: [created.statusCode, created.json()],
    createdForService: [createdForService.statusCode, createdForService.json()],
    list: [list.statusCode, list.json()],
    audit: [audit.statusCode, audit.json()],
    settings: [settings.statusCode, { users: settings.json().users, assignments: settings.json().assignments }],
    assignments: [assignments.statusCode, assignments.json()],
  };
  return { c, viaSettings: viaSettings!, viaService: viaService!, seen, createdForService: createdForService.json() };
}

const pendingOf = (tenantId: string) => t.db.select().from(tenantInvitations).where(eq(tenantInvitations.tenantId, tenantId));
const auditOf = (tenantId: string, action: string) =>
  t.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.tenantId, tenantId), eq(auditLog.action, action)));
const assignmentsOfAccount = (tenantId: string, userId: string) =>
  t.db
    .select()
    .from(serviceRoleAssignments)
    .where(and(eq(serviceRoleAssignments.tenantId, tenantId), eq(serviceRoleAssignments.userId, userId)));
const accountByEmail = async (email: string) => (await t.db.select().from(users).where(eq(users.email, email)))[0];

describe('adding a new address and an address of another tenant, as a tenant admin', () => {
  it('answers, lists, audits and assigns the two alike: only addresses and ids differ', async () => {
    const fresh = await addAndLook('new');
    const outside = await addAndLook('outside');
    expect(fresh.seen.created[0]).toBe(201);
    expect(normalise(outside.seen)).toEqual(normalise(fresh.seen));

    // What they have in common is what was entered, the invitation showing in the list.
    const row = (fresh.seen.list[1] as { users: { email: string; name: string; role: string; invitation: boolean }[] }).users.find(
      (u) => u.email === fresh.viaSettings.email,
    );
    expect(row).toMatchObject({ name: 'Entered Name', role: 'editor', invitation: true });
    expect(fresh.createdForService.assignment).toMatchObject({ user_name: 'Service Name', role: 'editor', user_id: fresh.createdForService.user.id });
    const actions = (fresh.seen.audit[1] as { entries: { action: string; details: Record<string, unknown> | null }[] }).entries.map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['user.invite', 'service_role.assign']));
    expect(actions).not.toContain('user.create');
    // The account of the other tenant is untouched, and its assignment is real.
    const account = await accountByEmail(outside.viaService.email);
    expect(account).toMatchObject({ name: 'Own Name 1', tenantId: elsewhere.id });
    // Not accepted yet: the only membership is the account's own tenant's, with its role.
    const memberships = await t.db.select().from(tenantMemberships).where(eq(tenantMemberships.userId, account!.id));
    expect(memberships.map((m) => [m.tenantId, m.role])).toEqual([[elsewhere.id, 'reader']]);
    expect(await assignmentsOfAccount(outside.c.tenant.id, account!.id)).toMatchObject([{ role: 'editor' }]);
  });

  it("accepts a new account's invitation at its first sign-in, with no notice; the list then shows the member", async () => {
    const { c, viaSettings, viaService } = await addAndLook('new');
    const login = await call(t.app, 'POST', '/api/auth/login', { body: { email: viaSettings.email, password: 'typed-secret' } });
    expect(login.statusCode).toBe(200);
    expect(login.json().invitations).toEqual([]);
    const account = (await accountByEmail(viaSettings.email))!;
    const list = (await call(t.app, 'GET', '/api/users', c.as)).json().users as { id: string; email: string; invitation: boolean }[];
    expect(list.find((u) => u.email === viaSettings.email)).toMatchObject({ id: account.id, name: 'Entered Name', role: 'editor', invitation: false });
    // The other one has not signed in yet and stays invited.
    expect(list.find((u) => u.email === viaService.email)).toMatchObject({ invitation: true });
    const pending = await pendingOf(c.tenant.id);
    expect(pending.map((p) => p.userId)).not.toContain(account.id);
    expect(await auditOf(c.tenant.id, 'invitation.accept')).toMatchObject([{ actorId: account.id, details: { userId: account.id } }]);
    // A second sign-in accepts nothing more.
    await signIn(t.app, viaSettings.email, 'typed-secret');
    expect(await auditOf(c.tenant.id, 'invitation.accept')).toHaveLength(1);
  });

  it('leaves the outside account to accept explicitly: refused in the tenant before, its assignment holds after', async () => {
    const { c, viaService, createdForService } = await addAndLook('outside');
    const token = await signIn(t.app, viaService.email, PASSWORD);
    const me = (await call(t.app, 'GET', '/api/auth/me', { token })).json();
    expect(me.invitations).toHaveLength(1);
    // The assignment grants nothing to someone who is not a member.
    expect((await call(t.app, 'GET', `/api/services/${c.service.id}`, { token, tenant: c.tenant.slug })).statusCode).toBe(403);
    expect((await call(t.app, 'GET', '/api/services', { token, tenant: c.tenant.slug })).statusCode).toBe(403);
    expect(await pendingOf(c.tenant.id)).toHaveLength(2);

    const accept = await call(t.app, 'POST', `/api/invitations/${me.invitations[0].id}/accept`, { token });
    expect(accept.statusCode).toBe(200);
    expect(await auditOf(c.tenant.id, 'invitation.accept')).toMatchObject([{ actorId: viaService.accountId, details: { userId: viaService.accountId } }]);
    expect((await call(t.app, 'GET', `/api/services/${c.service.id}`, { token, tenant: c.tenant.slug })).statusCode).toBe(200);
    const assignments = (await call(t.app, 'GET', `/api/services/${c.service.id}/users`, c.as)).json().assignments as {
      id: string;
      user_id: string;
      role: string;
    }[];
    expect(assignments.find((a) => a.user_id === viaService.accountId)).toMatchObject({
      id: createdForService.assignment.id,
      role: 'editor',
      user_name: 'Own Name 1',
    });
  });

  it('removes the assignment an outside account was given when it declines, or when the admin withdraws', async () => {
    for (const how of ['decline', 'withdraw'] as const) {
      const { c, viaService, createdForService } = await addAndLook('outside');
      const accountId = viaService.accountId!;
      expect(await assignmentsOfAccount(c.tenant.id, accountId)).toHaveLength(1);
      if (how === 'decline') {
        const token = await signIn(t.app, viaService.email, PASSWORD);
        const [invitation] = (await call(t.app, 'GET', '/api/auth/me', { token })).json().invitations;
        expect((await call(t.app, 'DELETE', `/api/invitations/${invitation.id}`, { token })).statusCode).toBe(204);
      } else {
        expect((await call(t.app, 'DELETE', `/api/users/${createdForService.user.id}`, c.as)).statusCode).toBe(204);
      }
      expect(await assignmentsOfAccount(c.tenant.id, accountId)).toEqual([]);
      expect((await call(t.app, 'GET', `/api/services/${c.service.id}/users`, c.as)).json().assignments).toEqual([]);
      expect(await accountByEmail(viaService.email)).toMatchObject({ id: accountId, tenantId: elsewhere.id });
    }
  });

  it('withdraws a new account still pending by deleting it, audited as any withdrawal', async () => {
    const fresh = await addAndLook('new');
    const outside = await addAndLook('outside');
    for (const k of [fresh, outside]) {
      expect((await call(t.app, 'DELETE', `/api/users/${k.createdForService.user.id}`, k.c.as)).statusCode).toBe(204);
    }
    expect(await accountByEmail(fresh.viaService.email)).toBeUndefined();
    expect(await accountByEmail(outside.viaService.email)).toBeDefined();
    const look = async (k: typeof fresh) => ({
      list: (await call(t.app, 'GET', '/api/users', k.c.as)).json(),
      audit: (await call(t.app, 'GET', '/api/audit', k.c.as)).json(),
      assignments: (await call(t.app, 'GET', `/api/services/${k.c.service.id}/users`, k.c.as)).json(),
    });
    expect(normalise(await look(outside))).toEqual(normalise(await look(fresh)));
    expect(await auditOf(fresh.c.tenant.id, 'invitation.withdraw')).toMatchObject([{ details: { email: fresh.viaService.email } }]);
  });
});

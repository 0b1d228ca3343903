import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { ADMIN_MESSAGES, MAX_IMPERSONATION_REASON_LENGTH } from '../../../common/schemas/users';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createTenant, createUser, createWorld, signIn, type World } from '../../test/factories';
import { auditLog, impersonations } from '../../db/schema';
import { revokeToken } from '../../db/queries/users';

let t: TestApp;
let w: World;
const MISSING = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

const start = (body: unknown, token = w.tokens.superAdmin) => call(t.app, 'POST', '/api/impersonation/start', { token, body });

describe('POST /api/impersonation/start', () => {
  it('returns a shorter-lived token acting exactly as the user, with the impersonation record and audit row', async () => {
    const res = await start({ userId: w.users.editor.id, tenantId: w.tenant.id });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.impersonation).toMatchObject({ impersonated_user: { id: w.users.editor.id, email: w.users.editor.email }, tenant: { id: w.tenant.id } });
    expect(body.user).toMatchObject({ id: w.users.editor.id, super_admin: false });
    expect(body.tenant.id).toBe(w.tenant.id);
    expect(body.impersonating.isImpersonating).toBe(true);

    const session = decodeJwt(w.tokens.superAdmin);
    const imp = decodeJwt(body.token);
    expect(imp.exp! - imp.iat!).toBeLessThan(session.exp! - session.iat!);
    expect(imp).toMatchObject({ sub: w.users.editor.id, imp: w.users.superAdmin.id, tid: w.tenant.id });

    const me = await call(t.app, 'GET', '/api/auth/me', { token: body.token });
    expect(me.json().user.id).toBe(w.users.editor.id);
    expect(me.json().impersonating.isImpersonating).toBe(true);

    const rows = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'impersonation.start'), eq(auditLog.targetId, w.users.editor.id)));
    expect(rows[0]).toMatchObject({ actorId: w.users.superAdmin.id, tenantId: w.tenant.id });
    const [row] = await t.db.select().from(impersonations).where(eq(impersonations.id, body.impersonation.id));
    expect(row).toMatchObject({ superAdminId: w.users.superAdmin.id, impersonatedUserId: w.users.editor.id, endedAt: null });
  });

  it('gives no super admin power: /tenants, /admin/* and other tenants are refused', async () => {
    const { token } = (await start({ userId: w.users.admin.id, tenantId: w.tenant.id })).json();
    for (const url of ['/api/tenants', '/api/admin/users', '/api/admin/panel-data']) {
      expect((await call(t.app, 'GET', url, { token })).statusCode, url).toBe(403);
    }
    expect((await call(t.app, 'POST', '/api/tenants', { token, body: { name: 'X', slug: 'x-imp' } })).statusCode).toBe(403);
    expect((await call(t.app, 'GET', '/api/services', { token, tenant: w.other.slug })).statusCode).toBe(403);
    expect((await call(t.app, 'GET', '/api/users', { token })).statusCode).toBe(200);
    const reader = (await start({ userId: w.users.reader.id, tenantId: w.tenant.id })).json().token;
    expect((await call(t.app, 'GET', '/api/users', { token: reader })).statusCode).toBe(403);
  });

  it('refuses nesting with 403', async () => {
    const { token } = (await start({ userId: w.users.reader.id, tenantId: w.tenant.id })).json();
    const nested = await start({ userId: w.users.editor.id, tenantId: w.tenant.id }, token);
    expect(nested.statusCode).toBe(403);
    expect(nested.json().error).toBe(ADMIN_MESSAGES.nestedImpersonation);
  });

  it('refuses yourself, another super admin, a non-member tenant, and unknown ids', async () => {
    const other = await createUser(t.db, w.tenant.id, { superAdmin: true, role: 'admin' });
    expect((await start({ userId: w.users.superAdmin.id, tenantId: w.tenant.id })).json().error).toBe(ADMIN_MESSAGES.cannotImpersonateSelf);
    const sa = await start({ userId: other.id, tenantId: w.tenant.id });
    expect(sa.statusCode).toBe(403);
    expect(sa.json().error).toBe(ADMIN_MESSAGES.cannotImpersonateSuperAdmin);
    const foreign = await start({ userId: w.users.reader.id, tenantId: w.other.id });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().error).toBe(ADMIN_MESSAGES.notTenantMember);
    expect((await start({ userId: MISSING, tenantId: w.tenant.id })).statusCode).toBe(404);
    expect((await start({ userId: w.users.reader.id, tenantId: MISSING })).statusCode).toBe(404);
    const archived = await createTenant(t.db, { archived: true });
    const member = await createUser(t.db, archived.id);
    expect((await start({ userId: member.id, tenantId: archived.id })).statusCode).toBe(409);
  });

  it('answers 400 for missing ids, 401 without a token and 403 for a tenant admin', async () => {
    const bad = await start({ userId: 'x' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe(ADMIN_MESSAGES.impersonationTargetRequired);
    expect((await call(t.app, 'POST', '/api/impersonation/start', { body: {} })).statusCode).toBe(401);
    expect((await start({ userId: w.users.reader.id, tenantId: w.tenant.id }, w.tokens.admin)).statusCode).toBe(403);
  });
});

describe('GET /api/impersonation/active', () => {
  it('tells whether the token impersonates, and whom', async () => {
    const { token } = (await start({ userId: w.users.reader.id, tenantId: w.tenant.id })).json();
    const active = await call(t.app, 'GET', '/api/impersonation/active', { token });
    expect(active.json()).toMatchObject({ isImpersonating: true, impersonatedUser: { name: w.users.reader.name, email: w.users.reader.email } });
    const plain = await call(t.app, 'GET', '/api/impersonation/active', { token: w.tokens.admin });
    expect(plain.json()).toMatchObject({ isImpersonating: false, impersonatedUser: null });
    expect((await call(t.app, 'GET', '/api/impersonation/active')).statusCode).toBe(401);
  });
});

describe('POST /api/impersonation/stop', () => {
  it("revokes the impersonation token, ends the record, audits both people and returns the super admin's session", async () => {
    const started = (await start({ userId: w.users.editor.id, tenantId: w.tenant.id })).json();
    const res = await call(t.app, 'POST', '/api/impersonation/stop', { token: started.token });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.user).toMatchObject({ id: w.users.superAdmin.id, super_admin: true });
    expect(body.availableTenants.length).toBeGreaterThan(0);
    expect((await call(t.app, 'GET', '/api/tenants', { token: body.token })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/api/auth/me', { token: started.token })).statusCode).toBe(401);
    const [row] = await t.db.select().from(impersonations).where(eq(impersonations.id, started.impersonation.id));
    expect(row.endedAt).not.toBeNull();
    const audit = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'impersonation.stop'), eq(auditLog.targetId, w.users.editor.id)));
    expect(audit.at(-1)).toMatchObject({ actorId: w.users.editor.id, impersonatorId: w.users.superAdmin.id });
  });

  it('lets a super admin end an impersonation left running elsewhere, shown in the panel data', async () => {
    const boss = await createUser(t.db, w.tenant.id, { superAdmin: true, role: 'admin' });
    const bossToken = await signIn(t.app, boss.email);
    const started = (await start({ userId: w.users.reader.id, tenantId: w.tenant.id }, bossToken)).json();
    const panel = await call(t.app, 'GET', '/api/admin/panel-data', { token: bossToken });
    expect(panel.json()).toMatchObject({ is_impersonating: true, impersonation: { impersonated_user: { id: w.users.reader.id } } });
    const res = await call(t.app, 'POST', '/api/impersonation/stop', { token: bossToken });
    expect(res.statusCode).toBe(200);
    // The same session back, not a new one.
    expect(decodeJwt(res.json().token)).toMatchObject({ sub: boss.id, jti: decodeJwt(bossToken).jti, exp: decodeJwt(bossToken).exp });
    expect((await call(t.app, 'GET', '/api/auth/me', { token: started.token })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', '/api/admin/panel-data', { token: bossToken })).json().is_impersonating).toBe(false);
  });

  it('answers 409 when nothing is impersonated and 401 without a token', async () => {
    expect((await call(t.app, 'POST', '/api/impersonation/stop', { token: w.tokens.admin })).statusCode).toBe(409);
    expect((await call(t.app, 'POST', '/api/impersonation/stop')).statusCode).toBe(401);
  });

  it('stops working once the impersonated user is deleted', async () => {
    const victim = await createUser(t.db, w.tenant.id);
    const { token } = (await start({ userId: victim.id, tenantId: w.tenant.id })).json();
    await call(t.app, 'DELETE', `/api/admin/users/${victim.id}`, { token: w.tokens.superAdmin });
    expect((await call(t.app, 'GET', '/api/auth/me', { token })).statusCode).toBe(401);
  });
});

/** A super admin of their own, signed in, so that a test may end their session. */
async function freshSuperAdmin() {
  const user = await createUser(t.db, w.tenant.id, { superAdmin: true, role: 'admin' });
  return { user, token: await signIn(t.app, user.email) };
}

const stopRows = (impersonationId: string) =>
  t.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, 'impersonation.stop'), sql`${auditLog.details}->>'impersonationId' = ${impersonationId}`));

describe("an impersonation lives only as long as the super admin's session that started it", () => {
  it('answers 401 on a tenant route and on stop once the super admin logs out, and the record ends with a stop row', async () => {
    const boss = await freshSuperAdmin();
    const started = (await start({ userId: w.users.reader.id, tenantId: w.tenant.id }, boss.token)).json();
    expect((await call(t.app, 'GET', '/api/services', { token: started.token })).statusCode).toBe(200);

    expect((await call(t.app, 'POST', '/api/auth/logout', { token: boss.token })).statusCode).toBe(204);
    expect((await call(t.app, 'GET', '/api/services', { token: started.token })).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/api/impersonation/stop', { token: started.token })).statusCode).toBe(401);

    const [row] = await t.db.select().from(impersonations).where(eq(impersonations.id, started.impersonation.id));
    expect(row.endedAt).not.toBeNull();
    const audit = await stopRows(started.impersonation.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ tenantId: w.tenant.id, actorId: boss.user.id, targetId: w.users.reader.id });
    expect(audit[0].details).toMatchObject({ ended: 'signed_out', superAdminEmail: boss.user.email, impersonatedUserEmail: w.users.reader.email });
  });

  it("ends when the super admin's session is revoked by any means, not only by this process's logout", async () => {
    const boss = await freshSuperAdmin();
    const started = (await start({ userId: w.users.reader.id, tenantId: w.tenant.id }, boss.token)).json();
    await revokeToken(t.db, decodeJwt(boss.token).jti!, new Date(decodeJwt(boss.token).exp! * 1000));
    expect((await call(t.app, 'GET', '/api/auth/me', { token: started.token })).statusCode).toBe(401);
    const [row] = await t.db.select().from(impersonations).where(eq(impersonations.id, started.impersonation.id));
    expect(row.endedAt).not.toBeNull();
  });

  it('ends its record when its own token logs out', async () => {
    const boss = await freshSuperAdmin();
    const started = (await start({ userId: w.users.reader.id, tenantId: w.tenant.id }, boss.token)).json();
    expect((await call(t.app, 'POST', '/api/auth/logout', { token: started.token })).statusCode).toBe(204);
    const [row] = await t.db.select().from(impersonations).where(eq(impersonations.id, started.impersonation.id));
    expect(row.endedAt).not.toBeNull();
    expect((await stopRows(started.impersonation.id))[0]).toMatchObject({ actorId: w.users.reader.id, impersonatorId: boss.user.id });
    // The super admin's own session goes on.
    expect((await call(t.app, 'GET', '/api/tenants', { token: boss.token })).statusCode).toBe(200);
  });

  it("never outlives the super admin's session, and records which session it belongs to", async () => {
    const boss = await freshSuperAdmin();
    // A session with two minutes left, against the impersonation's hour.
    const session = await t.app.tokens.sign({ sub: boss.user.id, ttlSeconds: 120 });
    const started = (await start({ userId: w.users.reader.id, tenantId: w.tenant.id }, session.token)).json();
    expect(decodeJwt(started.token).exp).toBeLessThanOrEqual(session.exp);
    expect(decodeJwt(started.token).sid).toBe(session.jti);
    const [row] = await t.db.select().from(impersonations).where(eq(impersonations.id, started.impersonation.id));
    expect(row).toMatchObject({ sessionJti: session.jti, sessionExpiresAt: new Date(session.exp * 1000) });
    expect(row.expiresAt.getTime()).toBeLessThanOrEqual(session.exp * 1000);
  });

  it("stop answers the super admin's original session: same id, no later expiry, revoked together (logout with the answer)", async () => {
    const boss = await freshSuperAdmin();
    const original = decodeJwt(boss.token);
    const started = (await start({ userId: w.users.editor.id, tenantId: w.tenant.id }, boss.token)).json();
    const res = await call(t.app, 'POST', '/api/impersonation/stop', { token: started.token });
    expect(res.statusCode).toBe(200);
    const back = res.json().token as string;
    const claims = decodeJwt(back);
    expect(claims).toMatchObject({ sub: boss.user.id, jti: original.jti });
    expect(claims.exp).toBeLessThanOrEqual(original.exp!);
    expect(claims.imp).toBeUndefined();
    expect((await call(t.app, 'GET', '/api/tenants', { token: back })).statusCode).toBe(200);

    expect((await call(t.app, 'POST', '/api/auth/logout', { token: back })).statusCode).toBe(204);
    expect((await call(t.app, 'GET', '/api/auth/me', { token: boss.token })).statusCode).toBe(401);
  });

  it("stop answers a session that the original's logout revokes as well", async () => {
    const boss = await freshSuperAdmin();
    const started = (await start({ userId: w.users.editor.id, tenantId: w.tenant.id }, boss.token)).json();
    const back = (await call(t.app, 'POST', '/api/impersonation/stop', { token: started.token })).json().token as string;
    expect((await call(t.app, 'GET', '/api/auth/me', { token: back })).statusCode).toBe(200);
    expect((await call(t.app, 'POST', '/api/auth/logout', { token: boss.token })).statusCode).toBe(204);
    expect((await call(t.app, 'GET', '/api/auth/me', { token: back })).statusCode).toBe(401);
  });
});

describe('the reason of an impersonation', () => {
  it('is stored trimmed, audited on start and stop, and returned by start, /active and /auth/me', async () => {
    const boss = await freshSuperAdmin();
    const res = await start({ userId: w.users.reader.id, tenantId: w.tenant.id, reason: '  Support ticket #4711  ' }, boss.token);
    expect(res.statusCode).toBe(200);
    const started = res.json();
    const reason = 'Support ticket #4711';
    expect(started.impersonation.reason).toBe(reason);
    expect(started.impersonating).toMatchObject({ isImpersonating: true, reason });

    const [row] = await t.db.select().from(impersonations).where(eq(impersonations.id, started.impersonation.id));
    expect(row.reason).toBe(reason);
    const [startRow] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'impersonation.start'), sql`${auditLog.details}->>'impersonationId' = ${started.impersonation.id}`));
    expect(startRow.details).toMatchObject({ reason, superAdminEmail: boss.user.email, impersonatedUserEmail: w.users.reader.email });

    const active = await call(t.app, 'GET', '/api/impersonation/active', { token: started.token });
    expect(active.json()).toMatchObject({ isImpersonating: true, reason });
    const me = await call(t.app, 'GET', '/api/auth/me', { token: started.token });
    expect(me.json().impersonating).toMatchObject({ isImpersonating: true, impersonator: { id: boss.user.id }, reason });

    expect((await call(t.app, 'POST', '/api/impersonation/stop', { token: started.token })).statusCode).toBe(200);
    const [stopRow] = await stopRows(started.impersonation.id);
    expect(stopRow.details).toMatchObject({ reason, ended: 'stopped' });
  });

  it('is optional: a start without one (or a blank one) works and answers null', async () => {
    const boss = await freshSuperAdmin();
    const plain = await start({ userId: w.users.reader.id, tenantId: w.tenant.id }, boss.token);
    expect(plain.statusCode).toBe(200);
    expect(plain.json().impersonation.reason).toBeNull();
    expect((await call(t.app, 'GET', '/api/impersonation/active', { token: plain.json().token })).json().reason).toBeNull();
    const blank = await start({ userId: w.users.reader.id, tenantId: w.tenant.id, reason: '   ' }, boss.token);
    expect(blank.statusCode).toBe(200);
    const [row] = await t.db.select().from(impersonations).where(eq(impersonations.id, blank.json().impersonation.id));
    expect(row.reason).toBeNull();
  });

  it('answers 400 naming the field for too long a reason or one that is not text, and starts nothing', async () => {
    const boss = await freshSuperAdmin();
    const before = await t.db.select().from(impersonations).where(eq(impersonations.superAdminId, boss.user.id));
    const long = await start({ userId: w.users.reader.id, tenantId: w.tenant.id, reason: 'x'.repeat(MAX_IMPERSONATION_REASON_LENGTH + 1) }, boss.token);
    expect(long.statusCode).toBe(400);
    expect(long.json()).toMatchObject({ error: ADMIN_MESSAGES.impersonationReasonTooLong, field: 'reason' });
    const wrong = await start({ userId: w.users.reader.id, tenantId: w.tenant.id, reason: 42 }, boss.token);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ error: ADMIN_MESSAGES.impersonationReasonText, field: 'reason' });
    const after = await t.db.select().from(impersonations).where(eq(impersonations.superAdminId, boss.user.id));
    expect(after).toHaveLength(before.length);
    // The longest reason allowed still starts.
    const longest = await start({ userId: w.users.reader.id, tenantId: w.tenant.id, reason: 'x'.repeat(MAX_IMPERSONATION_REASON_LENGTH) }, boss.token);
    expect(longest.statusCode).toBe(200);
  });
});

describe("impersonations in the impersonated tenant's audit log", () => {
  it("shows its admins the start and stop rows of their tenant, with who impersonated whom and why, and not another tenant's", async () => {
    const boss = await freshSuperAdmin();
    const ours = (await start({ userId: w.users.editor.id, tenantId: w.tenant.id, reason: 'Checking a report' }, boss.token)).json();
    await call(t.app, 'POST', '/api/impersonation/stop', { token: ours.token });
    const theirs = (await start({ userId: w.users.otherAdmin.id, tenantId: w.other.id, reason: 'Elsewhere' }, boss.token)).json();
    await call(t.app, 'POST', '/api/impersonation/stop', { token: theirs.token });

    type Entry = { tenant_id: string; action: string; actor_email: string | null; impersonator_email: string | null; details: Record<string, unknown> | null };
    const logOf = async (token: string) => {
      const res = await call(t.app, 'GET', '/api/audit', { token, query: { limit: '100' } });
      expect(res.statusCode).toBe(200);
      return (res.json().entries as Entry[]).filter((e) => e.action.startsWith('impersonation.'));
    };
    const mine = await logOf(w.tokens.admin);
    const idOf = (e: Entry) => e.details?.impersonationId;
    const ourRows = mine.filter((e) => idOf(e) === ours.impersonation.id);
    expect(ourRows.map((e) => e.action).sort()).toEqual(['impersonation.start', 'impersonation.stop']);
    for (const e of ourRows) {
      expect(e.tenant_id).toBe(w.tenant.id);
      expect(e.details).toMatchObject({ superAdminEmail: boss.user.email, impersonatedUserEmail: w.users.editor.email, reason: 'Checking a report' });
    }
    expect(ourRows.find((e) => e.action === 'impersonation.start')).toMatchObject({ actor_email: boss.user.email, impersonator_email: null });
    expect(ourRows.find((e) => e.action === 'impersonation.stop')).toMatchObject({ actor_email: w.users.editor.email, impersonator_email: boss.user.email });
    expect(mine.some((e) => idOf(e) === theirs.impersonation.id)).toBe(false);

    const otherLog = await logOf(w.tokens.otherAdmin);
    expect(otherLog.filter((e) => idOf(e) === theirs.impersonation.id)).toHaveLength(2);
    expect(otherLog.some((e) => idOf(e) === ours.impersonation.id)).toBe(false);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { ADMIN_MESSAGES } from '../../../common/schemas/users';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createTenant, createUser, createWorld, signIn, type World } from '../../test/factories';
import { auditLog, impersonations } from '../../db/schema';

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
  it("returns a shorter-lived token acting exactly as the user, with the impersonation record and audit row", async () => {
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

    const rows = await t.db.select().from(auditLog).where(and(eq(auditLog.action, 'impersonation.start'), eq(auditLog.targetId, w.users.editor.id)));
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
    const audit = await t.db.select().from(auditLog).where(and(eq(auditLog.action, 'impersonation.stop'), eq(auditLog.targetId, w.users.editor.id)));
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

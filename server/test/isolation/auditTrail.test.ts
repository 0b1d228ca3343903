import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gt } from 'drizzle-orm';
import { auditLog } from '../../db/schema';
import { buildTestApp, call, type TestApp } from '../app';
import { createTenant, createUser, PASSWORD, signIn } from '../factories';
import { recordFigure } from '../security/figures';
import { seedDataset } from './world';

/**
 * Suite 12, the audit trail: each action CONTRACT section 5 lists writes exactly one audit row,
 * naming the actor and, through an impersonation token, the super admin behind it.
 */
let t: TestApp;
let tenant: { id: string; slug: string };
let superAdmin: { id: string; email: string };
let superToken = '';
let admin: { id: string; email: string };
let adminToken = '';
const checked: string[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  tenant = await createTenant(t.db);
  superAdmin = await createUser(t.db, tenant.id, { role: 'admin', superAdmin: true });
  admin = await createUser(t.db, tenant.id, { role: 'admin' });
  superToken = await signIn(t.app, superAdmin.email);
  adminToken = await signIn(t.app, admin.email);
}, 120_000);
afterAll(() => {
  const summary = `${checked.length} audited actions, each wrote exactly one row (a move: one in each tenant's log) naming actor and impersonator`;
  console.log(`[audit] ${summary}`);
  recordFigure('audit-trail', summary, { actions: checked });
  return t.close();
});

async function lastId(): Promise<number> {
  const rows = await t.db.select({ id: auditLog.id }).from(auditLog);
  return rows.reduce((m, r) => Math.max(m, r.id), 0);
}

/** Runs the action and returns the audit rows it wrote. */
async function audited(action: () => Promise<{ statusCode: number; body: string }>, okStatus: number) {
  const from = await lastId();
  const res = await action();
  expect(res.statusCode, res.body).toBe(okStatus);
  return t.db.select().from(auditLog).where(gt(auditLog.id, from));
}

function expectOne(rows: (typeof auditLog.$inferSelect)[], action: string, actorEmail: string, impersonatorEmail: string | null = null) {
  expect(rows.map((r) => r.action)).toEqual([action]);
  expect(rows[0].actorEmail).toBe(actorEmail);
  expect(rows[0].impersonatorEmail).toBe(impersonatorEmail);
  checked.push(action);
}

describe('audit trail', () => {
  it('writes one row for a sign-in and one for a failed sign-in', async () => {
    const user = await createUser(t.db, tenant.id);
    expectOne(await audited(() => call(t.app, 'POST', '/api/auth/login', { body: { email: user.email, password: PASSWORD } }), 200), 'auth.login', user.email);
    expectOne(
      await audited(() => call(t.app, 'POST', '/api/auth/login', { body: { email: user.email, password: 'wrong-password' } }), 401),
      'auth.login_failed',
      user.email,
    );
  });

  it('writes one row for an impersonation start and one for its stop, naming the super admin', async () => {
    const reader = await createUser(t.db, tenant.id);
    let token = '';
    const started = await audited(async () => {
      const res = await call(t.app, 'POST', '/api/impersonation/start', { token: superToken, body: { userId: reader.id, tenantId: tenant.id } });
      token = res.json().token;
      return res;
    }, 200);
    expectOne(started, 'impersonation.start', superAdmin.email);
    expect(started[0].targetId).toBe(reader.id);
    expectOne(await audited(() => call(t.app, 'POST', '/api/impersonation/stop', { token }), 200), 'impersonation.stop', reader.email, superAdmin.email);
  });

  it('writes one row for a role change and one for a membership change', async () => {
    const second = await createTenant(t.db);
    const user = await createUser(t.db, tenant.id, { role: 'reader' });
    expectOne(
      await audited(() => call(t.app, 'PATCH', `/api/admin/users/${user.id}`, { token: superToken, body: { role: 'editor' } }), 200),
      'user.role_change',
      superAdmin.email,
    );
    expectOne(
      await audited(() => call(t.app, 'PATCH', `/api/admin/users/${user.id}/tenants`, { token: superToken, body: { tenantIds: [tenant.id, second.id] } }), 200),
      'user.memberships_change',
      superAdmin.email,
    );
  });

  it('writes one row each for a tenant archive, unarchive and delete', async () => {
    const doomed = await createTenant(t.db);
    expectOne(await audited(() => call(t.app, 'PATCH', `/api/tenants/${doomed.id}/archive`, { token: superToken }), 200), 'tenant.archive', superAdmin.email);
    expectOne(
      await audited(() => call(t.app, 'PATCH', `/api/tenants/${doomed.id}/unarchive`, { token: superToken }), 200),
      'tenant.unarchive',
      superAdmin.email,
    );
    await call(t.app, 'PATCH', `/api/tenants/${doomed.id}/archive`, { token: superToken });
    const deleted = await audited(() => call(t.app, 'DELETE', `/api/tenants/${doomed.id}`, { token: superToken }), 204);
    expectOne(deleted, 'tenant.delete', superAdmin.email);
    // The row outlives the tenant it names.
    expect(deleted[0].targetId).toBe(doomed.id);
  });

  it('writes one row each for a service archive, unarchive, move and delete', async () => {
    const target = await createTenant(t.db);
    const d = await seedDataset(t.db, tenant.id, tenant.slug);
    const as = { token: adminToken, tenant: tenant.slug };
    expectOne(await audited(() => call(t.app, 'PATCH', `/api/services/${d.service.id}/archive`, as), 200), 'service.archive', admin.email);
    expectOne(await audited(() => call(t.app, 'PATCH', `/api/services/${d.service.id}/unarchive`, as), 200), 'service.unarchive', admin.email);
    // DELETE /services/:id archives (CONTRACT section 4).
    expectOne(await audited(() => call(t.app, 'DELETE', `/api/services/${d.service.id}`, as), 204), 'service.archive', admin.email);
    expectOne(
      await audited(() => call(t.app, 'DELETE', `/api/services/${d.archivedService.id}/hard-delete`, { token: superToken, tenant: tenant.slug }), 204),
      'service.delete',
      superAdmin.email,
    );
    const movable = await seedDataset(t.db, tenant.id, tenant.slug);
    const moved = await audited(
      () =>
        call(t.app, 'PATCH', `/api/services/${movable.service.id}/move-tenant`, {
          token: superToken,
          tenant: tenant.slug,
          body: { targetTenantId: target.id },
        }),
      200,
    );
    // One row in each tenant's log, so both admins see the move.
    expect(moved.map((r) => r.action)).toEqual(['service.move', 'service.move']);
    expect(new Set(moved.map((r) => r.tenantId))).toEqual(new Set([tenant.id, target.id]));
    expect(moved.every((r) => r.actorEmail === superAdmin.email)).toBe(true);
    checked.push('service.move');
  });

  it('names the super admin behind an impersonation token on the actions taken through it', async () => {
    const d = await seedDataset(t.db, tenant.id, tenant.slug);
    const started = await call(t.app, 'POST', '/api/impersonation/start', { token: superToken, body: { userId: admin.id, tenantId: tenant.id } });
    const token = started.json().token;
    const rows = await audited(() => call(t.app, 'PATCH', `/api/services/${d.service.id}/archive`, { token, tenant: tenant.slug }), 200);
    expectOne(rows, 'service.archive', admin.email, superAdmin.email);
    await call(t.app, 'POST', '/api/impersonation/stop', { token });
  });

  it('shows the rows to the tenant admin and the super admin through the audit calls', async () => {
    const page = (await call(t.app, 'GET', '/api/audit', { token: adminToken, tenant: tenant.slug })).json();
    expect(
      page.entries.some(
        (e: { action: string; impersonator_email: string | null }) => e.action === 'service.archive' && e.impersonator_email === superAdmin.email,
      ),
    ).toBe(true);
    const platform = (await call(t.app, 'GET', '/api/admin/audit', { token: superToken })).json();
    expect(platform.entries.some((e: { action: string }) => e.action === 'tenant.delete')).toBe(true);
  });
});

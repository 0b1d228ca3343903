import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { M } from '../../../common/messages';
import { ADMIN_MESSAGES } from '../../../common/schemas/users';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { TENANT_TABLES } from '../../test/tables';
import {
  assignServiceRole,
  createAspect,
  createCategory,
  createService,
  createTenant,
  createUser,
  createWorld,
  setAvailability,
  type World,
} from '../../test/factories';
import {
  actorRoles,
  apiTokens,
  webhookDeliveries,
  webhookEvents,
  csvApplies,
  webhookEndpoints,
  auditLog,
  availabilityHistory,
  impersonations,
  quickTemplates,
  snapshots,
  tenantInvitations,
  tenantMemberships,
  tenants,
  users,
} from '../../db/schema';

let t: TestApp;
let w: World;
const BAD_ID = 'not-a-uuid';
const MISSING = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

const auditRows = (action: string, targetId: string) =>
  t.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action), eq(auditLog.targetId, targetId)));

describe('GET and POST /api/tenants', () => {
  it('answers 401 without a token and 403 for a tenant admin', async () => {
    expect((await call(t.app, 'GET', '/api/tenants')).statusCode).toBe(401);
    expect((await call(t.app, 'GET', '/api/tenants', { token: w.tokens.admin })).statusCode).toBe(403);
    expect((await call(t.app, 'POST', '/api/tenants', { token: w.tokens.admin, body: { name: 'X', slug: 'x' } })).statusCode).toBe(403);
  });

  it('lists active tenants, and archived ones only when asked', async () => {
    const archived = await createTenant(t.db, { archived: true });
    const active = await call(t.app, 'GET', '/api/tenants', { token: w.tokens.superAdmin });
    expect(active.json().tenants.map((x: { id: string }) => x.id)).not.toContain(archived.id);
    const all = await call(t.app, 'GET', '/api/tenants', { token: w.tokens.superAdmin, query: { includeArchived: 'true' } });
    expect(all.json().tenants.find((x: { id: string }) => x.id === archived.id)).toMatchObject({ archived: true, createdAt: expect.any(String) });
  });

  it('creates a tenant with 201 and audits it; a taken slug is 409; a bad slug is 400', async () => {
    const res = await call(t.app, 'POST', '/api/tenants', { token: w.tokens.superAdmin, body: { name: 'Globex', slug: 'globex' } });
    expect(res.statusCode).toBe(201);
    expect(res.json().tenant).toMatchObject({ name: 'Globex', slug: 'globex', archived: false });
    expect(await auditRows('tenant.create', res.json().tenant.id)).toHaveLength(1);
    const again = await call(t.app, 'POST', '/api/tenants', { token: w.tokens.superAdmin, body: { name: 'Other', slug: 'globex' } });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toBe(M.tenantSlugTaken);
    const bad = await call(t.app, 'POST', '/api/tenants', { token: w.tokens.superAdmin, body: { name: 'Bad', slug: 'Bad Slug' } });
    expect(bad.json()).toMatchObject({ error: M.slugPattern, field: 'slug' });
  });
});

describe('PUT /api/tenants/:id', () => {
  it('renames a tenant, keeps its slug and audits it', async () => {
    const tenant = await createTenant(t.db);
    const res = await call(t.app, 'PUT', `/api/tenants/${tenant.id}`, { token: w.tokens.superAdmin, body: { name: 'Renamed', slug: 'changed' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().tenant).toMatchObject({ id: tenant.id, name: 'Renamed', slug: tenant.slug });
    expect(await auditRows('tenant.update', tenant.id)).toHaveLength(1);
  });

  it('answers 401, 403, 400 for an empty name and 404 for unknown or malformed ids', async () => {
    const tenant = await createTenant(t.db);
    expect((await call(t.app, 'PUT', `/api/tenants/${tenant.id}`, { body: { name: 'x' } })).statusCode).toBe(401);
    expect((await call(t.app, 'PUT', `/api/tenants/${tenant.id}`, { token: w.tokens.admin, body: { name: 'x' } })).statusCode).toBe(403);
    const empty = await call(t.app, 'PUT', `/api/tenants/${tenant.id}`, { token: w.tokens.superAdmin, body: { name: '  ' } });
    expect(empty.json()).toMatchObject({ error: M.tenantNameRequired, field: 'name' });
    expect((await call(t.app, 'PUT', `/api/tenants/${MISSING}`, { token: w.tokens.superAdmin, body: { name: 'x' } })).statusCode).toBe(404);
    expect((await call(t.app, 'PUT', `/api/tenants/${BAD_ID}`, { token: w.tokens.superAdmin, body: { name: 'x' } })).statusCode).toBe(404);
  });
});

describe('PATCH /api/tenants/:id/archive and /unarchive', () => {
  it('archives and unarchives with audit rows', async () => {
    const tenant = await createTenant(t.db);
    const a = await call(t.app, 'PATCH', `/api/tenants/${tenant.id}/archive`, { token: w.tokens.superAdmin });
    expect(a.statusCode).toBe(200);
    expect(a.json().tenant.archived).toBe(true);
    const u = await call(t.app, 'PATCH', `/api/tenants/${tenant.id}/unarchive`, { token: w.tokens.superAdmin });
    expect(u.json().tenant.archived).toBe(false);
    expect(await auditRows('tenant.archive', tenant.id)).toHaveLength(1);
    expect(await auditRows('tenant.unarchive', tenant.id)).toHaveLength(1);
  });

  it('answers 401, 403 and 404', async () => {
    const tenant = await createTenant(t.db);
    expect((await call(t.app, 'PATCH', `/api/tenants/${tenant.id}/archive`)).statusCode).toBe(401);
    expect((await call(t.app, 'PATCH', `/api/tenants/${tenant.id}/archive`, { token: w.tokens.admin })).statusCode).toBe(403);
    expect((await call(t.app, 'PATCH', `/api/tenants/${MISSING}/unarchive`, { token: w.tokens.superAdmin })).statusCode).toBe(404);
    expect((await call(t.app, 'PATCH', `/api/tenants/${BAD_ID}/archive`, { token: w.tokens.superAdmin })).statusCode).toBe(404);
  });

  it('keeps members out of an archived tenant', async () => {
    const tenant = await createTenant(t.db);
    const member = await createUser(t.db, tenant.id, { extraTenantIds: [w.tenant.id] });
    await call(t.app, 'PATCH', `/api/tenants/${tenant.id}/archive`, { token: w.tokens.superAdmin });
    const login = await call(t.app, 'POST', '/api/auth/login', { body: { email: member.email, password: 'correct-horse-battery' } });
    const res = await call(t.app, 'GET', '/api/services', { token: login.json().token, tenant: tenant.slug });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe(M.tenantArchived);
  });
});

/** Rows per tenant-owned table for one tenant. */
async function countRows(tenantId: string) {
  const out: Record<string, number> = {};
  for (const table of TENANT_TABLES) {
    const res = await t.db.execute(sql`select count(*)::int as n from ${sql.identifier(table)} where tenant_id = ${tenantId}`);
    const rows = (Array.isArray(res) ? res : (res as { rows: { n: number }[] }).rows) as { n: number }[];
    out[table] = Number(rows[0].n);
  }
  out.tenants = (await t.db.select().from(tenants).where(eq(tenants.id, tenantId))).length;
  return out;
}

/** A tenant with one row in every table a tenant owns. */
async function populate(tenantId: string, superAdminId: string) {
  const service = await createService(t.db, tenantId);
  const category = await createCategory(t.db, tenantId, service.id);
  const aspect = await createAspect(t.db, tenantId, service.id, category.id);
  await setAvailability(t.db, tenantId, service.id, aspect.id, '2030-Q1', 'Yes');
  await t.db.insert(availabilityHistory).values({ tenantId, serviceId: service.id, aspectId: aspect.id, timeBucket: '2030-Q1', value: 'Yes', changedBy: 'x' });
  await t.db.insert(snapshots).values({ tenantId, serviceId: service.id, label: 'v1', data: {}, createdBy: 'x' });
  await t.db.insert(actorRoles).values({ tenantId, serviceId: service.id, roleName: 'Customer' });
  await t.db.insert(quickTemplates).values({ tenantId, serviceId: service.id, templateText: 'Planned' });
  const member = await createUser(t.db, tenantId, { role: 'editor' });
  await assignServiceRole(t.db, tenantId, service.id, member.id, 'admin');
  await t.db
    .insert(impersonations)
    .values({ superAdminId, impersonatedUserId: member.id, tenantId, tokenJti: `jti-${tenantId}`, expiresAt: new Date(Date.now() + 60_000) });
  await t.db.insert(auditLog).values({ tenantId, action: 'service.create' });
  const outsider = await createUser(t.db, w.tenant.id);
  await t.db
    .insert(tenantInvitations)
    .values({ tenantId, userId: outsider.id, name: 'Invited', role: 'reader', authProvider: 'local', serviceId: service.id, invitedBy: member.id });
  const [hook] = await t.db
    .insert(webhookEndpoints)
    .values({ tenantId: tenantId, url: 'https://hooks.example.com/x', events: ['service.updated'], secret: 'whsec_eA==' })
    .returning();
  await t.db.insert(webhookDeliveries).values({ tenantId: tenantId, endpointId: hook!.id, eventId: 'msg_x', eventType: 'service.updated', data: {} });
  await t.db.insert(webhookEvents).values({ tenantId: tenantId, eventId: 'msg_y', eventType: 'service.updated', data: {} });
  await t.db
    .insert(csvApplies)
    .values({ tenantId, serviceId: service.id, changedBy: 'x', stepCells: 1, journal: { categories: [], aspects: [], updates: [], cells: [] } });
  await t.db.insert(apiTokens).values({ tenantId: tenantId, name: 'Token', role: 'reader', secretHash: `hash-${tenantId}`, hint: 'scat_x' });
  return { service, member };
}

describe('DELETE /api/tenants/:id', () => {
  it('removes every row of the tenant in every table, its primary users, and nothing of other tenants', async () => {
    const victim = await createTenant(t.db, { archived: true });
    const keeper = await createTenant(t.db);
    await populate(victim.id, w.users.superAdmin.id);
    await populate(keeper.id, w.users.superAdmin.id);
    // A user of another tenant who is also a member of the deleted one keeps their account.
    const guest = await createUser(t.db, keeper.id, { extraTenantIds: [victim.id] });

    const before = await countRows(victim.id);
    expect(Object.values(before).every((n) => n > 0)).toBe(true);
    const keeperBefore = await countRows(keeper.id);
    const totalUsers = (await t.db.select().from(users)).length;

    const res = await call(t.app, 'DELETE', `/api/tenants/${victim.id}`, { token: w.tokens.superAdmin });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');

    const after = await countRows(victim.id);
    expect(
      Object.values(after).every((n) => n === 0),
      JSON.stringify(after),
    ).toBe(true);
    expect(await countRows(keeper.id)).toEqual(keeperBefore);
    expect((await t.db.select().from(users)).length).toBe(totalUsers - before.users);
    expect(await t.db.select().from(users).where(eq(users.id, guest.id))).toHaveLength(1);
    expect(await t.db.select().from(tenantMemberships).where(eq(tenantMemberships.userId, guest.id))).toHaveLength(1);
    const audit = await auditRows('tenant.delete', victim.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actorId: w.users.superAdmin.id, tenantId: null });
  });

  it('answers 409 for an active tenant and leaves it in place', async () => {
    const tenant = await createTenant(t.db);
    const res = await call(t.app, 'DELETE', `/api/tenants/${tenant.id}`, { token: w.tokens.superAdmin });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe(ADMIN_MESSAGES.tenantNotArchived);
    expect(await countRows(tenant.id)).toMatchObject({ tenants: 1 });
  });

  it("answers 409 for the acting super admin's own primary tenant", async () => {
    const home = await createTenant(t.db, { archived: true });
    const boss = await createUser(t.db, home.id, { superAdmin: true, role: 'admin' });
    const login = await call(t.app, 'POST', '/api/auth/login', { body: { email: boss.email, password: 'correct-horse-battery' } });
    const res = await call(t.app, 'DELETE', `/api/tenants/${home.id}`, { token: login.json().token });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe(ADMIN_MESSAGES.cannotDeleteOwnTenant);
  });

  it('answers 401, 403 and 404', async () => {
    const tenant = await createTenant(t.db, { archived: true });
    expect((await call(t.app, 'DELETE', `/api/tenants/${tenant.id}`)).statusCode).toBe(401);
    expect((await call(t.app, 'DELETE', `/api/tenants/${tenant.id}`, { token: w.tokens.admin })).statusCode).toBe(403);
    expect((await call(t.app, 'DELETE', `/api/tenants/${MISSING}`, { token: w.tokens.superAdmin })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/api/tenants/${BAD_ID}`, { token: w.tokens.superAdmin })).statusCode).toBe(404);
  });
});

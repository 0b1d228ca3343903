import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../common/messages';
import { SETTINGS_MESSAGES } from '../../../common/schemas/settings';
import { aspects, auditLog, availabilities, categories, services, serviceRoleAssignments } from '../../db/schema';
import { buildTestApp, call, type TestApp } from '../../test/app';
import {
  assignServiceRole,
  createAspect,
  createCategory,
  createService,
  createTenant,
  createUser,
  createWorld,
  setAvailability,
  signIn,
  type World,
} from '../../test/factories';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

const as = (token: string, tenant = w.tenant.slug) => ({ token, tenant });
const move = (serviceId: string, targetTenantId: unknown, token = w.tokens.superAdmin, tenant = w.tenant.slug) =>
  call(t.app, 'PATCH', `/api/services/${serviceId}/move-tenant`, { ...as(token, tenant), body: { targetTenantId } });

describe('PATCH /api/services/:id/move-tenant', () => {
  it('moves the service with all its content, drops assignments of non-members and audits both tenants', async () => {
    const target = await createTenant(t.db);
    const s = await createService(t.db, w.tenant.id);
    const c = await createCategory(t.db, w.tenant.id, s.id);
    const a = await createAspect(t.db, w.tenant.id, s.id, c.id);
    await setAvailability(t.db, w.tenant.id, s.id, a.id, s.timeline[0]!, 'Beta');
    const stays = await createUser(t.db, w.tenant.id, { extraTenantIds: [target.id] });
    await assignServiceRole(t.db, w.tenant.id, s.id, stays.id, 'editor');
    await assignServiceRole(t.db, w.tenant.id, s.id, w.users.reader.id, 'editor');
    const res = await move(s.id, target.id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ service: { id: s.id, tenant_id: target.id }, droppedAssignments: 1 });
    const [cat] = await t.db.select().from(categories).where(eq(categories.id, c.id));
    const [asp] = await t.db.select().from(aspects).where(eq(aspects.id, a.id));
    const [av] = await t.db.select().from(availabilities).where(eq(availabilities.aspectId, a.id));
    expect([cat!.tenantId, asp!.tenantId, av!.tenantId]).toEqual([target.id, target.id, target.id]);
    const left = await t.db.select().from(serviceRoleAssignments).where(eq(serviceRoleAssignments.serviceId, s.id));
    expect(left.map((x) => [x.userId, x.tenantId])).toEqual([[stays.id, target.id]]);
    const audits = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'service.move'), eq(auditLog.targetId, s.id)));
    expect(audits.map((x) => x.tenantId).sort()).toEqual([w.tenant.id, target.id].sort());
    expect((await call(t.app, 'GET', `/api/services/${s.id}/settings-data`, as(w.tokens.admin))).statusCode).toBe(404);
  });

  it('unpublishes a published service: the target tenant decides whether it is public there', async () => {
    const target = await createTenant(t.db);
    const s = await createService(t.db, w.tenant.id, { published: true });
    const res = await move(s.id, target.id);
    expect(res.statusCode).toBe(200);
    expect(res.json().service.published).toBe(false);
    expect((await t.app.inject({ method: 'GET', url: `/p/${target.slug}/${s.slug}` })).statusCode).toBe(404);
  });

  it('lets a tenant admin move only to a tenant they belong to', async () => {
    const target = await createTenant(t.db);
    const stranger = await createTenant(t.db);
    const admin = await createUser(t.db, w.tenant.id, { role: 'admin', extraTenantIds: [target.id] });
    const token = await signIn(t.app, admin.email);
    const s = await createService(t.db, w.tenant.id);
    const denied = await move(s.id, stranger.id, token);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error).toBe(SETTINGS_MESSAGES.targetNotAllowed);
    expect((await move(s.id, target.id, token)).statusCode).toBe(200);
  });

  it('answers 409 when the slug is taken in the target, or the service is archived', async () => {
    const target = await createTenant(t.db);
    const s = await createService(t.db, w.tenant.id);
    await createService(t.db, target.id, { slug: s.slug });
    const taken = await move(s.id, target.id);
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error).toBe(SETTINGS_MESSAGES.targetSlugTaken);
    const archived = await createService(t.db, w.tenant.id, { archived: true });
    const res = await move(archived.id, target.id);
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe(M.serviceArchivedConflict);
  });

  it('answers 400 without a target, for the same tenant, 404 for an unknown or archived target', async () => {
    const s = await createService(t.db, w.tenant.id);
    for (const target of [undefined, '', 'nope']) {
      const res = await move(s.id, target);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: M.selectTargetTenant, field: 'targetTenantId' });
    }
    expect((await move(s.id, w.tenant.id)).json().error).toBe(SETTINGS_MESSAGES.sameTenant);
    const archivedTenant = await createTenant(t.db, { archived: true });
    expect((await move(s.id, archivedTenant.id)).statusCode).toBe(404);
    expect((await move(s.id, '00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
  });

  it('answers 401, 403 to an editor and to a user raised to admin by assignment, 404 to another tenant', async () => {
    const target = await createTenant(t.db);
    const s = await createService(t.db, w.tenant.id);
    await assignServiceRole(t.db, w.tenant.id, s.id, w.users.editor.id, 'admin');
    expect((await call(t.app, 'PATCH', `/api/services/${s.id}/move-tenant`, { body: { targetTenantId: target.id } })).statusCode).toBe(401);
    expect((await move(s.id, target.id, w.tokens.reader)).statusCode).toBe(403);
    expect((await move(s.id, target.id, w.tokens.editor)).statusCode).toBe(403);
    expect((await move(s.id, target.id, w.tokens.otherAdmin, w.other.slug)).statusCode).toBe(404);
  });
});

describe('DELETE /api/services/:id/hard-delete', () => {
  it('lets a super admin remove an archived service and everything in it', async () => {
    const s = await createService(t.db, w.tenant.id, { archived: true });
    const c = await createCategory(t.db, w.tenant.id, s.id);
    await createAspect(t.db, w.tenant.id, s.id, c.id);
    const res = await call(t.app, 'DELETE', `/api/services/${s.id}/hard-delete`, as(w.tokens.superAdmin));
    expect(res.statusCode).toBe(204);
    expect(await t.db.select().from(services).where(eq(services.id, s.id))).toEqual([]);
    expect(await t.db.select().from(categories).where(eq(categories.serviceId, s.id))).toEqual([]);
    const audits = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'service.delete'), eq(auditLog.targetId, s.id)));
    expect(audits).toHaveLength(1);
  });

  it('answers 409 for an active service', async () => {
    const s = await createService(t.db, w.tenant.id);
    const res = await call(t.app, 'DELETE', `/api/services/${s.id}/hard-delete`, as(w.tokens.superAdmin));
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe(SETTINGS_MESSAGES.notArchived);
  });

  it('answers 401, 403 to an admin, 404 for another tenant and a malformed id', async () => {
    const s = await createService(t.db, w.tenant.id, { archived: true });
    const o = await createService(t.db, w.other.id, { archived: true });
    expect((await call(t.app, 'DELETE', `/api/services/${s.id}/hard-delete`)).statusCode).toBe(401);
    expect((await call(t.app, 'DELETE', `/api/services/${s.id}/hard-delete`, as(w.tokens.admin))).statusCode).toBe(403);
    expect((await call(t.app, 'DELETE', `/api/services/${o.id}/hard-delete`, as(w.tokens.superAdmin))).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', '/api/services/x/hard-delete', as(w.tokens.superAdmin))).statusCode).toBe(404);
  });
});

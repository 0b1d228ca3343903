import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { assignServiceRole, createAspect, createCategory, createService, setAvailability } from '../../test/factories';
import { eq } from 'drizzle-orm';
import { actorRoles, aspects, availabilities, categories, quickTemplates, serviceRoleAssignments } from '../../db/schema';
import { as, countStatements, createCatalogWorld, type CatalogWorld } from './catalog.fixtures';
import { NO_SERVICE_PERMISSIONS as NONE } from '../../../common/permissions';

let t: TestApp;
let w: CatalogWorld;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createCatalogWorld(t);
  await setAvailability(t.db, w.tenant.id, w.service.id, w.publicAspect.id, w.service.timeline[0]!, 'Available');
  await setAvailability(t.db, w.tenant.id, w.service.id, w.publicAspect.id, '2001-Q1', 'Kept outside the timeline');
  await setAvailability(t.db, w.tenant.id, w.service.id, w.privateAspect.id, w.service.timeline[1]!, 'Secret');
  // Written out of order: the body lists them in quarter order.
  await setAvailability(t.db, w.tenant.id, w.service.id, w.privateAspect.id, w.service.timeline[3]!, 'Later');
  await setAvailability(t.db, w.tenant.id, w.service.id, w.privateAspect.id, w.service.timeline[0]!, 'Sooner');
  await t.db.insert(actorRoles).values({ tenantId: w.tenant.id, serviceId: w.service.id, roleName: 'Student', position: 0 });
  await t.db.insert(quickTemplates).values({ tenantId: w.tenant.id, serviceId: w.service.id, templateText: 'Available', position: 0 });
});
afterAll(() => t.close());

const full = (who: Parameters<typeof as>[2], id = w.service.id) => as(t, w, who)('GET', `/api/services/${id}/full`);
const titles = (body: any) => body.resolved_data.aspects.map((a: { title: string }) => a.title);

describe('GET /api/services/:id/full', () => {
  it('answers 401 without a token', async () => {
    expect((await full('nobody')).statusCode).toBe(401);
  });

  it('answers 404 for another tenant’s service and for a malformed id', async () => {
    expect((await full('admin', w.foreign.id)).statusCode).toBe(404);
    expect((await full('admin', 'not-a-uuid')).statusCode).toBe(404);
  });

  it('answers the contract shape to an editor, private aspects included, availabilities over the timeline', async () => {
    const res = await full('editor');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.service).toMatchObject({ id: w.service.id, slug: w.service.slug });
    expect(body.categories).toEqual([{ id: w.category.id, name: 'Core Features', position: 0, serviceId: w.service.id, service_id: w.service.id }]);
    expect(body.resolved_data.timeline).toEqual(w.service.timeline);
    expect(body.resolved_data.aspects[0]).toMatchObject({
      id: w.publicAspect.id,
      title: 'Public aspect',
      is_public: true,
      category_id: w.category.id,
      position: 0,
      version: 1,
      availabilities: { [w.service.timeline[0]!]: 'Available' },
    });
    expect(body.resolved_data.aspects[1]).toMatchObject({ id: w.privateAspect.id, is_public: false });
    const tl = w.service.timeline;
    expect(Object.entries(body.resolved_data.aspects[1].availabilities)).toEqual([
      [tl[0], 'Sooner'],
      [tl[1], 'Secret'],
      [tl[3], 'Later'],
    ]);
    expect(body.roles).toEqual([{ id: expect.any(String), role_name: 'Student', position: 0 }]);
    expect(body.templates).toEqual([{ id: expect.any(String), template_text: 'Available', position: 0 }]);
    expect(body.permissions).toEqual({ ...NONE, canView: true, canViewPrivate: true, canEdit: true, canManageSettings: true });
  });

  it('never gives a reader private aspects or their availabilities', async () => {
    const body = (await full('reader')).json();
    expect(titles(body)).toEqual(['Public aspect']);
    expect(JSON.stringify(body)).not.toContain('Secret');
    expect(body.permissions).toEqual({ ...NONE, canView: true });
  });

  it('tells admins and super admins their rights', async () => {
    const admin = { ...NONE, canView: true, canViewPrivate: true, canEdit: true, canManageSettings: true, canAdmin: true, canManageUsers: true, canMove: true };
    expect((await full('admin')).json().permissions).toEqual(admin);
    expect((await full('superAdmin')).json().permissions).toEqual({ ...admin, canHardDelete: true });
  });

  it('a service role assignment raises a reader to editor on that one service only', async () => {
    const other = await createService(t.db, w.tenant.id);
    const otherCategory = await createCategory(t.db, w.tenant.id, other.id);
    const hidden = await createAspect(t.db, w.tenant.id, other.id, otherCategory.id, { isPublic: false });
    const assignment = await assignServiceRole(t.db, w.tenant.id, w.service.id, w.users.reader.id, 'editor');
    try {
      const raised = (await full('reader')).json();
      expect(raised.permissions.canEdit).toBe(true);
      expect(titles(raised)).toContain('Private aspect');
      const put = await as(t, w, 'reader')('PUT', `/api/aspects/${w.publicAspect.id}`, { title: 'Public aspect', description: '' });
      expect(put.statusCode).toBe(200);
      const elsewhere = (await full('reader', other.id)).json();
      expect(elsewhere.permissions.canEdit).toBe(false);
      expect(elsewhere.resolved_data.aspects).toEqual([]);
      expect((await as(t, w, 'reader')('DELETE', `/api/aspects/${hidden.id}`)).statusCode).toBe(404);
    } finally {
      await t.db.delete(serviceRoleAssignments).where(eq(serviceRoleAssignments.id, assignment!.id));
    }
  });

  it('uses the same number of SQL statements for a small and a large service', async () => {
    const small = await createService(t.db, w.tenant.id);
    const smallCategory = await createCategory(t.db, w.tenant.id, small.id);
    await createAspect(t.db, w.tenant.id, small.id, smallCategory.id);
    const large = await createService(t.db, w.tenant.id);
    const cats = await t.db
      .insert(categories)
      .values(Array.from({ length: 12 }, (_, i) => ({ tenantId: w.tenant.id, serviceId: large.id, name: `C${i}`, position: i })))
      .returning();
    const rows = await t.db
      .insert(aspects)
      .values(
        cats.flatMap((c) =>
          Array.from({ length: 10 }, (_, i) => ({ tenantId: w.tenant.id, serviceId: large.id, categoryId: c.id, title: `A${i}`, position: i })),
        ),
      )
      .returning();
    await t.db
      .insert(availabilities)
      .values(rows.flatMap((a) => large.timeline.map((q) => ({ tenantId: w.tenant.id, serviceId: large.id, aspectId: a.id, timeBucket: q, value: 'x' }))));
    const token = w.tokens.editor;
    const smallCount = await countStatements(t, () => call(t.app, 'GET', `/api/services/${small.id}/full`, { token }));
    let largeBody: any;
    const largeCount = await countStatements(t, async () => {
      largeBody = (await call(t.app, 'GET', `/api/services/${large.id}/full`, { token })).json();
    });
    expect(largeBody.resolved_data.aspects).toHaveLength(120);
    expect(largeBody.resolved_data.aspects[119].availabilities[large.timeline[7]!]).toBe('x');
    expect(smallCount).toBeGreaterThan(0);
    expect(largeCount).toBe(smallCount);
    expect(largeCount).toBeLessThanOrEqual(12);
  });
});

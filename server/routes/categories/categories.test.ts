import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { M } from '../../../common/messages';
import { buildTestApp, type TestApp } from '../../test/app';
import { createAspect, createCategory, createService } from '../../test/factories';
import { aspects, auditLog, services } from '../../db/schema';
import { as, createCatalogWorld, type CatalogWorld, type Who } from '../services/catalog.fixtures';

let t: TestApp;
let w: CatalogWorld;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createCatalogWorld(t);
});
afterAll(() => t.close());

const api = (who: Who) => as(t, w, who);
const serviceVersion = async (id: string) => (await t.db.select().from(services).where(eq(services.id, id)))[0]!.version;

describe('GET /api/categories/service/:id', () => {
  it('answers 401 without a token', async () => {
    expect((await api('nobody')('GET', `/api/categories/service/${w.service.id}`)).statusCode).toBe(401);
  });

  it('answers a reader the categories ordered by position', async () => {
    const service = await createService(t.db, w.tenant.id);
    await createCategory(t.db, w.tenant.id, service.id, 'Second', 2);
    await createCategory(t.db, w.tenant.id, service.id, 'First', 1);
    const res = await api('reader')('GET', `/api/categories/service/${service.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().categories.map((c: { name: string }) => c.name)).toEqual(['First', 'Second']);
    expect(res.json().categories[0]).toMatchObject({ position: 1, serviceId: service.id, service_id: service.id });
  });

  it('answers 404 for another tenant’s service and a malformed id', async () => {
    expect((await api('admin')('GET', `/api/categories/service/${w.foreign.id}`)).statusCode).toBe(404);
    expect((await api('admin')('GET', '/api/categories/service/xyz')).statusCode).toBe(404);
  });
});

describe('POST /api/categories', () => {
  it('answers 401 without a token', async () => {
    expect((await api('nobody')('POST', '/api/categories', { serviceId: w.service.id, name: 'X' })).statusCode).toBe(401);
  });

  it.each([
    [{ name: 'X' }, 'serviceId'],
    [{ serviceId: 'not-a-uuid', name: 'X' }, 'serviceId'],
    [{ serviceId: '00000000-0000-4000-8000-000000000000', position: -1, name: 'X' }, 'position'],
  ])('answers 400 for %j', async (body, field) => {
    const res = await api('editor')('POST', '/api/categories', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().field).toBe(field);
  });

  it('answers 400 "Category name is required" for a missing or blank name', async () => {
    for (const name of [undefined, '', '   ']) {
      const res = await api('editor')('POST', '/api/categories', { serviceId: w.service.id, name });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: M.categoryNameRequired, field: 'name' });
    }
  });

  it('answers 403 to a reader, 404 for another tenant’s service, 409 on an archived service', async () => {
    expect((await api('reader')('POST', '/api/categories', { serviceId: w.service.id, name: 'X' })).statusCode).toBe(403);
    expect((await api('admin')('POST', '/api/categories', { serviceId: w.foreign.id, name: 'X' })).statusCode).toBe(404);
    const archived = await api('admin')('POST', '/api/categories', { serviceId: w.archived.id, name: 'X' });
    expect(archived.statusCode).toBe(409);
    expect(archived.json().error).toBe(M.serviceArchivedConflict);
  });

  it('creates a category after the last one and bumps the service version', async () => {
    const service = await createService(t.db, w.tenant.id);
    await createCategory(t.db, w.tenant.id, service.id, 'Existing', 4);
    const res = await api('editor')('POST', '/api/categories', { serviceId: service.id, name: '  Operations ' });
    expect(res.statusCode).toBe(201);
    expect(res.json().category).toMatchObject({ name: 'Operations', position: 5, serviceId: service.id });
    expect(await serviceVersion(service.id)).toBe(service.version + 1);
    const placed = await api('editor')('POST', '/api/categories', { serviceId: service.id, name: 'Placed', position: 0 });
    expect(placed.json().category.position).toBe(0);
  });
});

describe('PUT /api/categories/:id', () => {
  it('answers 401, 400, 403, 404 and 409 as it should', async () => {
    const url = `/api/categories/${w.category.id}`;
    expect((await api('nobody')('PUT', url, { name: 'X' })).statusCode).toBe(401);
    const blank = await api('editor')('PUT', url, { name: ' ' });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().error).toBe(M.categoryNameRequired);
    expect((await api('reader')('PUT', url, { name: 'X' })).statusCode).toBe(403);
    expect((await api('admin')('PUT', `/api/categories/${w.foreignCategory.id}`, { name: 'X' })).statusCode).toBe(404);
    expect((await api('admin')('PUT', '/api/categories/123', { name: 'X' })).statusCode).toBe(404);
    expect((await api('admin')('PUT', `/api/categories/${w.archivedCategory.id}`, { name: 'X' })).statusCode).toBe(409);
  });

  it('renames a category', async () => {
    const service = await createService(t.db, w.tenant.id);
    const category = await createCategory(t.db, w.tenant.id, service.id, 'Old');
    const res = await api('editor')('PUT', `/api/categories/${category.id}`, { name: 'New' });
    expect(res.statusCode).toBe(200);
    expect(res.json().category).toMatchObject({ id: category.id, name: 'New' });
    expect(await serviceVersion(service.id)).toBe(service.version + 1);
  });
});

describe('DELETE /api/categories/:id', () => {
  it('answers 401, 403, 404 and 409 as it should', async () => {
    const url = `/api/categories/${w.category.id}`;
    expect((await api('nobody')('DELETE', url)).statusCode).toBe(401);
    expect((await api('reader')('DELETE', url)).statusCode).toBe(403);
    expect((await api('admin')('DELETE', `/api/categories/${w.foreignCategory.id}`)).statusCode).toBe(404);
    expect((await api('admin')('DELETE', '/api/categories/nope')).statusCode).toBe(404);
    expect((await api('admin')('DELETE', `/api/categories/${w.archivedCategory.id}`)).statusCode).toBe(409);
  });

  it('deletes the category with its aspects and writes an audit row', async () => {
    const service = await createService(t.db, w.tenant.id);
    const category = await createCategory(t.db, w.tenant.id, service.id);
    const aspect = await createAspect(t.db, w.tenant.id, service.id, category.id);
    const res = await api('editor')('DELETE', `/api/categories/${category.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await t.db.select().from(aspects).where(eq(aspects.id, aspect.id))).toEqual([]);
    const audit = await t.db.select().from(auditLog).where(eq(auditLog.targetId, category.id));
    expect(audit.map((a) => a.action)).toEqual(['category.delete']);
    expect(await serviceVersion(service.id)).toBe(service.version + 1);
  });
});

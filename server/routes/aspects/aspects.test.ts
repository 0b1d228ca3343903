import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { M } from '../../../common/messages';
import { CATALOG_MESSAGES as C } from '../../../common/schemas/catalog';
import { buildTestApp, type TestApp } from '../../test/app';
import { createAspect, createCategory, createService } from '../../test/factories';
import { auditLog, services } from '../../db/schema';
import { as, createCatalogWorld, isSanitised, HOSTILE_HTML, type CatalogWorld, type Who } from '../services/catalog.fixtures';

let t: TestApp;
let w: CatalogWorld;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createCatalogWorld(t);
});
afterAll(() => t.close());

const api = (who: Who) => as(t, w, who);
const ids = (res: { json: () => any }) => res.json().aspects.map((a: { id: string }) => a.id);
const serviceVersion = async (id: string) => (await t.db.select().from(services).where(eq(services.id, id)))[0]!.version;

/** A fresh service with one category of three aspects, for tests that change things. */
async function freshCategory() {
  const service = await createService(t.db, w.tenant.id);
  const category = await createCategory(t.db, w.tenant.id, service.id);
  const list = [];
  for (let i = 0; i < 3; i++) list.push(await createAspect(t.db, w.tenant.id, service.id, category.id, { position: i, title: `A${i}` }));
  return { service, category, aspects: list };
}

describe('GET /api/aspects/service/:id', () => {
  const url = () => `/api/aspects/service/${w.service.id}`;

  it('answers 401 without a token, 400 for a bad showPrivate, 404 for foreign and malformed ids', async () => {
    expect((await api('nobody')('GET', url())).statusCode).toBe(401);
    expect((await api('editor')('GET', `${url()}?showPrivate=maybe`)).statusCode).toBe(400);
    expect((await api('admin')('GET', `/api/aspects/service/${w.foreign.id}`)).statusCode).toBe(404);
    expect((await api('admin')('GET', '/api/aspects/service/abc')).statusCode).toBe(404);
  });

  it('gives private aspects to editors who ask, and never to readers', async () => {
    expect(ids(await api('editor')('GET', `${url()}?showPrivate=true`))).toEqual([w.publicAspect.id, w.privateAspect.id]);
    expect(ids(await api('editor')('GET', url()))).toEqual([w.publicAspect.id]);
    expect(ids(await api('reader')('GET', `${url()}?showPrivate=true`))).toEqual([w.publicAspect.id]);
  });
});

describe('GET /api/aspects/:id', () => {
  it('answers 401, 404 for foreign and malformed ids, and 404 to a reader for a private aspect', async () => {
    expect((await api('nobody')('GET', `/api/aspects/${w.publicAspect.id}`)).statusCode).toBe(401);
    expect((await api('admin')('GET', `/api/aspects/${w.foreignAspect.id}`)).statusCode).toBe(404);
    expect((await api('admin')('GET', '/api/aspects/1')).statusCode).toBe(404);
    expect((await api('reader')('GET', `/api/aspects/${w.privateAspect.id}`)).statusCode).toBe(404);
  });

  it('answers the aspect with its availabilities', async () => {
    const res = await api('reader')('GET', `/api/aspects/${w.publicAspect.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().aspect).toMatchObject({ id: w.publicAspect.id, is_public: true, category_id: w.category.id, availabilities: {} });
    expect((await api('editor')('GET', `/api/aspects/${w.privateAspect.id}`)).json().aspect.is_public).toBe(false);
  });
});

describe('POST /api/aspects', () => {
  const body = (over: Record<string, unknown> = {}) => ({
    serviceId: w.service.id,
    categoryId: w.category.id,
    title: 'New',
    description: '',
    isPublic: true,
    ...over,
  });

  it('answers 401 without a token', async () => {
    expect((await api('nobody')('POST', '/api/aspects', body())).statusCode).toBe(401);
  });

  it.each([
    [{ title: '' }, M.aspectTitleRequired, 'title'],
    [{ title: undefined }, M.aspectTitleRequired, 'title'],
    [{ categoryId: undefined }, M.aspectCategoryRequired, 'categoryId'],
    [{ isPublic: 'yes' }, 'isPublic must be true or false', 'isPublic'],
  ])('answers 400 for %j', async (over, error, field) => {
    const res = await api('editor')('POST', '/api/aspects', body(over));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error, field });
  });

  it('answers 400 when the category belongs to another service or tenant', async () => {
    const other = await freshCategory();
    for (const categoryId of [other.category.id, w.foreignCategory.id]) {
      const res = await api('editor')('POST', '/api/aspects', body({ categoryId }));
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe(C.categoryNotInService);
    }
  });

  it('answers 403 to a reader, 404 for another tenant’s service, 409 on an archived service', async () => {
    expect((await api('reader')('POST', '/api/aspects', body())).statusCode).toBe(403);
    expect((await api('admin')('POST', '/api/aspects', body({ serviceId: w.foreign.id, categoryId: w.foreignCategory.id }))).statusCode).toBe(404);
    const res = await api('admin')('POST', '/api/aspects', body({ serviceId: w.archived.id, categoryId: w.archivedCategory.id }));
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe(M.serviceArchivedConflict);
  });

  it('creates an aspect last in its category with a sanitised description', async () => {
    const f = await freshCategory();
    const res = await api('editor')(
      'POST',
      '/api/aspects',
      body({ serviceId: f.service.id, categoryId: f.category.id, description: HOSTILE_HTML, isPublic: false }),
    );
    expect(res.statusCode).toBe(201);
    const { aspect } = res.json();
    expect(aspect).toMatchObject({ title: 'New', is_public: false, position: 3, category_id: f.category.id, version: 1, availabilities: {} });
    expect(aspect.description).toContain('<strong>bold</strong>');
    expect(isSanitised(aspect.description)).toBe(true);
    expect(await serviceVersion(f.service.id)).toBe(f.service.version + 1);
  });

  it('creates a private aspect when isPublic is left out, and a public one only when asked', async () => {
    const f = await freshCategory();
    const { isPublic: _left, ...withoutFlag } = body({ serviceId: f.service.id, categoryId: f.category.id });
    const quiet = await api('editor')('POST', '/api/aspects', withoutFlag);
    expect(quiet.statusCode).toBe(201);
    expect(quiet.json().aspect.is_public).toBe(false);
    const shown = await api('editor')('POST', '/api/aspects', { ...withoutFlag, isPublic: true });
    expect(shown.json().aspect.is_public).toBe(true);
    // A reader, who never receives private aspects, sees only the one asked to be public.
    const listed = ids(await api('reader')('GET', `/api/aspects/service/${f.service.id}`));
    expect(listed).toContain(shown.json().aspect.id);
    expect(listed).not.toContain(quiet.json().aspect.id);
  });
});

describe('PUT /api/aspects/:id', () => {
  it('answers 401, 400, 403, 404 and 409 (archived) as it should', async () => {
    const url = `/api/aspects/${w.publicAspect.id}`;
    expect((await api('nobody')('PUT', url, { title: 'X' })).statusCode).toBe(401);
    const blank = await api('editor')('PUT', url, { title: '  ' });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().error).toBe(M.aspectTitleRequired);
    expect((await api('editor')('PUT', url, { title: 'X', version: 'one' })).statusCode).toBe(400);
    expect((await api('reader')('PUT', url, { title: 'X' })).statusCode).toBe(403);
    expect((await api('admin')('PUT', `/api/aspects/${w.foreignAspect.id}`, { title: 'X' })).statusCode).toBe(404);
    expect((await api('admin')('PUT', '/api/aspects/zz', { title: 'X' })).statusCode).toBe(404);
    expect((await api('admin')('PUT', `/api/aspects/${w.archivedAspect.id}`, { title: 'X' })).statusCode).toBe(409);
  });

  it('updates, sanitises and bumps the aspect version; a stale version answers 409 with the current aspect', async () => {
    const f = await freshCategory();
    const url = `/api/aspects/${f.aspects[0]!.id}`;
    const first = await api('editor')('PUT', url, { title: 'Edited', description: HOSTILE_HTML, isPublic: false, version: 1 });
    expect(first.statusCode).toBe(200);
    expect(first.json().aspect).toMatchObject({ title: 'Edited', is_public: false, version: 2 });
    expect(isSanitised(first.json().aspect.description)).toBe(true);
    const stale = await api('admin')('PUT', url, { title: 'Lost update', description: '', version: 1 });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'conflict', error: C.aspectChanged, current: { title: 'Edited', version: 2 } });
    const noVersion = await api('admin')('PUT', url, { title: 'Last word', description: '' });
    expect(noVersion.json().aspect).toMatchObject({ title: 'Last word', version: 3, is_public: false });
  });

  it('moves an aspect to the end of another category of the same service, with an audit row naming both', async () => {
    const f = await freshCategory();
    const target = await createCategory(t.db, w.tenant.id, f.service.id, 'Target', 1);
    await createAspect(t.db, w.tenant.id, f.service.id, target.id, { position: 0 });
    await createAspect(t.db, w.tenant.id, f.service.id, target.id, { position: 4 });
    const res = await api('editor')('PUT', `/api/aspects/${f.aspects[0]!.id}`, { title: 'Moved', categoryId: target.id });
    expect(res.statusCode).toBe(200);
    expect(res.json().aspect).toMatchObject({ category_id: target.id, position: 5 });
    const listed = await api('editor')('GET', `/api/aspects/service/${f.service.id}?showPrivate=true`);
    const inTarget = listed.json().aspects.filter((a: { category_id: string }) => a.category_id === target.id);
    expect(inTarget.at(-1).id).toBe(f.aspects[0]!.id);
    const audit = await t.db.select().from(auditLog).where(eq(auditLog.targetId, f.aspects[0]!.id));
    expect(audit.map((a) => a.action)).toEqual(['aspect.move']);
    expect(audit[0]!.details).toMatchObject({
      serviceId: f.service.id,
      title: 'Moved',
      from: { id: f.category.id, name: f.category.name },
      to: { id: target.id, name: 'Target' },
    });
    // Saving with the category it already has is an edit, not a move.
    await api('editor')('PUT', `/api/aspects/${f.aspects[0]!.id}`, { title: 'Moved again', categoryId: target.id });
    const after = await t.db.select().from(auditLog).where(eq(auditLog.targetId, f.aspects[0]!.id));
    expect(after.map((a) => a.action).sort()).toEqual(['aspect.move', 'aspect.update']);
  });

  it('refuses a move to a category of another service (400), of another tenant (404), by a reader (403), on an archived service (409)', async () => {
    const f = await freshCategory();
    const target = await createCategory(t.db, w.tenant.id, f.service.id, 'Target', 1);
    const url = `/api/aspects/${f.aspects[1]!.id}`;
    const wrong = await api('editor')('PUT', url, { title: 'X', categoryId: w.category.id });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ error: C.categoryNotInService, field: 'categoryId' });
    expect((await api('admin')('PUT', url, { title: 'X', categoryId: w.foreignCategory.id })).statusCode).toBe(404);
    expect((await api('reader')('PUT', url, { title: 'X', categoryId: target.id })).statusCode).toBe(403);
    expect((await api('admin')('PUT', `/api/aspects/${w.foreignAspect.id}`, { title: 'X', categoryId: target.id })).statusCode).toBe(404);
    const archivedTarget = await createCategory(t.db, w.tenant.id, w.archived.id, 'Archived target', 1);
    const archived = await api('admin')('PUT', `/api/aspects/${w.archivedAspect.id}`, { title: 'X', categoryId: archivedTarget.id });
    expect(archived.statusCode).toBe(409);
    const stayed = await api('editor')('GET', url);
    expect(stayed.json().aspect).toMatchObject({ category_id: f.category.id, title: 'A1' });
    const audit = await t.db.select().from(auditLog).where(eq(auditLog.targetId, f.aspects[1]!.id));
    expect(audit).toEqual([]);
  });
});

describe('DELETE /api/aspects/:id', () => {
  it('answers 401, 403, 404 and 409 as it should', async () => {
    expect((await api('nobody')('DELETE', `/api/aspects/${w.publicAspect.id}`)).statusCode).toBe(401);
    expect((await api('reader')('DELETE', `/api/aspects/${w.publicAspect.id}`)).statusCode).toBe(403);
    expect((await api('admin')('DELETE', `/api/aspects/${w.foreignAspect.id}`)).statusCode).toBe(404);
    expect((await api('admin')('DELETE', '/api/aspects/0')).statusCode).toBe(404);
    expect((await api('admin')('DELETE', `/api/aspects/${w.archivedAspect.id}`)).statusCode).toBe(409);
  });

  it('deletes the aspect with an audit row', async () => {
    const f = await freshCategory();
    const res = await api('editor')('DELETE', `/api/aspects/${f.aspects[0]!.id}`);
    expect(res.statusCode).toBe(204);
    expect((await api('editor')('GET', `/api/aspects/${f.aspects[0]!.id}`)).statusCode).toBe(404);
    const audit = await t.db.select().from(auditLog).where(eq(auditLog.targetId, f.aspects[0]!.id));
    expect(audit.map((a) => a.action)).toEqual(['aspect.delete']);
  });
});

describe('PATCH /api/aspects/reorder', () => {
  it('answers 401 without a token', async () => {
    expect((await api('nobody')('PATCH', '/api/aspects/reorder', { categoryId: w.category.id, aspectIds: [] })).statusCode).toBe(401);
  });

  it('answers 400 for foreign, missing or duplicate ids and a malformed body', async () => {
    const f = await freshCategory();
    const [a, b, c] = f.aspects.map((x) => x.id) as [string, string, string];
    for (const aspectIds of [[a, b], [a, b, c, w.publicAspect.id], [a, b, b], [a, b, w.foreignAspect.id], 'all']) {
      const res = await api('editor')('PATCH', '/api/aspects/reorder', { categoryId: f.category.id, aspectIds });
      expect(res.statusCode).toBe(400);
      expect(res.json().field).toMatch(/^aspectIds/);
    }
    expect((await api('editor')('PATCH', '/api/aspects/reorder', { aspectIds: [a] })).statusCode).toBe(400);
  });

  it('answers 403 to a reader, 404 for another tenant’s category, 409 on an archived service', async () => {
    expect((await api('reader')('PATCH', '/api/aspects/reorder', { categoryId: w.category.id, aspectIds: [] })).statusCode).toBe(403);
    expect((await api('admin')('PATCH', '/api/aspects/reorder', { categoryId: w.foreignCategory.id, aspectIds: [w.foreignAspect.id] })).statusCode).toBe(404);
    const res = await api('admin')('PATCH', '/api/aspects/reorder', { categoryId: w.archivedCategory.id, aspectIds: [w.archivedAspect.id] });
    expect(res.statusCode).toBe(409);
  });

  it('reorders the aspects of a category', async () => {
    const f = await freshCategory();
    const order = [f.aspects[2]!.id, f.aspects[0]!.id, f.aspects[1]!.id];
    const res = await api('editor')('PATCH', '/api/aspects/reorder', { categoryId: f.category.id, aspectIds: order });
    expect(res.statusCode).toBe(200);
    expect(ids(res)).toEqual(order);
    expect(ids(await api('editor')('GET', `/api/aspects/service/${f.service.id}?showPrivate=true`))).toEqual(order);
    expect(await serviceVersion(f.service.id)).toBe(f.service.version + 1);
  });
});

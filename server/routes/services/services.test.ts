import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../common/messages';
import { defaultTimeline } from '../../../common/quarters';
import { TIMELINE_ORDER, TIMELINE_TOO_LONG } from '../../../common/schemas/services';
import { buildTestApp, type TestApp } from '../../test/app';
import { createService } from '../../test/factories';
import { auditLog } from '../../db/schema';
import { as, createCatalogWorld, isSanitised, HOSTILE_HTML, type CatalogWorld } from './catalog.fixtures';

let t: TestApp;
let w: CatalogWorld;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createCatalogWorld(t);
});
afterAll(() => t.close());

const PNG = `data:image/png;base64,${Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex').toString('base64')}`;
const uniqueSlug = () => `svc-${Math.random().toString(36).slice(2, 10)}`;
const auditActions = async (targetId: string) => (await t.db.select().from(auditLog)).filter((r) => r.targetId === targetId).map((r) => r.action);

describe('GET /api/services/:id', () => {
  it('answers 401 without a token', async () => {
    expect((await as(t, w, 'nobody')('GET', `/api/services/${w.service.id}`)).statusCode).toBe(401);
  });

  it('answers the service to a reader', async () => {
    const res = await as(t, w, 'reader')('GET', `/api/services/${w.service.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().service).toMatchObject({ id: w.service.id, slug: w.service.slug, tenant_id: w.tenant.id, timeline: w.service.timeline });
  });

  it('answers 404 for another tenant’s service and for a malformed id', async () => {
    expect((await as(t, w, 'admin')('GET', `/api/services/${w.foreign.id}`)).statusCode).toBe(404);
    expect((await as(t, w, 'admin')('GET', '/api/services/not-a-uuid')).statusCode).toBe(404);
  });
});

describe('POST /api/services', () => {
  const post = (who: Parameters<typeof as>[2], body: unknown) => as(t, w, who)('POST', '/api/services', body);

  it('answers 401 without a token', async () => {
    expect((await post('nobody', { name: 'X', slug: uniqueSlug() })).statusCode).toBe(401);
  });

  it.each([
    [{ slug: 'abc' }, M.serviceNameRequired, 'name'],
    [{ name: '   ', slug: 'abc' }, M.serviceNameRequired, 'name'],
    [{ name: 'Payroll' }, M.slugRequired, 'slug'],
    [{ name: 'Payroll', slug: 'Pay Roll!' }, M.slugPattern, 'slug'],
  ])('answers 400 for %j', async (body, error, field) => {
    const res = await post('admin', body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error, field });
  });

  it('answers 403 to a reader and to an editor', async () => {
    expect((await post('reader', { name: 'X', slug: uniqueSlug() })).statusCode).toBe(403);
    expect((await post('editor', { name: 'X', slug: uniqueSlug() })).statusCode).toBe(403);
  });

  it('creates a service with the default timeline, sanitised description and an audit row', async () => {
    const slug = uniqueSlug();
    const res = await post('admin', { name: 'Payroll', slug, description: HOSTILE_HTML, service_owner: 'Ann', subscription_model: 'Monthly', icon_url: PNG });
    expect(res.statusCode).toBe(201);
    const { service } = res.json();
    expect(service).toMatchObject({ name: 'Payroll', slug, service_owner: 'Ann', subscription_model: 'Monthly', archived: false, icon_url: PNG });
    expect(service.timeline).toEqual(defaultTimeline());
    expect(service.description).toContain('<strong>bold</strong>');
    expect(isSanitised(service.description)).toBe(true);
    expect(await auditActions(service.id)).toContain('service.create');
  });

  it('creates a service with the timeline given, and refuses one that is not a first and last quarter', async () => {
    const res = await post('admin', { name: 'Planned', slug: uniqueSlug(), timeline: { first: '2026-Q3', last: '2027-Q2' } });
    expect(res.statusCode).toBe(201);
    expect(res.json().service.timeline).toEqual(['2026-Q3', '2026-Q4', '2027-Q1', '2027-Q2']);
    for (const [timeline, error] of [
      [{ first: '2027-Q1', last: '2026-Q1' }, TIMELINE_ORDER],
      [{ first: '2025-Q1', last: '2035-Q2' }, TIMELINE_TOO_LONG],
      [['2026-Q1', '2026-Q2'], 'Timeline must be {first, last} quarters'],
    ] as const) {
      const slug = uniqueSlug();
      const refused = await post('admin', { name: 'Refused', slug, timeline });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ error, field: 'timeline' });
      expect((await as(t, w, 'admin')('GET', `/api/services?search=${slug}`)).json().services).toEqual([]);
    }
  });

  it('answers 409 when the slug is taken in the tenant, but allows it in another tenant', async () => {
    const res = await post('admin', { name: 'Again', slug: w.service.slug });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe(M.slugTaken);
    expect((await post('otherAdmin', { name: 'Same slug', slug: w.service.slug })).statusCode).toBe(201);
  });

  it('answers 400 for an icon that is not an image', async () => {
    const res = await post('admin', { name: 'Icon', slug: uniqueSlug(), iconUrl: 'data:text/html;base64,PHNjcmlwdD4=' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe(M.invalidFileType);
  });
});

describe('PUT /api/services/:id', () => {
  const put = (who: Parameters<typeof as>[2], id: string, body: unknown) => as(t, w, who)('PUT', `/api/services/${id}`, body);

  it('answers 401 without a token', async () => {
    expect((await put('nobody', w.service.id, { name: 'X' })).statusCode).toBe(401);
  });

  it.each([
    [{ name: '' }, M.serviceNameRequired, 'name'],
    [{ name: 'X', timeline: { first: '2025-Q3', last: '2025-Q1' } }, TIMELINE_ORDER, 'timeline'],
    [{ name: 'X', timeline: { first: '2025-Q1', last: '2035-Q2' } }, TIMELINE_TOO_LONG, 'timeline'],
    [{ name: 'X', timeline: { first: '2025-5', last: '2025-Q2' } }, 'Quarter must look like 2025-Q1', 'timeline.first'],
    [{ name: 'X', icon_url: 'data:image/bmp;base64,Qk0=' }, M.invalidImageType, 'iconUrl'],
  ])('answers 400 for %j', async (body, error, field) => {
    const res = await put('editor', w.service.id, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error, field });
  });

  it('answers 403 to a reader', async () => {
    expect((await put('reader', w.service.id, { name: 'X' })).statusCode).toBe(403);
  });

  it('answers 404 for another tenant’s service and a malformed id', async () => {
    expect((await put('admin', w.foreign.id, { name: 'X' })).statusCode).toBe(404);
    expect((await put('admin', 'nope', { name: 'X' })).statusCode).toBe(404);
  });

  it('answers 409 on an archived service', async () => {
    const res = await put('admin', w.archived.id, { name: 'X' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe(M.serviceArchivedConflict);
  });

  it('stores an SVG icon sanitised, clears it with null, and answers 413 for an icon over the size limit', async () => {
    const service = await createService(t.db, w.tenant.id);
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4" onload="alert(1)"><script>alert(2)</script><rect width="4" height="4"/></svg>';
    const res = await put('editor', service.id, { name: 'Icon', icon_url: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` });
    expect(res.statusCode).toBe(200);
    const stored = Buffer.from(res.json().service.icon_url.split(',')[1], 'base64').toString('utf8');
    expect(stored).toContain('viewBox="0 0 4 4"');
    expect(stored).not.toMatch(/script|onload/);
    expect((await put('editor', service.id, { name: 'Icon', iconUrl: null })).json().service.icon_url).toBeNull();
    const big = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(150 * 1024)]);
    const tooBig = await put('editor', service.id, { name: 'Icon', iconUrl: `data:image/png;base64,${big.toString('base64')}` });
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.json().error).toMatch(/Image is still too large after compression \(151KB\)/);
  });

  it('updates the details, ignores a slug, sanitises the description and bumps version and last_updated', async () => {
    const service = await createService(t.db, w.tenant.id);
    const res = await put('editor', service.id, {
      name: 'Renamed',
      slug: 'changed-slug',
      description: HOSTILE_HTML,
      service_owner: 'Bo',
      subscriptionModel: 'Yearly',
      timeline: { first: '2025-Q4', last: '2026-Q2' },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json().service;
    expect(body).toMatchObject({ name: 'Renamed', slug: service.slug, service_owner: 'Bo', subscription_model: 'Yearly' });
    expect(body.timeline).toEqual(['2025-Q4', '2026-Q1', '2026-Q2']);
    expect(isSanitised(body.description)).toBe(true);
    expect(body.version).toBe(service.version + 1);
    expect(new Date(body.last_updated).getTime()).toBeGreaterThanOrEqual(service.lastUpdated.getTime());
  });
});

describe('archive, unarchive and DELETE /api/services/:id', () => {
  it('answers 401 without a token', async () => {
    expect((await as(t, w, 'nobody')('PATCH', `/api/services/${w.service.id}/archive`)).statusCode).toBe(401);
  });

  it('answers 403 to a reader and an editor', async () => {
    for (const who of ['reader', 'editor'] as const) {
      expect((await as(t, w, who)('PATCH', `/api/services/${w.service.id}/archive`)).statusCode).toBe(403);
      expect((await as(t, w, who)('PATCH', `/api/services/${w.archived.id}/unarchive`)).statusCode).toBe(403);
      expect((await as(t, w, who)('DELETE', `/api/services/${w.service.id}`)).statusCode).toBe(403);
    }
  });

  it('answers 404 for another tenant’s service and a malformed id', async () => {
    expect((await as(t, w, 'admin')('PATCH', `/api/services/${w.foreign.id}/archive`)).statusCode).toBe(404);
    expect((await as(t, w, 'admin')('PATCH', '/api/services/123/unarchive')).statusCode).toBe(404);
    expect((await as(t, w, 'admin')('DELETE', `/api/services/${w.foreign.id}`)).statusCode).toBe(404);
  });

  it('archives and unarchives with audit rows; archived services are listed only for admins', async () => {
    const service = await createService(t.db, w.tenant.id);
    const archived = await as(t, w, 'admin')('PATCH', `/api/services/${service.id}/archive`);
    expect(archived.statusCode).toBe(200);
    expect(archived.json().service.archived).toBe(true);
    const forReader = await as(t, w, 'reader')('GET', '/api/services?includeArchived=true');
    expect(forReader.json().services.map((s: { id: string }) => s.id)).not.toContain(service.id);
    const forAdmin = await as(t, w, 'admin')('GET', '/api/services?includeArchived=true');
    expect(forAdmin.json().services.map((s: { id: string }) => s.id)).toContain(service.id);
    const back = await as(t, w, 'superAdmin')('PATCH', `/api/services/${service.id}/unarchive`);
    expect(back.json().service.archived).toBe(false);
    expect(await auditActions(service.id)).toEqual(expect.arrayContaining(['service.archive', 'service.unarchive']));
  });

  it('DELETE archives the service and answers 204 without a body', async () => {
    const service = await createService(t.db, w.tenant.id);
    const res = await as(t, w, 'admin')('DELETE', `/api/services/${service.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    const after = await as(t, w, 'admin')('GET', `/api/services/${service.id}`);
    expect(after.json().service.archived).toBe(true);
  });
});

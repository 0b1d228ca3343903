import { gunzipSync } from 'node:zlib';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actorRoles, quickTemplates, services } from '../../db/schema';
import { loadServiceContent } from '../../db/queries/settings';
import { countStatements } from '../services/catalog.fixtures';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { assignServiceRole, createAspect, createCategory, createService, createWorld, setAvailability, type World } from '../../test/factories';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

const as = (token: string, tenant = w.tenant.slug) => ({ token, tenant });

async function catalog() {
  const s = await createService(t.db, w.tenant.id, { timeline: ['2025-Q1', '2025-Q2'] });
  const c = await createCategory(t.db, w.tenant.id, s.id, 'Core, "main"');
  const a = await createAspect(t.db, w.tenant.id, s.id, c.id, { title: '=HYPERLINK("x")', description: '<p>Line one</p><p>Fish &amp; chips</p>' });
  const p = await createAspect(t.db, w.tenant.id, s.id, c.id, { title: 'Secret', isPublic: false, position: 1 });
  await setAvailability(t.db, w.tenant.id, s.id, a.id, '2025-Q1', '+1 more');
  await setAvailability(t.db, w.tenant.id, s.id, a.id, '2025-Q2', '@home\r\nnext');
  await setAvailability(t.db, w.tenant.id, s.id, p.id, '2025-Q2', 'Done');
  return s;
}

describe('GET /api/export/service/:id/csv', () => {
  it('answers RFC 4180 CSV with neutralised formulas and plain-text descriptions', async () => {
    const s = await catalog();
    const res = await call(t.app, 'GET', `/api/export/service/${s.id}/csv`, { ...as(w.tokens.editor), query: { showPrivate: 'true' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${s.slug}.csv"`);
    // A UTF-8 byte order mark first, so that Excel reads the file as UTF-8.
    expect(res.body).toBe(
      '\uFEFFCategory,Aspect,Description,Public,2025-Q1,2025-Q2\r\n' +
        '"Core, ""main""","\'=HYPERLINK(""x"")","Line one\nFish & chips",Yes,\'+1 more,"\'@home\r\nnext"\r\n' +
        '"Core, ""main""",Secret,,No,,Done\r\n',
    );
  });

  it('leaves private aspects out unless showPrivate is true', async () => {
    const s = await catalog();
    const res = await call(t.app, 'GET', `/api/export/service/${s.id}/csv`, { ...as(w.tokens.editor), query: { showPrivate: 'false' } });
    expect(res.body).not.toContain('Secret');
  });

  it('answers 400 for a bad flag, 401, 403 to a reader and 404 to another tenant', async () => {
    const s = await catalog();
    const url = `/api/export/service/${s.id}/csv`;
    expect((await call(t.app, 'GET', url, { ...as(w.tokens.editor), query: { showPrivate: 'maybe' } })).statusCode).toBe(400);
    expect((await call(t.app, 'GET', url)).statusCode).toBe(401);
    expect((await call(t.app, 'GET', url, { ...as(w.tokens.reader), query: { showPrivate: 'true' } })).statusCode).toBe(403);
    expect((await call(t.app, 'GET', url, as(w.tokens.otherAdmin, w.other.slug))).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/api/export/service/x/csv', as(w.tokens.editor))).statusCode).toBe(404);
  });

  it('exports an archived service too', async () => {
    const s = await catalog();
    await t.db.update(services).set({ archived: true }).where(eq(services.id, s.id));
    expect((await call(t.app, 'GET', `/api/export/service/${s.id}/csv`, as(w.tokens.editor))).statusCode).toBe(200);
  });
});

describe('GET /api/services/:id/export', () => {
  it('answers the gzip .catalog document named after the slug', async () => {
    const s = await catalog();
    const res = await call(t.app, 'GET', `/api/services/${s.id}/export`, as(w.tokens.editor));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/gzip');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${s.slug}.catalog"`);
    const doc = JSON.parse(gunzipSync(res.rawPayload).toString('utf8'));
    expect(doc).toMatchObject({ format: 'service-catalog', version: 1, service: { name: s.name, slug: s.slug, timeline: ['2025-Q1', '2025-Q2'] } });
    expect(doc.aspects).toHaveLength(2);
    expect(doc.availabilities).toHaveLength(3);
    expect(doc).toHaveProperty('roles');
    expect(doc).toHaveProperty('templates');
  });

  it('holds every category, aspect, text, role and template as stored, in the document’s order, read in one statement', async () => {
    const s = await catalog();
    const second = await createCategory(t.db, w.tenant.id, s.id, 'Ünïcode \\ "quoted" \u2028 tab\t', 1);
    const b = await createAspect(t.db, w.tenant.id, s.id, second.id, { title: 'Zeta', description: '<p>Emoji 🚀 and <strong>bold</strong></p>', position: 0 });
    await setAvailability(t.db, w.tenant.id, s.id, b.id, '2025-Q1', 'Line\nbreak "and" \\ backslash');
    await t.db.insert(actorRoles).values([
      { tenantId: w.tenant.id, serviceId: s.id, roleName: 'Second role', position: 1 },
      { tenantId: w.tenant.id, serviceId: s.id, roleName: 'First role', position: 0 },
    ]);
    await t.db.insert(quickTemplates).values({ tenantId: w.tenant.id, serviceId: s.id, templateText: 'Planned for “later”', position: 0 });
    const [row] = await t.db.select().from(services).where(eq(services.id, s.id));
    const content = await loadServiceContent(t.db, w.tenant.id, s.id);
    const res = await call(t.app, 'GET', `/api/services/${s.id}/export`, as(w.tokens.editor));
    expect(res.statusCode).toBe(200);
    const doc = JSON.parse(gunzipSync(res.rawPayload).toString('utf8'));
    expect(Object.keys(doc)).toEqual(['format', 'version', 'exported_at', 'service', 'categories', 'aspects', 'availabilities', 'roles', 'templates']);
    expect(Date.parse(doc.exported_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(doc).toEqual({
      format: 'service-catalog',
      version: 1,
      exported_at: doc.exported_at,
      service: {
        name: row!.name,
        slug: row!.slug,
        description: row!.description,
        service_owner: row!.serviceOwner,
        subscription_model: row!.subscriptionModel,
        icon_url: row!.iconUrl,
        timeline: ['2025-Q1', '2025-Q2'],
      },
      categories: content.categories.map((c) => ({ id: c.id, name: c.name, position: c.position })),
      aspects: content.aspects.map((a) => ({
        id: a.id,
        category_id: a.categoryId,
        title: a.title,
        description: a.description,
        is_public: a.isPublic,
        position: a.position,
      })),
      availabilities: content.availabilities.map((v) => ({ aspect_id: v.aspectId, time_bucket: v.timeBucket, value: v.value })),
      roles: [
        { role_name: 'First role', position: 0 },
        { role_name: 'Second role', position: 1 },
      ],
      templates: [{ template_text: 'Planned for “later”', position: 0 }],
    });
    expect(doc.categories.map((c: { name: string }) => c.name)).toEqual(['Core, "main"', 'Ünïcode \\ "quoted" \u2028 tab\t']);
    expect(doc.availabilities).toHaveLength(4);
  });

  it('runs as many statements for a service of 40 aspects as for one of 2', async () => {
    const small = await catalog();
    const large = await createService(t.db, w.tenant.id, { timeline: ['2025-Q1', '2025-Q2'] });
    const category = await createCategory(t.db, w.tenant.id, large.id, 'Many');
    for (let i = 0; i < 40; i++) {
      const aspect = await createAspect(t.db, w.tenant.id, large.id, category.id, { title: `Aspect ${i}`, position: i });
      await setAvailability(t.db, w.tenant.id, large.id, aspect.id, '2025-Q1', `Text ${i}`);
    }
    const exported = (id: string) =>
      countStatements(t, async () => expect((await call(t.app, 'GET', `/api/services/${id}/export`, as(w.tokens.editor))).statusCode).toBe(200));
    await exported(small.id);
    const counts = [await exported(small.id), await exported(large.id)];
    expect(counts[1]).toBe(counts[0]);
  });

  it('answers 401, 403 to a reader (even one raised to reader) and 404 to another tenant', async () => {
    const s = await catalog();
    await assignServiceRole(t.db, w.tenant.id, s.id, w.users.reader.id, 'reader');
    const url = `/api/services/${s.id}/export`;
    expect((await call(t.app, 'GET', url)).statusCode).toBe(401);
    expect((await call(t.app, 'GET', url, as(w.tokens.reader))).statusCode).toBe(403);
    expect((await call(t.app, 'GET', url, as(w.tokens.otherAdmin, w.other.slug))).statusCode).toBe(404);
  });
});

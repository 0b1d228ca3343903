import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { IMPORT_MESSAGES } from '../../commands/importService';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createAspect, createCategory, createService, createWorld, setAvailability, type World } from '../../test/factories';
import { multipartFile, multipartForm } from './multipart';
import { M } from '../../../common/messages';
import { validateIcon } from '../../content/icon';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

const as = (token: string, tenant = w.tenant.slug) => ({ token, tenant });

function upload(file: Buffer, token = w.tokens.admin, filename?: string) {
  const { body, headers } = multipartFile(file, filename);
  return call(t.app, 'POST', '/api/services/import', { ...as(token), body, headers });
}

const TABLES = ['services', 'categories', 'aspects', 'availabilities', 'availability_history', 'actor_roles', 'quick_templates', 'audit_log'];
async function counts() {
  const out: Record<string, number> = {};
  for (const table of TABLES) {
    const res = await t.db.execute(sql.raw(`select count(*)::int as n from ${table}`));
    out[table] = Number((res as unknown as { rows: { n: number }[] }).rows[0]!.n);
  }
  return out;
}

async function richService() {
  const s = await createService(t.db, w.tenant.id, {
    description: '<p>About <strong>it</strong></p>',
    serviceOwner: 'Ops team',
    subscriptionModel: 'Monthly',
    timeline: ['2025-Q3', '2025-Q4', '2026-Q1'],
    // Stored icons have been through the icon check, as every write of one does.
    iconUrl: validateIcon(
      `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><rect width="4" height="4"/></svg>').toString('base64')}`,
    ),
  });
  const c1 = await createCategory(t.db, w.tenant.id, s.id, 'Core', 0);
  const c2 = await createCategory(t.db, w.tenant.id, s.id, 'Ops', 1);
  const a1 = await createAspect(t.db, w.tenant.id, s.id, c1.id, { title: 'SSO', description: '<p>Sign in <em>once</em></p>', position: 0 });
  const a2 = await createAspect(t.db, w.tenant.id, s.id, c1.id, { title: 'Reports', isPublic: false, position: 1 });
  const a3 = await createAspect(t.db, w.tenant.id, s.id, c2.id, { title: 'Support', position: 0 });
  await setAvailability(t.db, w.tenant.id, s.id, a1.id, '2025-Q3', 'Beta');
  await setAvailability(t.db, w.tenant.id, s.id, a1.id, '2026-Q1', 'GA');
  await setAvailability(t.db, w.tenant.id, s.id, a2.id, '2024-Q1', 'Outside the timeline');
  await setAvailability(t.db, w.tenant.id, s.id, a3.id, '2025-Q4', '24/7');
  // Texts the import's array literals must carry exactly: quotes, backslashes, braces, commas, a
  // word the database's array syntax reads as a null, escapes and characters beyond ASCII.
  await setAvailability(t.db, w.tenant.id, s.id, a3.id, '2025-Q3', 'Say "hi" \\ back, {then} \\"');
  await setAvailability(t.db, w.tenant.id, s.id, a3.id, '2026-Q1', 'NULL');
  await setAvailability(t.db, w.tenant.id, s.id, a2.id, '2025-Q4', '  Ünïcödé 🚀\ttab \\u0041 constructor  ');
  for (const roleName of ['Student', 'Teacher']) await call(t.app, 'POST', '/api/actor-roles', { ...as(w.tokens.admin), body: { serviceId: s.id, roleName } });
  for (const templateText of ['Planned', 'Available'])
    await call(t.app, 'POST', '/api/quick-templates', { ...as(w.tokens.admin), body: { serviceId: s.id, templateText } });
  return s;
}

async function exported(serviceId: string) {
  const res = await call(t.app, 'GET', `/api/services/${serviceId}/export`, as(w.tokens.admin));
  expect(res.statusCode).toBe(200);
  return res.rawPayload;
}

/** Everything of a service except ids, timestamps and version. */
async function content(serviceId: string) {
  const full = await call(t.app, 'GET', `/api/services/${serviceId}/export`, as(w.tokens.admin));
  const { gunzipSync } = await import('node:zlib');
  const doc = JSON.parse(gunzipSync(full.rawPayload).toString('utf8'));
  const catName = new Map(doc.categories.map((c: { id: string; name: string }) => [c.id, c.name]));
  const aspectTitle = new Map(doc.aspects.map((a: { id: string; title: string }) => [a.id, a.title]));
  return {
    service: { ...doc.service, slug: undefined },
    categories: doc.categories.map((c: { name: string; position: number }) => [c.name, c.position]),
    aspects: doc.aspects.map((a: Record<string, unknown>) => [catName.get(a.category_id as string), a.title, a.description, a.is_public, a.position]),
    availabilities: doc.availabilities.map((v: Record<string, string>) => `${aspectTitle.get(v.aspect_id)}|${v.time_bucket}|${v.value}`).sort(),
    roles: doc.roles,
    templates: doc.templates,
  };
}

describe('export then import', () => {
  it('gives back the same service, categories, aspects, order, flags, descriptions, availabilities, roles and templates', async () => {
    const s = await richService();
    const res = await upload(await exported(s.id));
    expect(res.statusCode).toBe(201);
    const created = res.json().service;
    expect(created.id).not.toBe(s.id);
    expect(created.slug).toBe(`${s.slug}-2`);
    expect(created.tenant_id).toBe(w.tenant.id);
    expect(await content(created.id)).toEqual(await content(s.id));
    const again = await upload(await exported(s.id));
    expect(again.json().service.slug).toBe(`${s.slug}-3`);
    // Every imported text starts its history: the same text, changed by the importing admin.
    const rows = (res: unknown) => (res as { rows: Record<string, string>[] }).rows;
    const texts = rows(await t.db.execute(sql`select aspect_id, time_bucket, value from availabilities where service_id = ${created.id} order by 1, 2`));
    const history = rows(
      await t.db.execute(sql`select aspect_id, time_bucket, value, changed_by from availability_history where service_id = ${created.id} order by 1, 2`),
    );
    expect(texts).toHaveLength(7);
    expect(history).toEqual(texts.map((v) => ({ ...v, changed_by: w.users.admin.email })));
    const audit = await t.db.execute(sql`select count(*)::int as n from audit_log where action = 'service.import' and target_id = ${created.id}`);
    expect(Number((audit as unknown as { rows: { n: number }[] }).rows[0]!.n)).toBe(1);
  });

  it('sanitises descriptions and icons of an imported file', async () => {
    const doc = {
      format: 'service-catalog',
      version: 1,
      service: { name: 'Hostile', slug: 'hostile', description: '<p>Hi</p><script>alert(1)</script>', icon_url: null },
      categories: [{ id: 'c', name: 'C', position: 0 }],
      aspects: [{ id: 'a', category_id: 'c', title: 'A', description: '<img src=x onerror=alert(1)><p onclick="x()">ok</p>', is_public: true, position: 0 }],
      availabilities: [],
      roles: [],
      templates: [],
    };
    const res = await upload(gzipSync(JSON.stringify(doc)));
    expect(res.statusCode).toBe(201);
    const c = await content(res.json().service.id);
    expect(c.service.description).toBe('<p>Hi</p>');
    expect(c.aspects[0][2]).toBe('<p>ok</p>');
  });
});

describe('hostile files leave the database unchanged', () => {
  const valid = () => ({
    format: 'service-catalog',
    version: 1,
    service: { name: 'X', slug: 'x' },
    categories: [{ id: 'c', name: 'C', position: 0 }],
    aspects: [{ id: 'a', category_id: 'c', title: 'A', description: '', is_public: true, position: 0 }],
    availabilities: [{ aspect_id: 'a', time_bucket: '2025-Q1', value: 'v' }],
    roles: [],
    templates: [],
  });
  const cases: [string, () => Buffer, number, string?][] = [
    ['a file that is not gzip', () => Buffer.from('{"format":"service-catalog"}'), 400, IMPORT_MESSAGES.notGzip],
    ['a damaged gzip stream', () => gzipSync('hello world hello world').subarray(0, 12), 400, IMPORT_MESSAGES.corrupt],
    ['bad JSON', () => gzipSync('{"format": "service-catalog",'), 400, IMPORT_MESSAGES.badJson],
    ['another format', () => gzipSync(JSON.stringify({ ...valid(), format: 'other' })), 400, IMPORT_MESSAGES.wrongFormat],
    ['a wrong version', () => gzipSync(JSON.stringify({ ...valid(), version: 2 })), 400, IMPORT_MESSAGES.wrongVersion],
    [
      'a __proto__ key',
      () => gzipSync(JSON.stringify(valid()).replace('"service":{', '"service":{"__proto__":{"admin":true},')),
      400,
      IMPORT_MESSAGES.forbiddenKey,
    ],
    ['a constructor key', () => gzipSync(JSON.stringify({ ...valid(), constructor: { prototype: { x: 1 } } })), 400, IMPORT_MESSAGES.forbiddenKey],
    ['an unknown field', () => gzipSync(JSON.stringify({ ...valid(), extra: 1 })), 400],
    ['an aspect of an unknown category', () => gzipSync(JSON.stringify({ ...valid(), aspects: [{ ...valid().aspects[0], category_id: 'zz' }] })), 400],
    [
      'an availability of an unknown aspect',
      () => gzipSync(JSON.stringify({ ...valid(), availabilities: [{ aspect_id: 'q', time_bucket: '2025-Q1', value: 'v' }] })),
      400,
    ],
    ['a bad quarter', () => gzipSync(JSON.stringify({ ...valid(), availabilities: [{ aspect_id: 'a', time_bucket: '2025-Q5', value: 'v' }] })), 400],
    ['a too long name', () => gzipSync(JSON.stringify({ ...valid(), service: { name: 'n'.repeat(5000), slug: 'x' } })), 400],
    ['a bad icon', () => gzipSync(JSON.stringify({ ...valid(), service: { name: 'X', slug: 'x', icon_url: 'data:text/html;base64,PHNjcmlwdD4=' } })), 400],
    ['a gzip bomb', () => gzipSync(Buffer.alloc(60 * 1024 * 1024, 32)), 413, IMPORT_MESSAGES.tooLargeUnpacked],
    ['a file over 10 MB', () => Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.alloc(10 * 1024 * 1024 + 10)]), 413, IMPORT_MESSAGES.tooLargeCompressed],
  ];
  it.each(cases)('rejects %s', async (_name, make, status, message) => {
    const before = await counts();
    const res = await upload(make());
    expect(res.statusCode).toBe(status);
    if (message) expect(res.json().error).toBe(message);
    else expect(res.json().error).toMatch(/invalid/i);
    expect(await counts()).toEqual(before);
  });

  it('rejects a request without a file', async () => {
    const res = await call(t.app, 'POST', '/api/services/import', { ...as(w.tokens.admin), body: { file: 'x' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe(IMPORT_MESSAGES.fileRequired);
  });
});

describe('POST /api/services/import rights', () => {
  it('answers 401 and 403 to an editor', async () => {
    const file = gzipSync('{}');
    const { body, headers } = multipartFile(file);
    expect((await call(t.app, 'POST', '/api/services/import', { body, headers })).statusCode).toBe(401);
    expect((await upload(file, w.tokens.editor)).statusCode).toBe(403);
  });
});

describe('import with a chosen name and slug', () => {
  const file = (name: string, slug: string) =>
    gzipSync(
      JSON.stringify({
        format: 'service-catalog',
        version: 1,
        service: { name, slug },
        categories: [],
        aspects: [],
        availabilities: [],
        roles: [],
        templates: [],
      }),
    );
  const send = (url: string, fields: Record<string, string>, content: Buffer, token = w.tokens.admin) => {
    const { body, headers } = multipartForm(fields, content);
    return call(t.app, 'POST', url, { ...as(token), body, headers });
  };

  it('previews a file: its name and slug, and the free ones of the tenant', async () => {
    await createService(t.db, w.tenant.id, { name: 'Student Email', slug: 'student-email' });
    await createService(t.db, w.tenant.id, { name: 'Student Email (2)', slug: 'student-email-2' });
    const res = await send('/api/services/import/preview', {}, file('Student Email', 'student-email'));
    expect(res.statusCode).toBe(200);
    expect(res.json().preview).toMatchObject({
      name: 'Student Email',
      slug: 'student-email',
      proposed_name: 'Student Email (3)',
      proposed_slug: 'student-email-3',
    });
    const free = await send('/api/services/import/preview', {}, file('Unheard Of', 'unheard-of'));
    expect(free.json().preview).toMatchObject({ proposed_name: 'Unheard Of', proposed_slug: 'unheard-of' });
    const before = await counts();
    expect((await send('/api/services/import/preview', {}, Buffer.from('not gzip'))).json().error).toBe(IMPORT_MESSAGES.notGzip);
    expect((await send('/api/services/import/preview', {}, file('X', 'x'), w.tokens.editor)).statusCode).toBe(403);
    expect(await counts()).toEqual(before);
  });

  it('creates the service under the name and slug given', async () => {
    const res = await send('/api/services/import', { name: '  Mail for Students ', slug: 'mail-for-students' }, file('Student Email', 'student-email'));
    expect(res.statusCode).toBe(201);
    expect(res.json().service).toMatchObject({ name: 'Mail for Students', slug: 'mail-for-students' });
    const audit = await t.db.execute(sql`select details from audit_log where action = 'service.import' and target_id = ${res.json().service.id}`);
    expect((audit as unknown as { rows: { details: unknown }[] }).rows[0]!.details).toMatchObject({ name: 'Mail for Students', slug: 'mail-for-students' });
  });

  it('answers 409 for a taken slug and 400 naming the field for an invalid one, writing nothing', async () => {
    await createService(t.db, w.tenant.id, { name: 'Taken', slug: 'taken-slug' });
    const before = await counts();
    const taken = await send('/api/services/import', { name: 'New', slug: 'taken-slug' }, file('New', 'new'));
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error).toBe(M.slugTaken);
    const badSlug = await send('/api/services/import', { name: 'New', slug: 'Not A Slug' }, file('New', 'new'));
    expect(badSlug.statusCode).toBe(400);
    expect(badSlug.json()).toMatchObject({ error: M.slugPattern, field: 'slug' });
    const blankName = await send('/api/services/import', { name: '  ', slug: 'fine' }, file('New', 'new'));
    expect(blankName.statusCode).toBe(400);
    expect(blankName.json()).toMatchObject({ error: M.serviceNameRequired, field: 'name' });
    expect(await counts()).toEqual(before);
  });

  it("keeps the file's name and gives a numeric suffix when no fields are sent", async () => {
    await createService(t.db, w.tenant.id, { name: 'Plain', slug: 'plain' });
    const res = await upload(file('Plain', 'plain'));
    expect(res.statusCode).toBe(201);
    expect(res.json().service).toMatchObject({ name: 'Plain', slug: 'plain-2' });
    const onlyName = await send('/api/services/import', { name: 'Plain again' }, file('Plain', 'plain'));
    expect(onlyName.json().service).toMatchObject({ name: 'Plain again', slug: 'plain-3' });
  });
});

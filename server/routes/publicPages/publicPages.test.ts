import { eq } from 'drizzle-orm';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quarterOf } from '../../../common/quarters';
import { services, tenants } from '../../db/schema';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createAspect, createCategory, createService, createUser, createWorld, setAvailability, signIn, type World } from '../../test/factories';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

const as = (token: string, tenant = w.tenant.slug) => ({ token, tenant });
/** A visitor: no token, no tenant header. */
const visit = (url: string, headers: Record<string, string> = {}) => call(t.app, 'GET', url, { headers });

async function snap(serviceId: string, visibility: 'internal' | 'public', label: string, note = '') {
  const res = await call(t.app, 'POST', '/api/snapshots', { ...as(w.tokens.editor), body: { serviceId, label, visibility, note } });
  expect(res.statusCode).toBe(201);
  return res.json().snapshot as { id: string };
}

/** A published service with a public and a private aspect, a first public edition, and its address. */
async function published(tenant = w.tenant) {
  const s = await createService(t.db, tenant.id, {
    name: 'Library Loans',
    description: 'Borrow books & more',
    serviceOwner: 'Ada Owner',
    subscriptionModel: 'Free for members',
    iconUrl: 'data:image/png;base64,iVBORw0KGgo=',
  });
  const c = await createCategory(t.db, tenant.id, s.id, 'Lending');
  const pub = await createAspect(t.db, tenant.id, s.id, c.id, { title: 'Renew online', description: '<p>Renew <strong>any</strong> loan</p>', isPublic: true });
  const priv = await createAspect(t.db, tenant.id, s.id, c.id, { title: 'Secret vendor deal', isPublic: false, position: 1 });
  const q = quarterOf(new Date());
  await setAvailability(t.db, tenant.id, s.id, pub.id, q, 'Beta');
  await setAvailability(t.db, tenant.id, s.id, priv.id, q, 'Confidential plan');
  await t.db.update(services).set({ published: true }).where(eq(services.id, s.id));
  const first = tenant.id === w.tenant.id ? await snap(s.id, 'public', 'Spring edition', 'First public roadmap') : null;
  return { s, c, pub, priv, q, first, path: `/p/${tenant.slug}/${s.slug}` };
}

describe('public service page', () => {
  it('shows the latest public edition to a signed-out visitor, as HTML with title, lang and Open Graph tags', async () => {
    const { path, q } = await published();
    const res = await visit(path);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const html = res.body;
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(html).toContain(`<title>Library Loans: roadmap · ${w.tenant.name}</title>`);
    expect(html).toContain('<meta property="og:title" content="Library Loans: roadmap');
    expect(html).toContain(`<meta property="og:url" content="http://localhost:3000${path}">`);
    expect(html).toContain('<meta property="og:description" content="Borrow books &amp; more">');
    expect(html).toContain(`<link rel="alternate" type="application/atom+xml"`);
    expect(html).toContain(`href="${path}/feed.atom"`);
    expect(html).toContain('Spring edition');
    expect(html).toContain('First public roadmap');
    expect(html).toContain('Ada Owner');
    expect(html).toContain('Free for members');
    expect(html).toContain('<h1><img src="data:image/png;base64,iVBORw0KGgo=" alt=""><span>Library Loans</span></h1>');
    // The roadmap groups the aspects by category, under a heading row of its own.
    expect(html).toMatch(/<tr class="category"><th colspan="\d+" scope="colgroup">Lending<\/th><\/tr>\n<tr><th scope="row">[^\n]*Renew online/);
    expect(html).toContain('Renew online');
    expect(html).toContain('Renew <strong>any</strong> loan');
    expect(html).toContain(`<h2 id="now-title">Now: ${q}</h2>`);
    expect(html).toContain('Beta');
    expect(html).toContain('This is the first public edition.');
    expect(html).not.toContain('<script');
    // Private aspects never reach a public page.
    expect(html).not.toContain('Secret vendor deal');
    expect(html).not.toContain('Confidential plan');
  });

  it('shows no internal snapshot, even a newer one, and no change made since the edition', async () => {
    const { s, path } = await published();
    await t.db.update(services).set({ name: 'Renamed since' }).where(eq(services.id, s.id));
    const internal = await snap(s.id, 'internal', 'Board only');
    const html = (await visit(path)).body;
    expect(html).toContain('Spring edition');
    expect(html).not.toContain('Board only');
    expect(html).not.toContain('Renamed since');
    expect((await visit(`${path}/editions/${internal.id}`)).statusCode).toBe(404);
  });

  it('lets a reader of another tenant read a published edition as a visitor does, and nothing else of the service', async () => {
    const { s, first, path } = await published();
    const internal = await snap(s.id, 'internal', 'Board only');
    const outsider = await createUser(t.db, w.other.id, { role: 'reader' });
    const token = await signIn(t.app, outsider.email);
    const signedIn = { authorization: `Bearer ${token}`, 'x-tenant-slug': w.other.slug };
    const page = await visit(path, signedIn);
    expect(page.statusCode).toBe(200);
    expect(page.body).toBe((await visit(path)).body);
    expect(page.body).not.toContain('Secret vendor deal');
    expect((await visit(`${path}/editions/${internal.id}`, signedIn)).statusCode).toBe(404);
    // Through the API, in their own tenant or naming the service's, the service is not there.
    for (const tenant of [w.other.slug, w.tenant.slug]) {
      for (const url of [
        `/api/snapshots/${first!.id}`,
        `/api/snapshots/${internal.id}`,
        `/api/snapshots/service/${s.id}`,
        `/api/services/${s.id}`,
        `/api/services/${s.id}/full`,
      ]) {
        const res = await call(t.app, 'GET', url, { token, tenant });
        expect([403, 404], `${url} in ${tenant}`).toContain(res.statusCode);
        expect(res.body, url).not.toContain('Renew online');
      }
      const compared = await call(t.app, 'GET', '/api/snapshots/compare', { token, tenant, query: { from: first!.id, to: 'current' } });
      expect([403, 404]).toContain(compared.statusCode);
    }
  });

  it('answers the same 404 page for every address that shows nothing', async () => {
    const { s, path, first } = await published();
    const reference = await visit('/p/no-such-tenant');
    expect(reference.statusCode).toBe(404);
    expect(reference.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(reference.body).toContain('<html lang="en">');
    const unpublished = await createService(t.db, w.tenant.id);
    await snap(unpublished.id, 'public', 'Never shown');
    const noEdition = await createService(t.db, w.tenant.id, { published: true });
    const archived = await createService(t.db, w.tenant.id, { published: true, archived: true });
    await snap(archived.id, 'public', 'Archived edition');
    const otherTenantService = await createService(t.db, w.other.id, { published: true });
    const archivedTenant = (
      await t.db
        .insert(tenants)
        .values({ name: 'Gone Org', slug: `gone-${Date.now()}`, archived: true })
        .returning()
    )[0]!;
    const goneService = await createService(t.db, archivedTenant.id, { published: true });
    const misses = [
      `/p/no-such-tenant/${s.slug}`,
      `/p/${w.tenant.slug}/no-such-service`,
      `/p/${w.tenant.slug}/${unpublished.slug}`,
      `/p/${w.tenant.slug}/${unpublished.slug}/feed.atom`,
      `/p/${w.tenant.slug}/${noEdition.slug}`,
      `/p/${w.tenant.slug}/${archived.slug}`,
      `/p/${w.tenant.slug}/${otherTenantService.slug}`,
      `/p/${w.other.slug}/${s.slug}`,
      `/p/${archivedTenant.slug}`,
      `/p/${archivedTenant.slug}/${goneService.slug}`,
      `/p/${archivedTenant.slug}/feed.atom`,
      `${path}/editions/not-a-uuid`,
      `${path}/editions/${first!.id}`, // the latest edition lives at the service's own address
      `${path}/editions/00000000-0000-4000-8000-000000000000`,
      `${path}/anything/else`,
      '/p',
      '/p/',
      '/p/UPPER',
      `/p/${w.tenant.slug}/${s.slug}%3Cscript%3E`,
    ];
    for (const url of misses) {
      const res = await visit(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body, url).toBe(reference.body);
    }
    // Deleted: gone.
    await t.db.delete(services).where(eq(services.id, s.id));
    expect((await visit(path)).body).toBe(reference.body);
  });

  it('answers 404 at once when publishing is turned off', async () => {
    const { s, path } = await published();
    expect((await visit(path)).statusCode).toBe(200);
    expect((await call(t.app, 'PATCH', `/api/services/${s.id}/unpublish`, as(w.tokens.admin))).statusCode).toBe(200);
    expect((await visit(path)).statusCode).toBe(404);
    expect((await visit(`${path}/feed.atom`)).statusCode).toBe(404);
    expect((await call(t.app, 'PATCH', `/api/services/${s.id}/publish`, as(w.tokens.admin))).statusCode).toBe(200);
    expect((await visit(path)).statusCode).toBe(200);
    // Archiving hides it too.
    expect((await call(t.app, 'PATCH', `/api/services/${s.id}/archive`, as(w.tokens.admin))).statusCode).toBe(200);
    expect((await visit(path)).statusCode).toBe(404);
  });

  it('sends ETag and Last-Modified and answers 304 to a request that has the page', async () => {
    const { s, path } = await published();
    const res = await visit(path);
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(new Date(res.headers['last-modified'] as string).getTime()).toBeGreaterThan(0);
    expect(res.headers['cache-control']).toBe('no-cache');
    const again = await visit(path, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect((await visit(path, { 'if-modified-since': res.headers['last-modified'] as string })).statusCode).toBe(304);
    await snap(s.id, 'public', 'Summer edition');
    const changed = await visit(path, { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
  });

  it('cannot be framed by default; a tenant admin lists the origins that may frame it', async () => {
    const { path } = await published();
    const res = await visit(path);
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers['content-security-policy']).not.toContain('script-src');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    const put = await call(t.app, 'PUT', '/api/publishing/embed-origins', { ...as(w.tokens.admin), body: { origins: ['https://intranet.example.org'] } });
    expect(put.statusCode).toBe(200);
    const framed = await visit(path);
    expect(framed.headers['content-security-policy']).toContain('frame-ancestors https://intranet.example.org');
    expect(framed.headers['x-frame-options']).toBeUndefined();
    // The 404 page never names them.
    expect((await visit('/p/no-such-tenant')).headers['content-security-policy']).toContain("frame-ancestors 'none'");
    await call(t.app, 'PUT', '/api/publishing/embed-origins', { ...as(w.tokens.admin), body: { origins: [] } });
    expect((await visit(path)).headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('keeps a 100-aspect edition well under 100 KB', async () => {
    const s = await createService(t.db, w.tenant.id, { published: true });
    for (let c = 0; c < 5; c++) {
      const cat = await createCategory(t.db, w.tenant.id, s.id, `Category ${c}`, c);
      for (let i = 0; i < 20; i++) {
        const a = await createAspect(t.db, w.tenant.id, s.id, cat.id, {
          title: `Aspect ${c}-${i}`,
          description: '<p>A short description of this aspect.</p>',
          position: i,
        });
        for (const q of s.timeline.slice(0, 4)) await setAvailability(t.db, w.tenant.id, s.id, a.id, q, 'Available');
      }
    }
    await snap(s.id, 'public', 'Large');
    const res = await visit(`/p/${w.tenant.slug}/${s.slug}`);
    expect(res.statusCode).toBe(200);
    expect((res.body.match(/<tr>/g) ?? []).length).toBeGreaterThanOrEqual(200);
    expect(Buffer.byteLength(res.body)).toBeLessThan(70 * 1024);
  });
});

describe('what changed since the previous public edition', () => {
  it('shows added and removed aspects, changed cells (old → new) and descriptions, in place and as a summary', async () => {
    const { s, c, pub, q, path } = await published();
    const removed = await createAspect(t.db, w.tenant.id, s.id, c.id, { title: 'Fax renewals', isPublic: true, position: 2 });
    const second = await snap(s.id, 'public', 'Second');
    // Held by the page cache: the writes below must make it read again.
    await visit(path);
    const { aspects, availabilities } = await import('../../db/schema');
    await t.db.delete(aspects).where(eq(aspects.id, removed.id));
    await t.db.update(availabilities).set({ value: 'Available' }).where(eq(availabilities.aspectId, pub.id));
    await t.db.update(aspects).set({ description: '<p>Renew every loan</p>' }).where(eq(aspects.id, pub.id));
    await createAspect(t.db, w.tenant.id, s.id, c.id, { title: 'Self check-out', isPublic: true, position: 3 });
    await createAspect(t.db, w.tenant.id, s.id, c.id, { title: 'Hidden newcomer', isPublic: false, position: 4 });
    const third = await snap(s.id, 'public', 'Third');
    const html = (await visit(path)).body;
    expect(html).toContain('What changed since the previous edition');
    expect(html).toContain('<strong>1 aspect added, 1 aspect removed, 1 availability changed, 1 description changed</strong> since “Second”');
    expect(html).toContain('Added: Self check-out');
    expect(html).toContain('Removed: Fax renewals');
    expect(html).toContain(`Renew online, ${q}: <del>Beta</del> → <ins>Available</ins>`);
    expect(html).toContain('<td class="changed"><del><span class="visually-hidden">was </span>Beta</del> <ins>Available</ins></td>');
    expect(html).toContain('<span class="tag">New</span>');
    expect(html).toContain('<span class="tag">Description changed</span>');
    expect(html).not.toContain('Hidden newcomer');
    // Older editions are listed and each opens with what changed before it.
    expect(html).toContain(`href="${path}/editions/${second.id}"`);
    const older = await visit(`${path}/editions/${second.id}`);
    expect(older.statusCode).toBe(200);
    expect(older.body).toContain('edition Second');
    expect(older.body).toContain('1 aspect added');
    expect(older.body).toContain('See the latest edition');
    expect(older.body).toContain(`<link rel="canonical" href="http://localhost:3000${path}/editions/${second.id}">`);
    expect(third.id).not.toBe(second.id);
  });
});

describe('tenant index', () => {
  it('lists the published services with an edition: name, icon, description and the date of the last edition', async () => {
    const tenant = (
      await t.db
        .insert(tenants)
        .values({ name: 'Index Org', slug: `index-${Date.now()}` })
        .returning()
    )[0]!;
    const a = await createService(t.db, tenant.id, {
      name: 'Alpha desk',
      description: 'First service',
      published: true,
      iconUrl: 'data:image/png;base64,iVBORw0KGgo=',
    });
    const hidden = await createService(t.db, tenant.id, { name: 'Hidden desk' });
    const { takeSnapshot } = await import('../../commands/takeSnapshot');
    await takeSnapshot(t.db, a, { label: 'One', visibility: 'public', note: '', createdBy: 'Test' });
    await takeSnapshot(t.db, hidden, { label: 'Two', visibility: 'public', note: '', createdBy: 'Test' });
    const res = await visit(`/p/${tenant.slug}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`<title>Index Org: published services</title>`);
    expect(res.body).toContain(`<a href="/p/${tenant.slug}/${a.slug}">Alpha desk</a>`);
    expect(res.body).toContain('First service');
    expect(res.body).toContain('<img src="data:image/png;base64,iVBORw0KGgo=" alt="">');
    expect(res.body).toMatch(/Last edition <time datetime="[^"]+">\d{4}-\d\d-\d\d<\/time>/);
    expect(res.body).not.toContain('Hidden desk');
    expect(res.body).toContain(`href="/p/${tenant.slug}/feed.atom"`);
    // No published service: the same 404 as an unknown tenant.
    await t.db.update(services).set({ published: false }).where(eq(services.id, a.id));
    expect((await visit(`/p/${tenant.slug}`)).body).toBe((await visit('/p/no-such-tenant')).body);
  });
});

describe('Atom feeds', () => {
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', isArray: (name) => name === 'entry' || name === 'link' });
  const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

  /** The requirements of RFC 4287 a reader relies on: one id, title and updated; an author; entries with id, title, updated, link, summary. */
  function checkAtom(xml: string) {
    expect(XMLValidator.validate(xml)).toBe(true);
    const feed = parser.parse(xml).feed;
    expect(feed['@xmlns']).toBe('http://www.w3.org/2005/Atom');
    expect(typeof feed.id).toBe('string');
    expect(feed.title).toBeTruthy();
    expect(feed.updated).toMatch(RFC3339);
    expect(feed.author.name).toBeTruthy();
    expect(feed.link.some((l: Record<string, string>) => l['@rel'] === 'self')).toBe(true);
    for (const e of feed.entry ?? []) {
      expect(e.id).toMatch(/^urn:uuid:[0-9a-f-]{36}$/);
      expect(e.title).toBeTruthy();
      expect(e.updated).toMatch(RFC3339);
      expect(e.link[0]['@href']).toMatch(/^http:\/\/localhost:3000\/p\//);
      expect(e.summary['#text'] ?? e.summary).toBeTruthy();
    }
    return feed;
  }

  it('has one entry per public edition of a service, its summary being what changed', async () => {
    const { s, c, path } = await published();
    await createAspect(t.db, w.tenant.id, s.id, c.id, { title: 'Study rooms', isPublic: true, position: 5 });
    await createAspect(t.db, w.tenant.id, s.id, c.id, { title: 'Private <b>note</b>', isPublic: false, position: 6 });
    await snap(s.id, 'internal', 'Internal only');
    await snap(s.id, 'public', 'Autumn edition');
    const res = await visit(`${path}/feed.atom`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/atom+xml; charset=utf-8');
    const feed = checkAtom(res.body);
    expect(feed.entry.map((e: { title: string }) => e.title)).toEqual(['Library Loans: Autumn edition', 'Library Loans: Spring edition']);
    expect(feed.entry[0].summary['#text']).toBe('1 aspect added');
    expect(feed.entry[1].summary['#text']).toBe('First public edition');
    expect(feed.entry[0].link[0]['@href']).toBe(`http://localhost:3000${path}`);
    expect(res.body).not.toContain('Internal only');
    expect(res.body).not.toContain('Private');
    expect(res.body).not.toContain('Secret vendor deal');
    // The page links it.
    expect((await visit(path)).body).toContain(
      `<link rel="alternate" type="application/atom+xml" title="Library Loans: new editions" href="${path}/feed.atom">`,
    );
  });

  it('has a feed per tenant with the editions of every published service', async () => {
    const tenant = (
      await t.db
        .insert(tenants)
        .values({ name: 'Feed Org', slug: `feed-${Date.now()}` })
        .returning()
    )[0]!;
    const a = await createService(t.db, tenant.id, { name: 'Alpha', published: true });
    const b = await createService(t.db, tenant.id, { name: 'Beta <&>', published: true });
    const unpublished = await createService(t.db, tenant.id, { name: 'Quiet' });
    const { takeSnapshot } = await import('../../commands/takeSnapshot');
    for (const [svc, label] of [
      [a, 'A1'],
      [b, 'B1'],
      [unpublished, 'Q1'],
      [a, 'A2'],
    ] as const) {
      await takeSnapshot(t.db, svc, { label, visibility: 'public', note: 'note \u0001 with a control character', createdBy: 'Test' });
    }
    const res = await visit(`/p/${tenant.slug}/feed.atom`);
    const feed = checkAtom(res.body);
    expect(feed.entry.map((e: { title: string }) => e.title)).toEqual(['Alpha: A2', 'Beta <&>: B1', 'Alpha: A1']);
    expect(feed.entry[0].summary['#text']).toBe('No changes');
    expect(feed.entry[2].link[0]['@href']).toMatch(new RegExp(`/p/${tenant.slug}/${a.slug}/editions/`));
  });
});

describe('rate limit', () => {
  it('limits public requests per address', async () => {
    const limited = await buildTestApp({ PUBLIC_RATE_LIMIT: '3' });
    try {
      const get = (ip: string) => limited.app.inject({ method: 'GET', url: '/p/anything', remoteAddress: ip });
      for (let i = 0; i < 3; i++) expect((await get('203.0.113.1')).statusCode).toBe(404);
      const over = await get('203.0.113.1');
      expect(over.statusCode).toBe(429);
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      expect(over.body).toContain('Too many requests');
      // Another address is counted on its own.
      expect((await get('203.0.113.2')).statusCode).toBe(404);
    } finally {
      await limited.close();
    }
  });
});

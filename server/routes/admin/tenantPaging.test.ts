import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { assignServiceRole, createService, createTenant, createWorld, signIn, createUser, type World } from '../../test/factories';
import { TENANT_IDS_MAX, USER_PAGE_DEFAULT } from '../../../common/schemas/paging';

let t: TestApp;
let w: World;
let archived: { id: string; name: string };
const MISSING = '00000000-0000-4000-8000-000000000000';

type Row = { id: string; name: string; slug: string; archived: boolean };

beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
  // Tenants whose names sort among each other, one of them archived.
  for (let i = 0; i < 12; i++) await createTenant(t.db, { name: `Leafed ${String(i).padStart(2, '0')}`, slug: `leafed-${i}` });
  archived = await createTenant(t.db, { name: 'Leafed Archived', slug: 'leafed-archived', archived: true });
});
afterAll(() => t.close());

const get = (url: string, token = w.tokens.superAdmin) => call(t.app, 'GET', url, { token });

/** Follows the cursor from the first page to the last, answering every tenant in order. */
async function walk(url: string): Promise<Row[]> {
  const rows: Row[] = [];
  let after: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const sep = url.includes('?') ? '&' : '?';
    const res = await get(after ? `${url}${sep}after=${encodeURIComponent(after)}` : url);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    rows.push(...body.tenants);
    after = body.next_after;
    if (after === null) return rows;
  }
  throw new Error('the cursor never ended');
}

const ids = (rows: Row[]) => rows.map((r) => r.id);

describe('GET /api/admin/tenants: search, limit, cursor and ids', () => {
  it('walks every tenant page by page, as the whole list, in name order', async () => {
    const whole = (await get('/api/tenants')).json().tenants as Row[];
    const paged = await walk('/api/admin/tenants?limit=5');
    expect(new Set(ids(paged)).size).toBe(paged.length);
    expect(ids(paged).sort()).toEqual(ids(whole).sort());
    const leafed = paged.map((r) => r.name).filter((n) => n.startsWith('Leafed'));
    expect(leafed).toEqual(Array.from({ length: 12 }, (_, i) => `Leafed ${String(i).padStart(2, '0')}`));
    expect(ids(paged)).not.toContain(archived.id);
    const withArchived = await walk('/api/admin/tenants?limit=5&includeArchived=true');
    expect(ids(withArchived)).toContain(archived.id);
    expect(withArchived.find((r) => r.id === archived.id)).toMatchObject({ archived: true, slug: 'leafed-archived' });
  });

  it('answers a page of at most limit tenants with the next cursor; the default page is 100; the last page has null', async () => {
    const first = (await get('/api/admin/tenants?search=leafed&limit=5')).json();
    expect(first.tenants.map((r: Row) => r.name)).toEqual(['Leafed 00', 'Leafed 01', 'Leafed 02', 'Leafed 03', 'Leafed 04']);
    expect(typeof first.next_after).toBe('string');
    const next = (await get(`/api/admin/tenants?search=leafed&limit=5&after=${first.next_after}`)).json();
    expect(next.tenants[0].name).toBe('Leafed 05');
    const all = (await get('/api/admin/tenants?search=leafed')).json();
    expect(all.tenants).toHaveLength(12);
    expect(all.next_after).toBeNull();
    for (let i = 0; i < USER_PAGE_DEFAULT; i++) await createTenant(t.db, { name: `Crowded ${String(i).padStart(3, '0')}` });
    const page = (await get('/api/admin/tenants?search=crowded')).json();
    expect(page.tenants).toHaveLength(USER_PAGE_DEFAULT);
    expect(page.next_after).toBeNull();
    const bare = (await get('/api/admin/tenants')).json();
    expect(bare.tenants).toHaveLength(USER_PAGE_DEFAULT);
    expect(typeof bare.next_after).toBe('string');
  });

  it('searches name or slug, case-insensitively, with % and _ taken as typed', async () => {
    expect((await get('/api/admin/tenants?search=LEAFED%2007')).json().tenants.map((r: Row) => r.name)).toEqual(['Leafed 07']);
    expect((await get('/api/admin/tenants?search=leafed-11')).json().tenants.map((r: Row) => r.name)).toEqual(['Leafed 11']);
    expect((await get('/api/admin/tenants?search=leafed%25')).json().tenants).toEqual([]);
    expect((await get('/api/admin/tenants?search=leafed-archived')).json().tenants).toEqual([]);
    expect((await get('/api/admin/tenants?search=leafed-archived&includeArchived=true')).json().tenants.map((r: Row) => r.id)).toEqual([archived.id]);
  });

  it('answers the tenants of the ids given, archived ones when asked, and no others', async () => {
    const res = (await get(`/api/admin/tenants?includeArchived=true&ids=${w.other.id},${archived.id},${MISSING},${w.other.id}`)).json();
    expect(ids(res.tenants).sort()).toEqual([w.other.id, archived.id].sort());
    expect(res.next_after).toBeNull();
    const active = (await get(`/api/admin/tenants?ids=${w.other.id},${archived.id}`)).json();
    expect(ids(active.tenants)).toEqual([w.other.id]);
    expect((await get('/api/admin/tenants?ids=')).json().tenants).toEqual([]);
  });

  it('answers 400 naming a bad value', async () => {
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['limit=ten', 'limit'],
      ['after=nope', 'after'],
      [`search=${'x'.repeat(201)}`, 'search'],
      ['includeArchived=maybe', 'includeArchived'],
      ['ids=not-an-id', 'ids'],
      [`ids=${Array.from({ length: TENANT_IDS_MAX + 1 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`).join(',')}`, 'ids'],
    ] as const) {
      const res = await get(`/api/admin/tenants?${query}`);
      expect(res.statusCode, query.slice(0, 40)).toBe(400);
      expect(String(res.json().field ?? '')).toMatch(new RegExp(`^${field}`));
    }
  });

  it('answers 401 without a session and 403 to everyone but a super admin', async () => {
    expect((await call(t.app, 'GET', '/api/admin/tenants')).statusCode).toBe(401);
    for (const token of [w.tokens.reader, w.tokens.editor, w.tokens.admin, w.tokens.otherAdmin]) {
      expect((await get('/api/admin/tenants?search=leafed', token)).statusCode).toBe(403);
      expect((await get(`/api/admin/tenants?ids=${w.other.id}`, token)).statusCode).toBe(403);
    }
  });

  it('refuses a reader raised to service admin by an assignment', async () => {
    const raised = await createUser(t.db, w.tenant.id, { role: 'reader' });
    const service = await createService(t.db, w.tenant.id);
    await assignServiceRole(t.db, w.tenant.id, service.id, raised.id, 'admin');
    const token = await signIn(t.app, raised.email);
    // The assignment counts: the service's settings are theirs...
    expect((await call(t.app, 'GET', `/api/services/${service.id}/settings-data`, { token, tenant: w.tenant.slug })).statusCode).toBe(200);
    // ...the installation's tenants are not.
    expect((await get('/api/admin/tenants', token)).statusCode).toBe(403);
    expect((await call(t.app, 'GET', '/api/admin/tenants?search=leafed', { token, tenant: w.tenant.slug })).statusCode).toBe(403);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { assignServiceRole, createService, createTenant, createWorld, type World } from '../../test/factories';
import { analyze, rowsRead } from '../../test/plans';
import { services } from '../../db/schema';
import { servicesPageStatement } from '../../db/queries/services';
import { tenantScope, withScope } from '../../db/scope';
import { encodeCursor, SERVICE_PAGE_DEFAULT } from '../../../common/schemas/paging';

let t: TestApp;
let w: World;
let archivedId: string;
let assignedId: string;
let foreignId: string;

type Row = { id: string; name: string; slug: string; archived: boolean; tenant_id: string };

const pad = (i: number) => String(i).padStart(2, '0');

beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
  // 25 services with names that sort among each other, one archived, and one in another tenant.
  for (let i = 0; i < 25; i++) {
    await createService(t.db, w.tenant.id, {
      name: `Pager ${pad(i)}`,
      slug: `pager-${i}`,
      description: i === 3 ? '<p>Runs the <strong>night&nbsp;batch</strong> of R&amp;D</p>' : i === 5 ? '<p>early<br />late</p>' : '',
      serviceOwner: i === 4 ? 'Olga Owner' : '',
    });
  }
  archivedId = (await createService(t.db, w.tenant.id, { name: 'Pager Archived', slug: 'pager-archived', archived: true })).id;
  foreignId = (await createService(t.db, w.other.id, { name: 'Pager Foreign', slug: 'pager-foreign' })).id;
  await createService(t.db, w.tenant.id, { name: 'Percent 100% sure', slug: 'percent-sure' });
  await createService(t.db, w.tenant.id, { name: 'Under_score', slug: 'under-score' });
  // The reader is raised to a service admin on one service: the page's permissions say so.
  assignedId = (await createService(t.db, w.tenant.id, { name: 'Zz Assigned', slug: 'zz-assigned' })).id;
  await assignServiceRole(t.db, w.tenant.id, assignedId, w.users.reader.id, 'admin');
});
afterAll(() => t.close());

/** Follows the cursor from the first page to the last, answering every row in order and each page's permissions. */
async function walk(url: string, token: string) {
  const rows: Row[] = [];
  const raised: Record<string, unknown> = {};
  let after: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const sep = url.includes('?') ? '&' : '?';
    const res = await call(t.app, 'GET', after ? `${url}${sep}after=${encodeURIComponent(after)}` : url, { token });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.permissions).toHaveProperty('default');
    // A page's permissions name its own services only.
    const onPage = new Set(body.services.map((s: Row) => s.id));
    for (const id of Object.keys(body.permissions.services)) expect(onPage.has(id)).toBe(true);
    Object.assign(raised, body.permissions.services);
    rows.push(...body.services);
    after = body.next_after;
    if (after === null) return { rows, raised };
  }
  throw new Error('the cursor never ended');
}

const ids = (rows: Row[]) => rows.map((r) => r.id);
const names = (rows: Row[]) => rows.map((r) => r.name);
const get = (url: string, token: string) => call(t.app, 'GET', url, { token });

describe('GET /api/services: search, limit and cursor', () => {
  it('answers as before without paging parameters', async () => {
    const whole = (await get('/api/services', w.tokens.admin)).json();
    expect(whole).not.toHaveProperty('next_after');
    expect(Object.keys(whole)).toEqual(['services', 'permissions']);
    expect(ids(whole.services)).not.toContain(archivedId);
    const withArchived = (await get('/api/services?includeArchived=true', w.tokens.admin)).json();
    expect(withArchived).not.toHaveProperty('next_after');
    expect(ids(withArchived.services)).toContain(archivedId);
  });

  it('walks the whole list page by page: every row of the unpaged list once, in the same order, no other', async () => {
    for (const q of ['', 'includeArchived=true&']) {
      const whole = (await get(`/api/services?${q}`, w.tokens.admin)).json();
      const { rows } = await walk(`/api/services?${q}limit=4`, w.tokens.admin);
      expect(new Set(ids(rows)).size).toBe(rows.length);
      expect(ids(rows)).toEqual(ids(whole.services));
      expect(rows.every((r) => r.tenant_id === w.tenant.id)).toBe(true);
    }
  });

  it('answers a page of at most limit rows, in name order, with the next cursor; the last page has null', async () => {
    const first = (await get('/api/services?search=pager&limit=10', w.tokens.admin)).json();
    expect(names(first.services)).toEqual(Array.from({ length: 10 }, (_, i) => `Pager ${pad(i)}`));
    expect(typeof first.next_after).toBe('string');
    const { rows } = await walk('/api/services?search=pager&limit=10', w.tokens.admin);
    expect(names(rows)).toEqual(Array.from({ length: 25 }, (_, i) => `Pager ${pad(i)}`));
    const exact = (await get('/api/services?search=pager%2024&limit=1', w.tokens.admin)).json();
    expect(names(exact.services)).toEqual(['Pager 24']);
    expect(exact.next_after).toBeNull();
  });

  it('searches name, slug, description text and service owner, whatever the case', async () => {
    const found = async (search: string) => names((await get(`/api/services?search=${encodeURIComponent(search)}`, w.tokens.admin)).json().services);
    expect(await found('PAGER 07')).toEqual(['Pager 07']);
    expect(await found('pager-11')).toEqual(['Pager 11']);
    // The description as it reads: tags left out, entities read.
    expect(await found('NIGHT BATCH')).toEqual(['Pager 03']);
    expect(await found('of r&d')).toEqual(['Pager 03']);
    expect(await found('strong')).toEqual([]);
    // A line break stays between the words it parts, as the card shows them.
    expect(await found('LATE')).toEqual(['Pager 05']);
    expect(await found('earlylate')).toEqual([]);
    expect(await found('olga owner')).toEqual(['Pager 04']);
    // The fields are searched one by one: a term never spans the end of one and the start of the next.
    expect(await found('07pager-07')).toEqual([]);
  });

  it('finds a service by what it says after an edit, and no longer by what it said before', async () => {
    const found = async (search: string) => names((await get(`/api/services?search=${encodeURIComponent(search)}`, w.tokens.admin)).json().services);
    const edit = (description: string) =>
      call(t.app, 'PUT', `/api/services/${assignedId}`, { token: w.tokens.admin, body: { name: 'Zz Assigned', description } });
    expect((await edit('Loans laptops by the week')).statusCode).toBe(200);
    expect(await found('LAPTOPS BY')).toEqual(['Zz Assigned']);
    expect((await edit('Lends tablets')).statusCode).toBe(200);
    expect(await found('laptops')).toEqual([]);
    expect(await found('lends TABLETS')).toEqual(['Zz Assigned']);
  });

  it('takes % and _ as typed', async () => {
    const found = async (search: string) => names((await get(`/api/services?search=${encodeURIComponent(search)}`, w.tokens.admin)).json().services);
    expect(await found('%')).toEqual(['Percent 100% sure']);
    expect(await found('r_s')).toEqual(['Under_score']);
    expect(await found('0%s')).toEqual([]);
  });

  it('answers the default page size when only a search is given', async () => {
    const res = (await get('/api/services?search=', w.tokens.admin)).json();
    expect(res.services.length).toBeLessThanOrEqual(SERVICE_PAGE_DEFAULT);
    expect(res.next_after).toBeNull();
  });

  it('never answers another tenant’s services', async () => {
    const { rows } = await walk('/api/services?search=pager&includeArchived=true&limit=3', w.tokens.admin);
    expect(ids(rows)).not.toContain(foreignId);
    const theirs = await walk('/api/services?search=pager&limit=3', w.tokens.otherAdmin);
    expect(ids(theirs.rows)).toEqual([foreignId]);
  });

  it('answers archived services only to those who may see them, with or without a search', async () => {
    for (const url of ['/api/services?includeArchived=true&limit=5', '/api/services?includeArchived=true&search=archived']) {
      expect(ids((await walk(url, w.tokens.admin)).rows)).toContain(archivedId);
      expect(ids((await walk(url, w.tokens.superAdmin)).rows)).toContain(archivedId);
      expect(ids((await walk(url, w.tokens.editor)).rows)).not.toContain(archivedId);
      expect(ids((await walk(url, w.tokens.reader)).rows)).not.toContain(archivedId);
    }
    expect(ids((await walk('/api/services?limit=5', w.tokens.admin)).rows)).not.toContain(archivedId);
  });

  it('answers a reader the pages of what the unpaged call shows them, with the same permissions', async () => {
    const whole = (await get('/api/services?includeArchived=true', w.tokens.reader)).json();
    const { rows, raised } = await walk('/api/services?includeArchived=true&limit=7', w.tokens.reader);
    expect(ids(rows)).toEqual(ids(whole.services));
    expect(raised).toEqual(whole.permissions.services);
    expect(raised).toHaveProperty(assignedId);
    const page = (await get('/api/services?limit=5', w.tokens.reader)).json();
    expect(page.permissions.default).toEqual(whole.permissions.default);
    expect(page.permissions.services).toEqual({});
  });

  it('gives an API token limited to some services full pages of those only, found before paging', async () => {
    // Of 29 services by name the token reaches the 2nd and the last: its first page of 1 is the first of them, not an empty page.
    const whole = (await get('/api/services', w.tokens.admin)).json();
    const reach = [whole.services[1].id, assignedId];
    const created = await call(t.app, 'POST', '/api/api-tokens', { token: w.tokens.admin, body: { name: 'Two services', role: 'reader', serviceIds: reach } });
    expect(created.statusCode, created.body).toBe(201);
    const secret = created.json().secret;
    const first = (await get('/api/services?limit=1', secret)).json();
    expect(ids(first.services)).toEqual([reach[0]]);
    const { rows } = await walk('/api/services?limit=1', secret);
    expect(ids(rows)).toEqual(reach);
    expect(ids((await get('/api/services?search=zz&limit=5', secret)).json().services)).toEqual([assignedId]);
    expect(ids((await get('/api/services', secret)).json().services)).toEqual(reach);
  });

  it('refuses a bad limit, search or cursor, naming it', async () => {
    const cases: [string, string][] = [
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['limit=x', 'limit'],
      ['after=nope', 'after'],
      [`after=${'a'.repeat(3000)}`, 'after'],
      [`after=${encodeCursor(['Pager 01', 'not-an-id'])}`, 'after'],
      [`search=${'s'.repeat(201)}`, 'search'],
      ['includeArchived=maybe&limit=5', 'includeArchived'],
    ];
    for (const [q, field] of cases) {
      const res = await get(`/api/services?${q}`, w.tokens.admin);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().field, q).toBe(field);
    }
    expect((await call(t.app, 'GET', '/api/services?limit=5')).statusCode).toBe(401);
  });
});

describe("a page of a large tenant's services reads about a page", () => {
  it("walks the name index in the tenant scope, the first page and a later one: row-level security does not hide the tenant's size from the planner", async () => {
    const large = await createTenant(t.db);
    for (let from = 0; from < 3000; from += 500) {
      await t.db.insert(services).values(
        Array.from({ length: 500 }, (_, i) => ({
          tenantId: large.id,
          name: `Bulk ${String(from + i).padStart(5, '0')}`,
          slug: `bulk-${from + i}`,
          timeline: ['2030-Q1'],
        })),
      );
    }
    await analyze(t.database, 'services');
    const page = (after?: [string, string]) =>
      withScope(tenantScope(large.id), () => rowsRead(t.db, servicesPageStatement(t.db, large.id, { includeArchived: false, limit: 101, after }), 'services'));
    // A plan that estimated the tenant's services at a few dozen read and sorted all 3,000.
    expect(await page()).toBeLessThanOrEqual(150);
    expect(await page(['Bulk 01500', '00000000-0000-4000-8000-000000000000'])).toBeLessThanOrEqual(150);
  });
});

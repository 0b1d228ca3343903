import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type SQL } from 'drizzle-orm';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createTenant, createUser, createWorld, type World } from '../../test/factories';
import { analyze, rowsRead, vacuumAnalyze } from '../../test/plans';
import { tenantMemberships, users } from '../../db/schema';
import { tenantPeopleStatement, tenantUsersStatement } from '../../db/queries/admin';
import { USER_PAGE_DEFAULT } from '../../../common/schemas/paging';

let t: TestApp;
let w: World;
let outsider: { id: string; email: string };

type Row = { id: string; name: string; email: string; invitation?: boolean };

beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
  // 25 people of the tenant with names that sort among each other, and one pending invitation.
  for (let i = 0; i < 25; i++) {
    await createUser(t.db, w.tenant.id, { name: `Pager ${String(i).padStart(2, '0')}`, email: `pager-${i}@example.com` });
  }
  outsider = await createUser(t.db, w.other.id, { name: 'Pager Outsider', email: 'pager-outsider@example.com' });
  const invited = await createUser(t.db, w.other.id, { name: 'Account Name', email: 'pager-invited@example.com' });
  const res = await call(t.app, 'POST', '/api/users', {
    token: w.tokens.admin,
    body: { email: invited.email, name: 'Pager Invited', role: 'reader', password: '' },
  });
  expect(res.statusCode).toBe(201);
});
afterAll(() => t.close());

/** Follows the cursor from the first page to the last, answering every row in order. */
async function walk(url: string, token: string, opts: { tenant?: string; key?: 'users' | 'tenants'; next?: string; cursor?: string } = {}) {
  const key = opts.key ?? 'users';
  const nextField = opts.next ?? 'next_after';
  const cursorParam = opts.cursor ?? 'after';
  const rows: Row[] = [];
  let after: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const sep = url.includes('?') ? '&' : '?';
    const res = await call(t.app, 'GET', after ? `${url}${sep}${cursorParam}=${encodeURIComponent(after)}` : url, { token, tenant: opts.tenant });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    rows.push(...body[key]);
    after = body[nextField];
    if (after === null) return rows;
  }
  throw new Error('the cursor never ended');
}

const ids = (rows: Row[]) => rows.map((r) => r.id);

describe('GET /api/users: search, limit and cursor', () => {
  it('walks the whole tenant page by page: every row of the whole list once, no other', async () => {
    const whole = (await call(t.app, 'GET', '/api/users', { token: w.tokens.admin })).json();
    expect(whole).not.toHaveProperty('next_after');
    const paged = await walk('/api/users?limit=4', w.tokens.admin);
    expect(new Set(ids(paged)).size).toBe(paged.length);
    expect(ids(paged).sort()).toEqual(ids(whole.users).sort());
    expect(paged.find((r) => r.name === 'Pager Invited')).toMatchObject({ invitation: true, email: 'pager-invited@example.com' });
  });

  it('answers a page of at most limit rows, in name order, with the next cursor; the last page has null', async () => {
    const first = (await call(t.app, 'GET', '/api/users?search=pager&limit=10', { token: w.tokens.admin })).json();
    expect(first.users.map((u: Row) => u.name)).toEqual(Array.from({ length: 10 }, (_, i) => `Pager ${String(i).padStart(2, '0')}`));
    expect(typeof first.next_after).toBe('string');
    const all = await walk('/api/users?search=pager&limit=10', w.tokens.admin);
    expect(all.map((u) => u.name)).toEqual([...Array.from({ length: 25 }, (_, i) => `Pager ${String(i).padStart(2, '0')}`), 'Pager Invited']);
  });

  it('searches name or email, whatever the case, and never finds another tenant’s users', async () => {
    const byName = (await call(t.app, 'GET', '/api/users?search=PAGER%2007', { token: w.tokens.admin })).json();
    expect(byName.users.map((u: Row) => u.email)).toEqual(['pager-7@example.com']);
    expect(byName.next_after).toBeNull();
    const byEmail = (await call(t.app, 'GET', '/api/users?search=PAGER-INVITED%40', { token: w.tokens.admin })).json();
    expect(byEmail.users).toMatchObject([{ name: 'Pager Invited', invitation: true }]);
    const outside = (await call(t.app, 'GET', '/api/users?search=outsider', { token: w.tokens.admin })).json();
    expect(outside.users).toEqual([]);
    // The other tenant's admin sees the outsider, and none of this tenant's people.
    const theirs = await walk('/api/users?search=pager&limit=2', w.tokens.otherAdmin);
    expect(ids(theirs)).toContain(outsider.id);
    expect(theirs.some((u) => /^Pager \d/.test(u.name))).toBe(false);
  });

  it('takes % and _ as typed', async () => {
    const res = (await call(t.app, 'GET', '/api/users?search=%25', { token: w.tokens.admin })).json();
    expect(res.users).toEqual([]);
  });

  it('answers the default page size when only a search is given', async () => {
    const res = (await call(t.app, 'GET', '/api/users?search=', { token: w.tokens.admin })).json();
    expect(res.users.length).toBeLessThanOrEqual(USER_PAGE_DEFAULT);
    expect(res.next_after).toBeNull();
  });

  it('refuses readers and editors, and a bad limit or cursor', async () => {
    expect((await call(t.app, 'GET', '/api/users?limit=5', { token: w.tokens.reader })).statusCode).toBe(403);
    expect((await call(t.app, 'GET', '/api/users?search=pager', { token: w.tokens.editor })).statusCode).toBe(403);
    for (const q of ['limit=0', 'limit=501', 'limit=x', 'after=nope', `after=${'a'.repeat(3000)}`]) {
      const res = await call(t.app, 'GET', `/api/users?${q}`, { token: w.tokens.admin });
      expect(res.statusCode, q).toBe(400);
    }
  });
});

describe('GET /api/admin/users and /api/admin/panel-data: search, limit and cursor', () => {
  it('walks every user of the installation page by page, as the whole list', async () => {
    const whole = (await call(t.app, 'GET', '/api/admin/users', { token: w.tokens.superAdmin })).json();
    expect(whole).not.toHaveProperty('next_after');
    const paged = await walk('/api/admin/users?limit=6', w.tokens.superAdmin);
    expect(new Set(ids(paged)).size).toBe(paged.length);
    expect(ids(paged).sort()).toEqual(ids(whole.users).sort());
  });

  it('searches every tenant’s users by name or email', async () => {
    const res = (await call(t.app, 'GET', '/api/admin/users?search=Pager%20OUTSIDER', { token: w.tokens.superAdmin })).json();
    expect(res.users.map((u: Row) => u.id)).toEqual([outsider.id]);
    const mail = (await call(t.app, 'GET', '/api/admin/users?search=pager-1', { token: w.tokens.superAdmin })).json();
    expect(mail.users.map((u: Row) => u.email).sort()).toEqual(
      ['pager-1@example.com', ...Array.from({ length: 10 }, (_, i) => `pager-1${i}@example.com`)].sort(),
    );
  });

  it('filters by user group on the server', async () => {
    const auto = await createUser(t.db, w.other.id, { name: 'Pager Auto', email: 'pager-auto@example.com', userGroup: 'entra_auto' });
    const res = (await call(t.app, 'GET', '/api/admin/users?search=pager&group=entra_auto', { token: w.tokens.superAdmin })).json();
    expect(res.users.map((u: Row) => u.id)).toEqual([auto.id]);
    const manual = await walk('/api/admin/users?search=pager&group=manual&limit=9', w.tokens.superAdmin);
    expect(ids(manual)).not.toContain(auto.id);
    expect(manual.length).toBeGreaterThanOrEqual(26);
    expect((await call(t.app, 'GET', '/api/admin/users?group=other', { token: w.tokens.superAdmin })).statusCode).toBe(400);
  });

  it('pages the panel’s tenants and users, each with its cursor; without parameters it answers as before', async () => {
    for (let i = 0; i < 5; i++) await createTenant(t.db, { name: `Paged Tenant ${i}` });
    const whole = (await call(t.app, 'GET', '/api/admin/panel-data', { token: w.tokens.superAdmin })).json();
    expect(whole).not.toHaveProperty('next_users_after');
    expect(whole).toHaveProperty('is_impersonating', false);
    const tenants = await walk('/api/admin/panel-data?tenantsLimit=2', w.tokens.superAdmin, {
      key: 'tenants',
      next: 'next_tenants_after',
      cursor: 'tenantsAfter',
    });
    expect(ids(tenants).sort()).toEqual(ids(whole.tenants).sort());
    const users = await walk('/api/admin/panel-data?limit=7', w.tokens.superAdmin, { next: 'next_users_after' });
    expect(ids(users).sort()).toEqual(ids(whole.users).sort());
    // Each list is paged on its own: a page of users leaves the tenants whole.
    const onePage = (await call(t.app, 'GET', '/api/admin/panel-data?limit=1', { token: w.tokens.superAdmin })).json();
    expect(onePage.users).toHaveLength(1);
    expect(ids(onePage.tenants)).toEqual(ids(whole.tenants));
    expect(onePage).not.toHaveProperty('next_tenants_after');
    const found = (await call(t.app, 'GET', '/api/admin/panel-data?tenantSearch=paged%20tenant%203&search=outsider', { token: w.tokens.superAdmin })).json();
    expect(found.tenants.map((x: Row) => x.name)).toEqual(['Paged Tenant 3']);
    expect(found.users.map((x: Row) => x.id)).toEqual([outsider.id]);
  });

  it('refuses tenant admins', async () => {
    expect((await call(t.app, 'GET', '/api/admin/users?search=pager', { token: w.tokens.admin })).statusCode).toBe(403);
    expect((await call(t.app, 'GET', '/api/admin/panel-data?limit=5', { token: w.tokens.admin })).statusCode).toBe(403);
  });
});

const usersRead = (statement: SQL) => rowsRead(t.db, statement, 'users');

describe("the tenant's user list reads its own users only", () => {
  it('reads as many users rows with 5,000 more users in another tenant', async () => {
    const small = await createTenant(t.db);
    await createUser(t.db, small.id, { name: 'Only One' });
    const statements = () => [
      tenantUsersStatement(t.db, small.id),
      tenantUsersStatement(t.db, small.id, { search: 'only', limit: 101 }),
      tenantPeopleStatement(small.id, { limit: 101 }),
    ];
    await analyze(t.database, 'users');
    const before = await Promise.all(statements().map(usersRead));

    const crowd = await createTenant(t.db);
    for (let chunk = 0; chunk < 5; chunk++) {
      const rows = await t.db
        .insert(users)
        .values(Array.from({ length: 1000 }, (_, i) => ({ email: `crowd-${chunk}-${i}@example.com`, name: `Crowd ${chunk} ${i}`, tenantId: crowd.id })))
        .returning({ id: users.id });
      await t.db.insert(tenantMemberships).values(rows.map((r) => ({ userId: r.id, tenantId: crowd.id })));
    }
    await analyze(t.database, 'users');
    await analyze(t.database, 'tenant_memberships');
    const after = await Promise.all(statements().map(usersRead));
    for (let i = 0; i < after.length; i++) {
      // Reading every user (the old `tenant_id = X or exists(...)`) would read over 5,000 more.
      expect(after[i], `statement ${i}`).toBeLessThanOrEqual(before[i]! + 5);
      expect(after[i], `statement ${i}`).toBeLessThan(50);
    }
  });

  it('answers a search from the trigram indexes, not by comparing the text with every user', async () => {
    // 2,000 users of one tenant (Sought 10000 to Sought 11999, sought10000@example.com on), members of
    // another: '1104' finds 11 by name, 't10999' one by address.
    const own = await createTenant(t.db);
    const host = await createTenant(t.db);
    for (let chunk = 0; chunk < 2; chunk++) {
      const rows = await t.db
        .insert(users)
        .values(
          Array.from({ length: 1000 }, (_, i) => 10_000 + chunk * 1000 + i).map((n) => ({
            email: `sought${n}@example.com`,
            name: `Sought ${n}`,
            tenantId: own.id,
          })),
        )
        .returning({ id: users.id });
      await t.db.insert(tenantMemberships).values(rows.map((r) => ({ userId: r.id, tenantId: host.id })));
    }
    await vacuumAnalyze(t.database, 'users');
    await analyze(t.database, 'tenant_memberships');
    for (const [tenant, search] of [
      [host.id, '1104'],
      [host.id, 't10999'],
    ] as const) {
      for (const statement of [tenantPeopleStatement(tenant, { search, limit: 101 }), tenantUsersStatement(t.db, tenant, { search, limit: 101 })]) {
        // A table this small is read whole when that is cheaper; at an installation's size (100,000
        // users, bench/lists.ts) the planner takes the index. Here the plan may only use an index:
        // without those of migration 0017 it reads the tenant's 2,000 users, or every user.
        const read = await t.db.transaction(async (tx) => {
          await tx.execute(sql`set local enable_seqscan = off`);
          return rowsRead(tx as unknown as typeof t.db, statement, 'users');
        });
        expect(read, `${search} in the ${tenant === own.id ? 'own' : 'host'} tenant`).toBeLessThan(100);
      }
    }
  });
});

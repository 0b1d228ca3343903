/**
 * The data of the lists bench (bench/lists.ts), written with set-based SQL as the database's owner:
 * the small installation (20 tenants, the baseline tenant full) and the large one (the sizes of
 * issue 25), and what they hold, counted.
 */
import pg from 'pg';
import { addQuarters, quarterOf } from '../common/quarters';
import { ADMIN } from './server';

export const BASE_ITEMS = 20;

export interface ListSizes {
  services: number;
  tenants: number;
  users: number;
  tenantUsers: number;
  /** Of the large tenant's users, those who are members from another tenant (the rest are its own). */
  tenantMembers: number;
  history: number;
  snapshots: number;
}

export const LIST_SIZES: Record<'small' | 'full', ListSizes> = {
  full: { services: 10_000, tenants: 10_000, users: 100_000, tenantUsers: 10_000, tenantMembers: 2_000, history: 100_000, snapshots: 1_000 },
  small: { services: 500, tenants: 500, users: 5_000, tenantUsers: 500, tenantMembers: 100, history: 5_000, snapshots: 50 },
};

export type Side = 'large' | 'base';
export const TENANT = { large: { name: 'Lists Large', slug: 'lists-large' }, base: { name: 'Lists Baseline', slug: 'lists-base' } } as const;
export const TENANT_ADMIN = { large: 'admin-large@bench.test', base: 'admin-base@bench.test' } as const;

async function withClient<T>(url: string, run: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await run(c);
  } finally {
    await c.end();
  }
}

const one = async <T = any>(c: pg.Client, text: string, values: unknown[] = []): Promise<T> => (await c.query(text, values)).rows[0] as T;

function timeline(): string[] {
  const first = quarterOf(new Date());
  return Array.from({ length: 12 }, (_, i) => addQuarters(first, i));
}

/** Adds filler tenants ('Tenant 00001', ...) until the installation has `total` tenants. */
async function tenantsUpTo(c: pg.Client, total: number): Promise<void> {
  const { count, fillers } = await one(c, `select count(*)::int as count, count(*) filter (where slug like 'tenant-%')::int as fillers from tenants`);
  const add = total - count;
  if (add <= 0) return;
  await c.query(
    `insert into tenants (name, slug) select 'Tenant ' || lpad(g::text, 5, '0'), 'tenant-' || lpad(g::text, 5, '0') from generate_series($1::int, $2::int) g`,
    [fillers + 1, fillers + add],
  );
}

/** Adds a tenant's own users, `Prefix 00001`..., emails prefix-00001@bench.test. */
async function ownUsers(c: pg.Client, tenantId: string, name: string, email: string, count: number): Promise<void> {
  if (count <= 0) return;
  await c.query(
    `insert into users (email, name, role, tenant_id)
     select $3 || '-' || lpad(g::text, 5, '0') || '@bench.test', $2 || ' ' || lpad(g::text, 5, '0'), (array['reader', 'editor', 'reader', 'reader'])[1 + g % 4], $1
     from generate_series(1, $4::int) g`,
    [tenantId, name, email, count],
  );
}

/** Adds users spread over the filler tenants ('Person 000001', ...) until the installation has `total` users. */
async function peopleUpTo(c: pg.Client, total: number): Promise<void> {
  const { count, people } = await one(c, `select count(*)::int as count, count(*) filter (where email like 'p-%')::int as people from users`);
  const add = total - count;
  if (add <= 0) return;
  await c.query(
    `with t as (select id, (row_number() over (order by slug) - 1)::int as i, (count(*) over ())::int as n from tenants where slug like 'tenant-%')
     insert into users (email, name, role, tenant_id)
     select 'p-' || lpad(g::text, 6, '0') || '@bench.test', 'Person ' || lpad(g::text, 6, '0'), 'reader', t.id
     from generate_series($1::int, $2::int) g join t on t.i = g % t.n`,
    [people + 1, people + add],
  );
}

/** Makes `count` of the filler tenants' users, from the `offset`th, members of a tenant. */
async function members(c: pg.Client, tenantId: string, offset: number, count: number): Promise<void> {
  await c.query(
    `insert into tenant_memberships (user_id, tenant_id) select id, $1 from users where email like 'p-%' order by email offset $2 limit $3 on conflict do nothing`,
    [tenantId, offset, count],
  );
}

async function addServices(c: pg.Client, tenantId: string, count: number): Promise<void> {
  await c.query(
    `insert into services (tenant_id, name, slug, description, service_owner, subscription_model, timeline)
     select $1, 'Service ' || lpad(g::text, 5, '0'), 'service-' || g,
       '<p>Access to network storage for students and staff, reviewed each term (' || substr(md5(g::text), 1, 8) || ').</p>',
       'Owner ' || (g % 40), 'Included', $2::jsonb
     from generate_series(1, $3::int) g`,
    [tenantId, JSON.stringify(timeline()), count],
  );
}

/** In the tenant's first service: a cell changed `changes` times (newest last) and `snapshots` snapshots. */
async function cellAndSnapshots(c: pg.Client, tenantId: string, changes: number, snapshots: number): Promise<{ serviceId: string; aspectId: string }> {
  const { id: serviceId } = await one(c, `select id from services where tenant_id = $1 and slug = 'service-1'`, [tenantId]);
  const { id: categoryId } = await one(c, `insert into categories (tenant_id, service_id, name) values ($1, $2, 'Category 1') returning id`, [
    tenantId,
    serviceId,
  ]);
  const { id: aspectId } = await one(
    c,
    `insert into aspects (tenant_id, service_id, category_id, title, description) values ($1, $2, $3, 'The cell that changes', '<p>Changed many times.</p>') returning id`,
    [tenantId, serviceId, categoryId],
  );
  const quarter = timeline()[0]!;
  await c.query(
    `insert into availability_history (tenant_id, service_id, aspect_id, time_bucket, value, changed_by, changed_at)
     select $1, $2, $3, $4, 'Available to students and staff, change ' || g, 'editor@bench.test', now() - ($5::int - g) * interval '1 second'
     from generate_series(1, $5::int) g`,
    [tenantId, serviceId, aspectId, quarter, changes],
  );
  await c.query(`insert into availabilities (tenant_id, service_id, aspect_id, time_bucket, value) values ($1, $2, $3, $4, $5)`, [
    tenantId,
    serviceId,
    aspectId,
    quarter,
    `Available to students and staff, change ${changes}`,
  ]);
  const data = { service: { name: 'Service 00001' }, categories: [], resolved_data: { aspects: [], timeline: timeline() } };
  await c.query(
    `insert into snapshots (tenant_id, service_id, label, visibility, note, data, created_by, created_at)
     select $1, $2, 'Snapshot ' || lpad(g::text, 4, '0'), case when g % 2 = 0 then 'public' else 'internal' end, 'Term review ' || g, $3::jsonb, 'editor@bench.test',
       now() - ($4::int - g) * interval '1 minute'
     from generate_series(1, $4::int) g`,
    [tenantId, serviceId, JSON.stringify(data), snapshots],
  );
  return { serviceId, aspectId };
}

export interface Built {
  tenantIds: Record<Side, string>;
  cell: Record<Side, { serviceId: string; aspectId: string }>;
}

/** Step 2: the small installation (20 tenants; the baseline tenant full, the large one empty). */
export async function buildSmall(url: string): Promise<Built> {
  return withClient(url, async (c) => {
    await c.query('begin');
    const { password_hash: hash } = await one(c, `update users set name = 'Super Admin (bench)' where email = $1 returning password_hash`, [ADMIN.email]);
    const tenantIds = {} as Record<Side, string>;
    for (const side of ['large', 'base'] as const) {
      tenantIds[side] = (await one(c, `insert into tenants (name, slug) values ($1, $2) returning id`, [TENANT[side].name, TENANT[side].slug])).id;
      // The tenant admin who signs in (the super admin's password); named to sort after every other user.
      await c.query(`insert into users (email, name, role, tenant_id, password_hash) values ($1, $2, 'admin', $3, $4)`, [
        TENANT_ADMIN[side],
        `Tenant admin ${side}`,
        tenantIds[side],
        hash,
      ]);
    }
    await tenantsUpTo(c, BASE_ITEMS);
    const baseMembers = Math.round(BASE_ITEMS / 5);
    await ownUsers(c, tenantIds.base, 'Base user', 'b', BASE_ITEMS - baseMembers - 1);
    await peopleUpTo(c, (await one(c, 'select count(*)::int as n from users')).n + baseMembers);
    await members(c, tenantIds.base, 0, baseMembers);
    await addServices(c, tenantIds.base, BASE_ITEMS);
    const base = await cellAndSnapshots(c, tenantIds.base, BASE_ITEMS, BASE_ITEMS);
    await c.query(`insert into tenant_memberships (user_id, tenant_id) select id, tenant_id from users on conflict do nothing`);
    await c.query('commit');
    await c.query('vacuum analyze');
    return { tenantIds, cell: { base, large: { serviceId: '', aspectId: '' } } };
  });
}

/** Step 3: the large installation. */
export async function buildLarge(url: string, sizes: ListSizes, built: Built): Promise<void> {
  await withClient(url, async (c) => {
    await c.query('begin');
    const large = built.tenantIds.large;
    await tenantsUpTo(c, sizes.tenants);
    await ownUsers(c, large, 'Large user', 'l', sizes.tenantUsers - sizes.tenantMembers - 1);
    await peopleUpTo(c, sizes.users);
    await members(c, large, Math.round(BASE_ITEMS / 5), sizes.tenantMembers);
    await addServices(c, large, sizes.services);
    built.cell.large = await cellAndSnapshots(c, large, sizes.history, sizes.snapshots);
    await c.query(`insert into tenant_memberships (user_id, tenant_id) select id, tenant_id from users on conflict do nothing`);
    await c.query('commit');
    await c.query('vacuum analyze');
  });
}

export async function counts(url: string, built: Built, installationOnly = false): Promise<string> {
  return withClient(url, async (c) => {
    const r = await one(
      c,
      `select (select count(*) from tenants)::int as tenants, (select count(*) from users)::int as users,
        (select count(*) from services where tenant_id = $1)::int as services,
        (select count(*) from (select id from users where tenant_id = $1 union select user_id from tenant_memberships where tenant_id = $1) u)::int as tenant_users,
        (select count(*) from availability_history where aspect_id = $2)::int as history,
        (select count(*) from snapshots where service_id = $3)::int as snapshots`,
      [built.tenantIds.large, built.cell.large.aspectId || null, built.cell.large.serviceId || null],
    );
    if (installationOnly) return `${r.tenants.toLocaleString('en')} tenants, ${r.users.toLocaleString('en')} users`;
    return `${r.tenants.toLocaleString('en')} tenants, ${r.users.toLocaleString('en')} users; the large tenant: ${r.services.toLocaleString('en')} services, ${r.tenant_users.toLocaleString('en')} users (own and members, its tenant admin included), a cell with ${r.history.toLocaleString('en')} changes, ${r.snapshots.toLocaleString('en')} snapshots of one service`;
  });
}

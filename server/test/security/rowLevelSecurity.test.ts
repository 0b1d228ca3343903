import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { getTableName, sql, type Table } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../app';
import { loadConfig } from '../../config';
import { openTestDatabase } from '../db';
import { call, TEST_SECRET } from '../app';
import type { Database } from '../../db';
import {
  actorRoles,
  apiTokens,
  csvApplies,
  webhookDeliveries,
  webhookEvents,
  webhookEndpoints,
  aspects,
  auditLog,
  availabilities,
  availabilityHistory,
  categories,
  impersonations,
  quickTemplates,
  serviceRoleAssignments,
  services,
  snapshots,
  tenantInvitations,
  tenantMemberships,
} from '../../db/schema';
import { APP_ROLE, NO_SCOPE, SYSTEM_ROLE, SYSTEM_SCOPE, tenantScope, withScope } from '../../db/scope';
import { assignServiceRole, createAspect, createCategory, createService, createTenant, createUser, setAvailability, signIn } from '../factories';
import { recordFigure } from './figures';

/**
 * Suite 14, defence in depth: every tenant-owned table is under PostgreSQL row-level security, and
 * the application works as a role that cannot bypass it, so a query that forgets its tenant filter
 * finds only the current tenant's rows (or none at all), on the embedded database and on PostgreSQL.
 */

/** Every table the application keeps per tenant, with the one global table that has a tenant column. */
const TENANT_OWNED: Table[] = [
  services,
  categories,
  aspects,
  availabilities,
  availabilityHistory,
  snapshots,
  actorRoles,
  quickTemplates,
  serviceRoleAssignments,
  auditLog,
  tenantMemberships,
  impersonations,
  tenantInvitations,
  apiTokens,
  webhookEndpoints,
  webhookDeliveries,
  webhookEvents,
  csvApplies,
];
/** A person is one identity across tenants (memberships say where they work), so users is global. */
const GLOBAL_WITH_TENANT_COLUMN = ['users'];

let database: Database;
let dispose: () => Promise<void>;
let app: FastifyInstance;
const tenantIds: string[] = [];
let tokens: string[] = [];
const slugs: string[] = [];
let probes = 0;

async function count(table: Table, where?: string): Promise<number> {
  probes++;
  const name = getTableName(table);
  const filter = where ? sql` where tenant_id = ${where}` : sql``;
  const res = await database.db.execute(sql`select count(*)::int as n from ${sql.identifier(name)}${filter}`);
  return (res as unknown as { rows: { n: number }[] }).rows[0]!.n;
}

async function seedTenant(i: number) {
  const db = database.db;
  const tenant = await createTenant(db);
  const admin = await createUser(db, tenant.id, { role: 'admin', email: `rls-admin-${i}-${tenant.slug}@example.com` });
  const sa = await createUser(db, tenant.id, { role: 'admin', superAdmin: true });
  const service = await createService(db, tenant.id);
  const category = await createCategory(db, tenant.id, service.id);
  const aspect = await createAspect(db, tenant.id, service.id, category.id);
  await setAvailability(db, tenant.id, service.id, aspect.id, service.timeline[0]!, 'Available');
  await db
    .insert(availabilityHistory)
    .values({ tenantId: tenant.id, serviceId: service.id, aspectId: aspect.id, timeBucket: service.timeline[0]!, value: 'Available', changedBy: admin.email });
  await db.insert(snapshots).values({ tenantId: tenant.id, serviceId: service.id, label: 'v1', data: {}, createdBy: admin.email });
  await db.insert(actorRoles).values({ tenantId: tenant.id, serviceId: service.id, roleName: 'Owner' });
  await db.insert(quickTemplates).values({ tenantId: tenant.id, serviceId: service.id, templateText: 'GA' });
  await assignServiceRole(db, tenant.id, service.id, admin.id, 'editor');
  await db.insert(auditLog).values({ tenantId: tenant.id, actorId: admin.id, action: 'service.create' });
  await db
    .insert(impersonations)
    .values({ superAdminId: sa.id, impersonatedUserId: admin.id, tenantId: tenant.id, tokenJti: `jti-${i}`, expiresAt: new Date(Date.now() + 60_000) });
  const outsider = await createUser(db, (await createTenant(db)).id);
  await db
    .insert(tenantInvitations)
    .values({ tenantId: tenant.id, userId: outsider.id, name: 'Invited', role: 'reader', authProvider: 'local', invitedBy: admin.id });
  const [hook] = await db
    .insert(webhookEndpoints)
    .values({ tenantId: tenant.id, url: 'https://hooks.example.com/x', events: ['service.updated'], secret: 'whsec_eA==' })
    .returning();
  await db.insert(webhookDeliveries).values({ tenantId: tenant.id, endpointId: hook!.id, eventId: 'msg_x', eventType: 'service.updated', data: {} });
  await db.insert(webhookEvents).values({ tenantId: tenant.id, eventId: 'msg_y', eventType: 'service.updated', data: {} });
  await db
    .insert(csvApplies)
    .values({ tenantId: tenant.id, serviceId: service.id, changedBy: 'x', stepCells: 1, journal: { categories: [], aspects: [], updates: [], cells: [] } });
  await db.insert(apiTokens).values({ tenantId: tenant.id, name: 'Token', role: 'reader', secretHash: `hash-${tenant.id}`, hint: 'scat_x' });
  tenantIds.push(tenant.id);
  slugs.push(tenant.slug);
  return admin;
}

beforeAll(async () => {
  ({ database, dispose } = await openTestDatabase());
  app = await buildApp({
    // No webhook sending: it would take the seeded outbox rows away.
    config: loadConfig({ API_RATE_LIMIT: '0', LOG_LEVEL: 'silent', WEBHOOK_DELIVERY: 'off' }),
    database,
    jwtSecret: TEST_SECRET,
    webRoot: null,
    logger: false,
  });
  // Probe routes standing for a handler that forgets its tenant filter: one tenant-scoped, one not.
  app.get('/api/test/unfiltered-services', async () => database.db.select({ id: services.id, tenantId: services.tenantId }).from(services));
  app.get('/api/test/unfiltered-aspects', async () => database.db.select({ tenantId: aspects.tenantId }).from(aspects));
  app.post('/api/test/unfiltered-rename', async () => {
    const rows = await database.db.update(services).set({ name: 'Renamed' }).returning({ tenantId: services.tenantId });
    return rows;
  });
  app.post('/api/test/foreign-insert', async (req) => {
    const { tenantId } = req.body as { tenantId: string };
    await database.db.insert(services).values({ tenantId, name: 'Planted', slug: 'planted', timeline: [] });
    return { planted: true };
  });
  await app.ready();
  const admins = [];
  for (let i = 0; i < 3; i++) admins.push(await seedTenant(i));
  tokens = await Promise.all(admins.map((a) => signIn(app, a.email)));
}, 120_000);

afterAll(async () => {
  await app?.close();
  await dispose?.();
  recordFigure(
    'row-level-security',
    `${TENANT_OWNED.length} of ${TENANT_OWNED.length} tenant-owned tables under row-level security; 0 foreign rows in ${probes} unfiltered queries`,
    {
      tables: TENANT_OWNED.map(getTableName),
      probes,
    },
  );
});

describe('row-level security', () => {
  it('is enabled with a policy on every table that has a tenant column, except the global users table', async () => {
    const res = await database.db.execute(sql`
      select c.relname as name, c.relrowsecurity as rls,
             (select count(*)::int from pg_policies p where p.schemaname = 'public' and p.tablename = c.relname) as policies
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind = 'r'
        and exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped)
      order by 1`);
    const rows = (res as unknown as { rows: { name: string; rls: boolean; policies: number }[] }).rows;
    const expected = [...TENANT_OWNED.map(getTableName), ...GLOBAL_WITH_TENANT_COLUMN].sort();
    expect(rows.map((r) => r.name)).toEqual(expected);
    for (const row of rows) {
      const owned = !GLOBAL_WITH_TENANT_COLUMN.includes(row.name);
      expect({ table: row.name, rls: row.rls, policy: row.policies > 0 }).toEqual({ table: row.name, rls: owned, policy: owned });
    }
  });

  it("the application works as roles that own no table and cannot bypass it: its own in a tenant scope or none, the system scope's in that scope", async () => {
    const role = async () =>
      (
        (await database.db.execute(sql`
      select current_user as "user", r.rolsuper as super, r.rolbypassrls as bypass,
             (select count(*)::int from pg_tables t where t.schemaname = 'public' and t.tableowner = current_user) as owned
      from pg_roles r where r.rolname = current_user`)) as unknown as { rows: unknown[] }
      ).rows[0];
    expect(await withScope(tenantScope(tenantIds[0]!), role)).toEqual({ user: APP_ROLE, super: false, bypass: false, owned: 0 });
    expect(await withScope(NO_SCOPE, role)).toEqual({ user: APP_ROLE, super: false, bypass: false, owned: 0 });
    expect(await withScope(SYSTEM_SCOPE, role)).toEqual({ user: SYSTEM_ROLE, super: false, bypass: false, owned: 0 });
  });

  it('an unfiltered query in a tenant scope sees only that tenant, in every tenant-owned table', async () => {
    for (const table of TENANT_OWNED) {
      const own = await count(table, tenantIds[0]);
      const all = await count(table);
      expect(own, getTableName(table)).toBeGreaterThan(0);
      expect(all, getTableName(table)).toBeGreaterThan(own);
      const seen = await withScope(tenantScope(tenantIds[0]!), () => count(table));
      expect(seen, getTableName(table)).toBe(own);
      const filteredForeign = await withScope(tenantScope(tenantIds[0]!), () => count(table, tenantIds[1]));
      expect(filteredForeign, getTableName(table)).toBe(0);
    }
  });

  it('without a scope, and in a transaction that clears the settings, nothing is visible', async () => {
    for (const table of TENANT_OWNED) {
      expect(await withScope(NO_SCOPE, () => count(table)), getTableName(table)).toBe(0);
    }
    // The application's role sees by the settings alone (the system scope's role is what sees every row).
    const cleared = await withScope(tenantScope(tenantIds[0]!), () =>
      database.db.transaction(async (tx) => {
        await tx.execute(sql`select set_config('catalog.scope', '', true), set_config('catalog.tenant_id', '', true)`);
        probes++;
        const res = await tx.execute(sql`select count(*)::int as n from services`);
        return (res as unknown as { rows: { n: number }[] }).rows[0]!.n;
      }),
    );
    expect(cleared).toBe(0);
    if (process.env.TEST_DATABASE_URL) {
      // On PostgreSQL, a plain connection switched to the application role sees nothing either.
      const res = await database.db.execute(sql`select current_database() as name`);
      const target = new URL(process.env.TEST_DATABASE_URL);
      target.pathname = `/${(res as unknown as { rows: { name: string }[] }).rows[0]!.name}`;
      const client = new pg.Client({ connectionString: target.toString() });
      await client.connect();
      try {
        await client.query(`set role ${APP_ROLE}`);
        for (const table of TENANT_OWNED) {
          probes++;
          const { rows } = await client.query(`select count(*)::int as n from ${getTableName(table)}`);
          expect(rows[0].n, getTableName(table)).toBe(0);
        }
      } finally {
        await client.end();
      }
    }
  });

  it('a tenant-scoped handler that forgets its tenant filter reads only its own tenant', async () => {
    for (let i = 0; i < tenantIds.length; i++) {
      for (const url of ['/api/test/unfiltered-services', '/api/test/unfiltered-aspects']) {
        probes++;
        const res = await call(app, 'GET', url, { token: tokens[i], tenant: slugs[i] });
        expect(res.statusCode).toBe(200);
        const rows = res.json() as { tenantId: string }[];
        expect(rows.length).toBeGreaterThan(0);
        expect(new Set(rows.map((r) => r.tenantId))).toEqual(new Set([tenantIds[i]]));
      }
    }
  });

  it('an unfiltered update changes only the own tenant and a row for another tenant is refused', async () => {
    const before = await count(services, tenantIds[1]);
    const names = await database.db
      .select({ id: services.id, name: services.name })
      .from(services)
      .where(sql`tenant_id = ${tenantIds[1]}`);
    probes++;
    const renamed = await call(app, 'POST', '/api/test/unfiltered-rename', { token: tokens[0], tenant: slugs[0] });
    expect(renamed.statusCode).toBe(200);
    expect(new Set((renamed.json() as { tenantId: string }[]).map((r) => r.tenantId))).toEqual(new Set([tenantIds[0]]));
    const after = await database.db
      .select({ id: services.id, name: services.name })
      .from(services)
      .where(sql`tenant_id = ${tenantIds[1]}`);
    expect(after).toEqual(names);

    probes++;
    const planted = await call(app, 'POST', '/api/test/foreign-insert', { token: tokens[0], tenant: slugs[0], body: { tenantId: tenantIds[1] } });
    expect(planted.statusCode).toBeGreaterThanOrEqual(400);
    expect(await count(services, tenantIds[1])).toBe(before);
    expect(
      (
        await database.db
          .select()
          .from(services)
          .where(sql`slug = 'planted'`)
      ).length,
    ).toBe(0);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { assignServiceRole, createService, createTenant, createWorld, type World } from '../../test/factories';
import { apiTokens, auditLog, services } from '../../db/schema';
import { newApiTokenSecret } from '../../auth/apiTokens';
import { encodeCursor, USER_PAGE_DEFAULT } from '../../../common/schemas/paging';
import { INTEGRATION_MESSAGES } from '../../../common/schemas/integrations';

let t: TestApp;
let w: World;
const MISSING = '00000000-0000-4000-8000-000000000000';

type Row = { id: string; name: string; tenant_id: string; tenant_name: string; service_names: string[] | null; revoked_at: string | null; created_at: string };

/** A token inserted as a super admin would create it (so it is never suspended); answers its id and secret. */
async function insertToken(tenantId: string, name: string, extra: Partial<typeof apiTokens.$inferInsert> = {}) {
  const { secret, hash, hint } = newApiTokenSecret();
  const [row] = await t.db
    .insert(apiTokens)
    .values({ tenantId, name, role: 'reader', secretHash: hash, hint, createdBy: w.users.superAdmin.id, ...extra })
    .returning();
  return { id: row!.id, secret };
}

beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

const get = (url: string, token = w.tokens.superAdmin) => call(t.app, 'GET', url, { token });

/** Follows the cursor from the first page to the last. */
async function walk(url: string): Promise<Row[]> {
  const rows: Row[] = [];
  let after: string | null = null;
  for (let pages = 0; pages < 200; pages++) {
    const sep = url.includes('?') ? '&' : '?';
    const res = await get(after ? `${url}${sep}after=${encodeURIComponent(after)}` : url);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    rows.push(...body.tokens);
    after = body.next_after;
    if (after === null) return rows;
  }
  throw new Error('the cursor never ended');
}

const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

describe('GET /api/admin/api-tokens: who may list', () => {
  it('answers 401 without a session and 403 to readers, editors, tenant admins, a reader raised to service admin and an API token', async () => {
    const service = await createService(t.db, w.tenant.id);
    await assignServiceRole(t.db, w.tenant.id, service.id, w.users.reader.id, 'admin');
    const adminToken = await insertToken(w.tenant.id, 'Admin integration', { role: 'admin' });
    expect((await call(t.app, 'GET', '/api/admin/api-tokens')).statusCode).toBe(401);
    for (const token of [w.tokens.reader, w.tokens.editor, w.tokens.admin, w.tokens.otherAdmin, adminToken.secret]) {
      expect((await get('/api/admin/api-tokens', token)).statusCode).toBe(403);
      expect((await get('/api/admin/api-tokens?search=Admin&limit=5', token)).statusCode).toBe(403);
      expect((await call(t.app, 'DELETE', `/api/admin/api-tokens/${adminToken.id}`, { token })).statusCode).toBe(403);
    }
    // Nothing was revoked by the refused calls.
    expect((await call(t.app, 'GET', '/api/services', { token: adminToken.secret })).statusCode).toBe(200);
  });
});

describe('GET /api/admin/api-tokens: every tenant, paged and searched', () => {
  let quiet: { id: string; name: string };
  const made: string[] = [];

  beforeAll(async () => {
    quiet = (await createTenant(t.db, { name: 'Quiet Harbour', slug: 'quiet-harbour' }))!;
    // Tokens of three tenants; some created in one statement share their creation time to the
    // microsecond, others a microsecond apart: the order and the cursor must tell them all apart.
    for (const [tenantId, prefix] of [
      [w.tenant.id, 'Pipeline'],
      [w.other.id, 'Portal'],
      [quiet.id, 'Sync'],
    ] as const) {
      for (let i = 0; i < 4; i++) made.push((await insertToken(tenantId, `${prefix} ${i}`)).id);
    }
    const { hash: h1, hint } = newApiTokenSecret();
    const { hash: h2 } = newApiTokenSecret();
    const { hash: h3 } = newApiTokenSecret();
    const same = await t.db
      .insert(apiTokens)
      .values([h1, h2, h3].map((secretHash, i) => ({ tenantId: quiet.id, name: `Twin ${i}`, role: 'editor' as const, secretHash, hint })))
      .returning();
    made.push(...same.map((r) => r.id));
    for (const micros of ['000001', '000002', '000003']) {
      const at = sql`${`2029-06-01 12:00:00.${micros}+00`}::timestamptz`;
      const { hash } = newApiTokenSecret();
      const [row] = await t.db
        .insert(apiTokens)
        .values({ tenantId: w.other.id, name: `Micro ${micros}`, role: 'reader', secretHash: hash, hint, createdAt: at })
        .returning();
      made.push(row!.id);
    }
  });

  it("answers every tenant's tokens with their tenant's name, never a secret", async () => {
    const res = await get('/api/admin/api-tokens?limit=500');
    expect(res.statusCode).toBe(200);
    const rows = res.json().tokens as Row[];
    expect(ids(rows)).toEqual(expect.arrayContaining(made));
    expect(new Set(rows.map((r) => r.tenant_id))).toEqual(new Set([w.tenant.id, w.other.id, quiet.id]));
    expect(rows.find((r) => r.name === 'Sync 0')).toMatchObject({ tenant_id: quiet.id, tenant_name: 'Quiet Harbour', service_names: null, revoked_at: null });
    expect(res.body).not.toMatch(/secret_hash|secretHash/);
  });

  it('walks every token exactly once, newest first (then by id), as the unpaged list answers them', async () => {
    const whole = (await get('/api/admin/api-tokens')).json();
    expect(whole.next_after).toBeUndefined();
    for (const limit of [1, 4, 7]) {
      const paged = await walk(`/api/admin/api-tokens?limit=${limit}`);
      expect(new Set(ids(paged)).size).toBe(paged.length);
      expect(ids(paged)).toEqual(ids(whole.tokens));
    }
    const paged = await walk('/api/admin/api-tokens?limit=2');
    for (let i = 1; i < paged.length; i++) expect(paged[i - 1]!.created_at >= paged[i]!.created_at).toBe(true);
    // The tokens a microsecond apart come newest first; the three of one statement, of one time, by id.
    const micro = paged.filter((r) => r.name.startsWith('Micro')).map((r) => r.name);
    expect(micro).toEqual(['Micro 000003', 'Micro 000002', 'Micro 000001']);
    const twins = ids(paged.filter((r) => r.name.startsWith('Twin')));
    expect(twins).toEqual([...twins].sort().reverse());
    expect(twins).toHaveLength(3);
  });

  it('answers the default page of 100 with the next cursor, and null on the last page', async () => {
    const { hint } = newApiTokenSecret();
    await t.db.insert(apiTokens).values(
      Array.from({ length: USER_PAGE_DEFAULT }, (_, i) => ({
        tenantId: quiet.id,
        name: `Crowded ${String(i).padStart(3, '0')}`,
        role: 'reader' as const,
        secretHash: newApiTokenSecret().hash,
        hint,
      })),
    );
    const page = (await get('/api/admin/api-tokens?search=crowded')).json();
    expect(page.tokens).toHaveLength(USER_PAGE_DEFAULT);
    expect(page.next_after).toBeNull();
    const first = (await get('/api/admin/api-tokens?search=crowded&limit=60')).json();
    expect(first.tokens).toHaveLength(60);
    const rest = (await get(`/api/admin/api-tokens?search=crowded&limit=60&after=${first.next_after}`)).json();
    expect(rest.tokens).toHaveLength(40);
    expect(rest.next_after).toBeNull();
    expect(new Set([...ids(first.tokens), ...ids(rest.tokens)]).size).toBe(USER_PAGE_DEFAULT);
  });

  it("searches the token's name and the tenant's name, case-insensitively, with % and _ taken as typed", async () => {
    const names = async (search: string) =>
      ((await get(`/api/admin/api-tokens?search=${encodeURIComponent(search)}&limit=500`)).json().tokens as Row[]).map((r) => r.name).sort();
    expect(await names('PORTAL 2')).toEqual(['Portal 2']);
    expect(await names('quiet harb')).toEqual(expect.arrayContaining(['Sync 0', 'Sync 3', 'Twin 0', 'Crowded 000']));
    expect((await names('quiet harb')).every((n) => /^(Sync|Twin|Crowded) /.test(n))).toBe(true);
    expect(await names(w.other.name)).toEqual(expect.arrayContaining(['Portal 0', 'Micro 000001']));
    expect(await names('Portal%')).toEqual([]);
    expect(await names('Portal_1')).toEqual([]);
    expect(await names('nothing like it')).toEqual([]);
  });

  it("names the services a token is limited to that are still its tenant's", async () => {
    const alpha = await createService(t.db, w.tenant.id, { name: 'Alpha service' });
    const beta = await createService(t.db, w.tenant.id, { name: 'Beta service' });
    const gone = await createService(t.db, w.tenant.id, { name: 'Gone service' });
    const theirs = await createService(t.db, w.other.id, { name: 'Their service' });
    const scoped = await insertToken(w.tenant.id, 'Scoped reporter', { serviceIds: [beta.id, gone.id, alpha.id, theirs.id] });
    await t.db.delete(services).where(eq(services.id, gone.id));
    const [row] = (await get('/api/admin/api-tokens?search=Scoped%20reporter')).json().tokens as Row[];
    expect(row).toMatchObject({ id: scoped.id, service_names: ['Alpha service', 'Beta service'] });
  });

  it('answers 400 naming a bad limit, cursor, search or includeRevoked', async () => {
    const foreign = encodeCursor(['Pipeline 1', MISSING]);
    const huge = encodeCursor(['9'.repeat(18), MISSING]);
    const cases: [string, string][] = [
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['limit=ten', 'limit'],
      ['after=not-a-cursor', 'after'],
      [`after=${foreign}`, 'after'],
      [`after=${huge}`, 'after'],
      [`after=${encodeCursor(['1', 'not-an-id'])}`, 'after'],
      [`search=${'x'.repeat(201)}`, 'search'],
      ['includeRevoked=maybe', 'includeRevoked'],
    ];
    for (const [query, field] of cases) {
      const res = await get(`/api/admin/api-tokens?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().field, query).toBe(field);
    }
  });
});

describe('DELETE /api/admin/api-tokens/:id', () => {
  it("revokes any tenant's token at once, audited in that tenant's log, and lists it only when revoked ones are asked for", async () => {
    const theirs = await insertToken(w.other.id, 'Retired exporter');
    expect((await call(t.app, 'GET', '/api/services', { token: theirs.secret })).statusCode).toBe(200);
    const res = await call(t.app, 'DELETE', `/api/admin/api-tokens/${theirs.id}`, { token: w.tokens.superAdmin });
    expect(res.statusCode).toBe(204);
    expect((await call(t.app, 'GET', '/api/services', { token: theirs.secret })).statusCode).toBe(401);

    const audit = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'api_token.revoke'), eq(auditLog.targetId, theirs.id)));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ tenantId: w.other.id, actorId: w.users.superAdmin.id, details: { name: 'Retired exporter' } });
    const log = await call(t.app, 'GET', '/api/audit', { token: w.tokens.otherAdmin });
    expect(log.body).toContain(theirs.id);

    expect(ids((await get('/api/admin/api-tokens?search=Retired')).json().tokens)).toEqual([]);
    const revoked = (await get('/api/admin/api-tokens?search=Retired&includeRevoked=true')).json().tokens as Row[];
    expect(ids(revoked)).toEqual([theirs.id]);
    expect(Date.parse(revoked[0]!.revoked_at!)).not.toBeNaN();
    // The tenant's own list no longer shows it either.
    expect(ids((await call(t.app, 'GET', '/api/api-tokens', { token: w.tokens.otherAdmin })).json().tokens)).not.toContain(theirs.id);

    const again = await call(t.app, 'DELETE', `/api/admin/api-tokens/${theirs.id}`, { token: w.tokens.superAdmin });
    expect(again.statusCode).toBe(404);
    expect(again.json().error).toBe(INTEGRATION_MESSAGES.tokenNotFound);
    expect((await call(t.app, 'DELETE', `/api/admin/api-tokens/${MISSING}`, { token: w.tokens.superAdmin })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', '/api/admin/api-tokens/not-an-id', { token: w.tokens.superAdmin })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/api/admin/api-tokens/${theirs.id}`)).statusCode).toBe(401);
  });
});

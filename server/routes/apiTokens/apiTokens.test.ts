import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { openDatabase } from '../../db';
import { INTEGRATION_MESSAGES, MAX_ACTIVE_API_TOKENS } from '../../../common/schemas/integrations';
import { buildTestApp, call, TEST_SECRET, type TestApp } from '../../test/app';
import { assignServiceRole, createAspect, createCategory, createService, createTenant, createUser, createWorld, type World } from '../../test/factories';
import { apiTokens, auditLog, availabilityHistory } from '../../db/schema';
import { hashApiTokenSecret, newApiTokenSecret } from '../../auth/apiTokens';
import { buildApp } from '../../app';
import { loadConfig } from '../../config';
import { defaultTimeline } from '../../../common/quarters';

/** The quarters of a service's default timeline, which the writes below must fall in. */
const TIMELINE = defaultTimeline();

let t: TestApp;
let w: World;
const MISSING = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

async function createToken(body: Record<string, unknown>, token = w.tokens.admin) {
  const res = await call(t.app, 'POST', '/api/api-tokens', { token, body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { token: { id: string; name: string; hint: string }; secret: string };
}

describe('creating, listing and revoking API tokens', () => {
  it('answers the secret once, stores only its hash, and lists the token without it', async () => {
    const created = await createToken({ name: 'Release pipeline', role: 'editor' });
    expect(created.secret).toMatch(/^scat_[0-9A-Za-z]{43}$/);
    expect(created.token).toMatchObject({ name: 'Release pipeline', role: 'editor', service_ids: null, expires_at: null, last_used_at: null });
    expect(created.token.hint).toBe(`${created.secret.slice(0, 9)}…`);
    const [row] = await t.db.select().from(apiTokens).where(eq(apiTokens.id, created.token.id));
    expect(row!.secretHash).toBe(hashApiTokenSecret(created.secret));
    expect(JSON.stringify(row)).not.toContain(created.secret);
    const list = await call(t.app, 'GET', '/api/api-tokens', { token: w.tokens.admin });
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(created.secret);
    expect(list.json().tokens.map((x: { id: string }) => x.id)).toContain(created.token.id);
    const audit = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'api_token.create'), eq(auditLog.targetId, created.token.id)));
    expect(audit).toHaveLength(1);
  });

  it('refuses readers, editors and API tokens, and bad input changes nothing', async () => {
    for (const token of [w.tokens.reader, w.tokens.editor]) {
      expect((await call(t.app, 'POST', '/api/api-tokens', { token, body: { name: 'x', role: 'reader' } })).statusCode).toBe(403);
      expect((await call(t.app, 'GET', '/api/api-tokens', { token })).statusCode).toBe(403);
    }
    const admin = await createToken({ name: 'Admin token', role: 'admin' });
    const byToken = await call(t.app, 'POST', '/api/api-tokens', { token: admin.secret, body: { name: 'x', role: 'admin' } });
    expect(byToken.statusCode).toBe(403);
    expect(byToken.json().error).toBe(INTEGRATION_MESSAGES.peopleOnly);
    const before = await t.db.select().from(apiTokens);
    const cases: [unknown, string][] = [
      [{ role: 'reader' }, INTEGRATION_MESSAGES.tokenNameRequired],
      [{ name: 'x', role: 'superAdmin' }, INTEGRATION_MESSAGES.tokenNameRequired],
      [{ name: 'x', role: 'reader', expiresAt: '2000-01-01T00:00:00Z' }, INTEGRATION_MESSAGES.tokenExpiryInPast],
      [{ name: 'x', role: 'reader', serviceIds: [MISSING] }, INTEGRATION_MESSAGES.tokenServiceUnknown],
    ];
    for (const [body, message] of cases) {
      const res = await call(t.app, 'POST', '/api/api-tokens', { token: w.tokens.admin, body });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe(message);
    }
    expect(await t.db.select().from(apiTokens)).toHaveLength(before.length);
  });

  it("answers 404 for another tenant's token and a super admin sees and revokes every tenant's", async () => {
    const theirs = await createToken({ name: 'Their token', role: 'reader' }, w.tokens.otherAdmin);
    expect((await call(t.app, 'DELETE', `/api/api-tokens/${theirs.token.id}`, { token: w.tokens.admin })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/api/api-tokens/${MISSING}`, { token: w.tokens.admin })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', '/api/api-tokens/not-an-id', { token: w.tokens.admin })).statusCode).toBe(404);
    const mine = (await call(t.app, 'GET', '/api/api-tokens', { token: w.tokens.admin })).json().tokens.map((x: { id: string }) => x.id);
    expect(mine).not.toContain(theirs.token.id);
    expect((await call(t.app, 'GET', '/api/admin/api-tokens', { token: w.tokens.admin })).statusCode).toBe(403);
    const all = await call(t.app, 'GET', '/api/admin/api-tokens', { token: w.tokens.superAdmin });
    expect(all.json().tokens.map((x: { id: string }) => x.id)).toContain(theirs.token.id);
    expect((await call(t.app, 'GET', '/api/services', { token: theirs.secret })).statusCode).toBe(200);
    expect((await call(t.app, 'DELETE', `/api/admin/api-tokens/${theirs.token.id}`, { token: w.tokens.superAdmin })).statusCode).toBe(204);
    expect((await call(t.app, 'GET', '/api/services', { token: theirs.secret })).statusCode).toBe(401);
  });

  it(`refuses a tenant its ${MAX_ACTIVE_API_TOKENS + 1}th token in use, lists every one it has, and lets a revocation make room`, async () => {
    const busy = await createWorld(t.app, t.db);
    await t.db.insert(apiTokens).values(
      Array.from({ length: MAX_ACTIVE_API_TOKENS }, (_, i) => {
        const { hash, hint } = newApiTokenSecret();
        return { tenantId: busy.tenant.id, name: `Token ${i}`, role: 'reader' as const, secretHash: hash, hint };
      }),
    );
    const refused = await call(t.app, 'POST', '/api/api-tokens', { token: busy.tokens.admin, body: { name: 'One too many', role: 'reader' } });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ error: INTEGRATION_MESSAGES.tokenLimitReached, code: 'conflict' });
    expect(refused.json().error).toContain(String(MAX_ACTIVE_API_TOKENS));
    const listed = (await call(t.app, 'GET', '/api/api-tokens', { token: busy.tokens.admin })).json().tokens as { id: string; name: string }[];
    expect(listed).toHaveLength(MAX_ACTIVE_API_TOKENS);
    expect(listed.some((x) => x.name === 'One too many')).toBe(false);
    // Another tenant is not held by this one's tokens.
    await createToken({ name: 'Elsewhere', role: 'reader' }, busy.tokens.otherAdmin);
    expect((await call(t.app, 'DELETE', `/api/api-tokens/${listed[0].id}`, { token: busy.tokens.admin })).statusCode).toBe(204);
    await createToken({ name: 'Now there is room', role: 'reader' }, busy.tokens.admin);
  });
});

describe('an API token acts as its role through the access layer', () => {
  it('reads as a reader: no private aspects, no writes; and only in its own tenant', async () => {
    const service = await createService(t.db, w.tenant.id);
    const category = await createCategory(t.db, w.tenant.id, service.id);
    const privateAspect = await createAspect(t.db, w.tenant.id, service.id, category.id, { isPublic: false });
    const theirs = await createService(t.db, w.other.id);
    const reader = await createToken({ name: 'Intranet', role: 'reader' });
    const full = await call(t.app, 'GET', `/api/services/${service.id}/full`, { token: reader.secret });
    expect(full.statusCode).toBe(200);
    expect(full.body).not.toContain(privateAspect.id);
    expect((await call(t.app, 'GET', `/api/aspects/${privateAspect.id}`, { token: reader.secret })).statusCode).toBe(404);
    expect((await call(t.app, 'PUT', `/api/services/${service.id}`, { token: reader.secret, body: { name: 'No' } })).statusCode).toBe(403);
    expect((await call(t.app, 'GET', `/api/services/${theirs.id}`, { token: reader.secret })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/api/services', { token: reader.secret, tenant: w.other.slug })).statusCode).toBe(403);
    expect((await call(t.app, 'GET', '/api/users', { token: reader.secret })).statusCode).toBe(403);
    // A service role assignment never names a token: its role is its own.
    expect((await call(t.app, 'GET', '/api/tenants', { token: reader.secret })).statusCode).toBe(403);
  });

  it("writes as an editor, audited and recorded under the token's name", async () => {
    const service = await createService(t.db, w.tenant.id);
    const category = await createCategory(t.db, w.tenant.id, service.id);
    const aspect = await createAspect(t.db, w.tenant.id, service.id, category.id);
    const editor = await createToken({ name: 'Release pipeline', role: 'editor' });
    const write = await call(t.app, 'POST', '/api/availabilities', {
      token: editor.secret,
      body: { aspectId: aspect.id, timeBucket: TIMELINE[0], value: 'GA' },
    });
    expect(write.statusCode, write.body).toBeLessThan(300);
    const [history] = await t.db.select().from(availabilityHistory).where(eq(availabilityHistory.aspectId, aspect.id));
    expect(history!.changedBy).toBe('API token: Release pipeline');
    expect((await call(t.app, 'PATCH', `/api/services/${service.id}/archive`, { token: editor.secret, body: {} })).statusCode).toBe(403);
    const admin = await createToken({ name: 'Ops bot', role: 'admin' });
    expect((await call(t.app, 'PATCH', `/api/services/${service.id}/archive`, { token: admin.secret, body: {} })).statusCode).toBe(200);
    const [audit] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'service.archive'), eq(auditLog.targetId, service.id)));
    expect(audit).toMatchObject({ actorKind: 'api_token', actorId: admin.token.id, actorName: 'Ops bot', actorEmail: null });
    // The cell the editor token wrote is on the record too, under the token's name.
    const [cell] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'availability.set'), eq(auditLog.serviceId, service.id)));
    expect(cell).toMatchObject({ actorKind: 'api_token', actorId: editor.token.id, actorName: 'Release pipeline', requestId: history!.requestId });
  });

  it('limited to some services: the others do not exist for it, and it holds no tenant-wide right', async () => {
    const inside = await createService(t.db, w.tenant.id);
    const outside = await createService(t.db, w.tenant.id);
    const category = await createCategory(t.db, w.tenant.id, outside.id);
    const aspect = await createAspect(t.db, w.tenant.id, outside.id, category.id);
    // A person's assignment on a service does not reach the token.
    await assignServiceRole(t.db, w.tenant.id, outside.id, w.users.reader.id, 'admin');
    const scoped = await createToken({ name: 'Scoped', role: 'admin', serviceIds: [inside.id] });
    const list = await call(t.app, 'GET', '/api/services', { token: scoped.secret });
    expect(list.json().services.map((s: { id: string }) => s.id)).toEqual([inside.id]);
    const paged = await call(t.app, 'GET', '/api/services', { token: scoped.secret, query: { limit: '100' } });
    expect(paged.json().services.map((s: { id: string }) => s.id)).toEqual([inside.id]);
    expect((await call(t.app, 'GET', `/api/services/${inside.id}/full`, { token: scoped.secret })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/api/services/${outside.id}/full`, { token: scoped.secret })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/api/aspects/${aspect.id}`, { token: scoped.secret })).statusCode).toBe(404);
    const write = await call(t.app, 'POST', '/api/availabilities', {
      token: scoped.secret,
      body: { aspectId: aspect.id, timeBucket: TIMELINE[0], value: 'x' },
    });
    expect(write.statusCode).toBe(404);
    expect((await call(t.app, 'PUT', `/api/services/${inside.id}`, { token: scoped.secret, body: { name: 'Renamed by token' } })).statusCode).toBe(200);
    expect((await call(t.app, 'POST', '/api/services', { token: scoped.secret, body: { name: 'New', slug: 'new-by-token' } })).statusCode).toBe(403);
    expect((await call(t.app, 'GET', '/api/events', { token: scoped.secret })).statusCode).toBe(403);
  });

  it('answers the calls about a session without failing: who it is, and a sign-out that leaves the token to be revoked', async () => {
    const created = await createToken({ name: 'Curious', role: 'reader' });
    const me = await call(t.app, 'GET', '/api/auth/me', { token: created.secret });
    expect(me.statusCode).toBe(200);
    expect(me.body).toContain('API token: Curious');
    expect((await call(t.app, 'POST', '/api/auth/logout', { token: created.secret, body: {} })).statusCode).toBe(204);
    expect((await call(t.app, 'GET', '/api/impersonation/active', { token: created.secret })).statusCode).toBeLessThan(500);
    expect((await call(t.app, 'POST', '/api/impersonation/stop', { token: created.secret, body: {} })).statusCode).toBeLessThan(500);
    // An invitation is a person's to answer: a token is refused whatever the id.
    const accepted = await call(t.app, 'POST', `/api/invitations/${MISSING}/accept`, { token: created.secret, body: {} });
    expect(accepted.statusCode).toBe(403);
    expect(accepted.json().error).toBe(INTEGRATION_MESSAGES.peopleOnly);
  });
});

describe('expiry, revocation and malformed tokens', () => {
  it('refuses an expired token, a revoked token and a token that was never issued', async () => {
    const created = await createToken({ name: 'Short', role: 'reader', expiresAt: new Date(Date.now() + 60_000).toISOString() });
    expect((await call(t.app, 'GET', '/api/services', { token: created.secret })).statusCode).toBe(200);
    await t.db
      .update(apiTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(apiTokens.id, created.token.id));
    expect((await call(t.app, 'GET', '/api/services', { token: created.secret })).statusCode).toBe(401);
    const forged = `scat_${'A'.repeat(43)}`;
    expect((await call(t.app, 'GET', '/api/services', { token: forged })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', '/api/services', { token: 'scat_short' })).statusCode).toBe(401);
  });

  it('records the last use', async () => {
    const created = await createToken({ name: 'Used', role: 'reader' });
    await call(t.app, 'GET', '/api/services', { token: created.secret });
    for (let i = 0; i < 50; i++) {
      const [row] = await t.db.select().from(apiTokens).where(eq(apiTokens.id, created.token.id));
      if (row!.lastUsedAt) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('last use not recorded');
  });

  it('a revocation through one server takes effect at once in another on the same database', async () => {
    const config = loadConfig({ API_RATE_LIMIT: '0', LOG_LEVEL: 'silent', CACHE_MAX_AGE_MS: '600000' });
    // On PostgreSQL the second server has its own connections and hears the change stream on its own;
    // the embedded database serves one process, so there the second server shares it.
    let database = t.database;
    let closeDatabase = async () => {};
    if (process.env.TEST_DATABASE_URL) {
      const url = new URL(process.env.TEST_DATABASE_URL);
      const { rows } = (await t.db.execute(sql`select current_database() as name`)) as unknown as { rows: { name: string }[] };
      const row = rows[0];
      url.pathname = `/${row!.name}`;
      database = await openDatabase({ url: url.toString(), poolSize: 2 });
      closeDatabase = () => database.close();
    }
    const second = await buildApp({ config, database, jwtSecret: TEST_SECRET, webRoot: null, logger: false });
    await second.ready();
    try {
      const created = await createToken({ name: 'Everywhere', role: 'reader' });
      // Both servers have the token's caller in their caches.
      expect((await call(second, 'GET', '/api/services', { token: created.secret })).statusCode).toBe(200);
      expect((await call(t.app, 'GET', '/api/services', { token: created.secret })).statusCode).toBe(200);
      expect((await call(t.app, 'DELETE', `/api/api-tokens/${created.token.id}`, { token: w.tokens.admin })).statusCode).toBe(204);
      expect((await call(second, 'GET', '/api/services', { token: created.secret })).statusCode).toBe(401);
      expect((await call(t.app, 'GET', '/api/services', { token: created.secret })).statusCode).toBe(401);
    } finally {
      await second.close();
      await closeDatabase();
    }
  });

  it('is rate limited per token', async () => {
    const limited = await buildTestApp({ API_RATE_LIMIT: '3' });
    try {
      const tenant = await createTenant(limited.db);
      const creator = await createUser(limited.db, tenant.id, { role: 'admin' });
      const { secret, hash, hint } = newApiTokenSecret();
      await limited.db.insert(apiTokens).values({ tenantId: tenant.id, name: 'Busy', role: 'reader', secretHash: hash, hint, createdBy: creator.id });
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await call(limited.app, 'GET', '/api/services', { token: secret })).statusCode);
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await limited.close();
    }
  });
});

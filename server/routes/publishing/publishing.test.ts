import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLISHING_MESSAGES } from '../../../common/schemas/publishing';
import { auditLog, services, tenants } from '../../db/schema';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { assignServiceRole, createService, createWorld, type World } from '../../test/factories';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

const as = (token: string, tenant = w.tenant.slug) => ({ token, tenant });
const audits = (action: string, targetId: string) =>
  t.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action), eq(auditLog.targetId, targetId)));

describe('publishing a service', () => {
  it('is off by default, and an admin turns it on and off, each change audited once', async () => {
    const s = await createService(t.db, w.tenant.id);
    const before = await call(t.app, 'GET', `/api/services/${s.id}`, as(w.tokens.reader));
    expect(before.json().service.published).toBe(false);

    const on = await call(t.app, 'PATCH', `/api/services/${s.id}/publish`, as(w.tokens.admin));
    expect(on.statusCode).toBe(200);
    expect(on.json().service).toMatchObject({ id: s.id, published: true });
    expect((await call(t.app, 'GET', `/api/services/${s.id}`, as(w.tokens.reader))).json().service.published).toBe(true);
    const full = await call(t.app, 'GET', `/api/services/${s.id}/full`, as(w.tokens.reader));
    expect(full.json().service.published).toBe(true);
    // Publishing what is already published changes nothing and writes no second audit row.
    expect((await call(t.app, 'PATCH', `/api/services/${s.id}/publish`, as(w.tokens.admin))).statusCode).toBe(200);
    expect(await audits('service.publish', s.id)).toHaveLength(1);

    const off = await call(t.app, 'PATCH', `/api/services/${s.id}/unpublish`, as(w.tokens.admin));
    expect(off.json().service.published).toBe(false);
    expect(await audits('service.unpublish', s.id)).toHaveLength(1);
    const log = await call(t.app, 'GET', '/api/audit', as(w.tokens.admin));
    expect(log.statusCode).toBe(200);
    expect(JSON.stringify(log.json())).toContain('Published service');
  });

  it('refuses editors and readers (403) and answers 404 for a service of another tenant', async () => {
    const s = await createService(t.db, w.tenant.id);
    for (const token of [w.tokens.editor, w.tokens.reader]) {
      expect((await call(t.app, 'PATCH', `/api/services/${s.id}/publish`, as(token))).statusCode).toBe(403);
    }
    const foreign = await createService(t.db, w.other.id);
    expect((await call(t.app, 'PATCH', `/api/services/${foreign.id}/publish`, as(w.tokens.admin))).statusCode).toBe(404);
    expect((await call(t.app, 'PATCH', `/api/services/${s.id}/publish`, as(w.tokens.otherAdmin, w.other.slug))).statusCode).toBe(404);
    const [row] = await t.db.select().from(services).where(eq(services.id, foreign.id));
    expect(row!.published).toBe(false);
  });

  it('lets an editor assigned admin on one service publish that service only', async () => {
    const mine = await createService(t.db, w.tenant.id);
    const other = await createService(t.db, w.tenant.id);
    await assignServiceRole(t.db, w.tenant.id, mine.id, w.users.editor.id, 'admin');
    expect((await call(t.app, 'PATCH', `/api/services/${mine.id}/publish`, as(w.tokens.editor))).statusCode).toBe(200);
    expect((await call(t.app, 'PATCH', `/api/services/${other.id}/publish`, as(w.tokens.editor))).statusCode).toBe(403);
  });

  it('does not publish an archived service (409) but unpublishes it', async () => {
    const s = await createService(t.db, w.tenant.id, { archived: true, published: true });
    expect((await call(t.app, 'PATCH', `/api/services/${s.id}/publish`, as(w.tokens.admin))).statusCode).toBe(409);
    const off = await call(t.app, 'PATCH', `/api/services/${s.id}/unpublish`, as(w.tokens.admin));
    expect(off.statusCode).toBe(200);
    expect(off.json().service.published).toBe(false);
  });

  it('answers 404 for a malformed id and 401 without a session', async () => {
    expect((await call(t.app, 'PATCH', '/api/services/not-an-id/publish', as(w.tokens.admin))).statusCode).toBe(404);
    const s = await createService(t.db, w.tenant.id);
    expect((await call(t.app, 'PATCH', `/api/services/${s.id}/publish`, { tenant: w.tenant.slug })).statusCode).toBe(401);
  });
});

describe('origins allowed to embed the public pages', () => {
  it('are none by default; an admin lists them, checked and audited', async () => {
    expect((await call(t.app, 'GET', '/api/publishing/embed-origins', as(w.tokens.admin))).json()).toEqual({ origins: [] });
    const put = await call(t.app, 'PUT', '/api/publishing/embed-origins', {
      ...as(w.tokens.admin),
      body: { origins: ['https://Intranet.example.org/', 'http://localhost:8080', 'https://intranet.example.org'] },
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual({ origins: ['https://intranet.example.org', 'http://localhost:8080'] });
    const [row] = await t.db.select().from(tenants).where(eq(tenants.id, w.tenant.id));
    expect(row!.embedOrigins).toEqual(['https://intranet.example.org', 'http://localhost:8080']);
    expect(await audits('tenant.embed_origins', w.tenant.id)).toHaveLength(1);
    // The other tenant's list is its own.
    expect((await call(t.app, 'GET', '/api/publishing/embed-origins', as(w.tokens.otherAdmin, w.other.slug))).json()).toEqual({ origins: [] });
  });

  it('refuses anything but an origin, with a clear message, and changes nothing', async () => {
    const before = (await call(t.app, 'GET', '/api/publishing/embed-origins', as(w.tokens.admin))).json();
    for (const bad of ['javascript:alert(1)', 'https://example.org/path', "'self'", 'https://a.example.org; script-src *', 'example.org', '*']) {
      const res = await call(t.app, 'PUT', '/api/publishing/embed-origins', { ...as(w.tokens.admin), body: { origins: [bad] } });
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().error).toBe(PUBLISHING_MESSAGES.originInvalid);
    }
    const many = Array.from({ length: 21 }, (_, i) => `https://site${i}.example.org`);
    const res = await call(t.app, 'PUT', '/api/publishing/embed-origins', { ...as(w.tokens.admin), body: { origins: many } });
    expect(res.json().error).toBe(PUBLISHING_MESSAGES.tooManyOrigins);
    expect((await call(t.app, 'GET', '/api/publishing/embed-origins', as(w.tokens.admin))).json()).toEqual(before);
  });

  it('is for admins only, whatever a service assignment says', async () => {
    const s = await createService(t.db, w.tenant.id);
    await assignServiceRole(t.db, w.tenant.id, s.id, w.users.reader.id, 'admin');
    for (const token of [w.tokens.editor, w.tokens.reader]) {
      expect((await call(t.app, 'GET', '/api/publishing/embed-origins', as(token))).statusCode).toBe(403);
      expect((await call(t.app, 'PUT', '/api/publishing/embed-origins', { ...as(token), body: { origins: [] } })).statusCode).toBe(403);
    }
  });
});

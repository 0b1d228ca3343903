import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { M } from '../../../common/messages';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createService, createWorld, type World } from '../../test/factories';
import { apiTokens, users, webhookEndpoints } from '../../db/schema';
import { recordFigure } from '../../test/security/figures';

/**
 * What would outlast an impersonation is not created during one: API tokens, webhooks (and a
 * webhook's new destination or secret) and users answer 403 with what to do instead, never 401
 * (which would sign the page out), and nothing is written. The same calls work for the person
 * impersonated, signed in as themself.
 */
let t: TestApp;
let w: World;
let impersonation: string;
let serviceId: string;
let webhookId: string;

beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
  serviceId = (await createService(t.db, w.tenant.id)).id;
  const hook = await call(t.app, 'POST', '/api/webhooks', {
    token: w.tokens.admin,
    body: { url: 'https://hooks.example.com/before', events: ['service.updated'] },
  });
  expect(hook.statusCode).toBe(201);
  webhookId = hook.json().webhook.id;
  const started = await call(t.app, 'POST', '/api/impersonation/start', {
    token: w.tokens.superAdmin,
    body: { userId: w.users.admin.id, tenantId: w.tenant.id },
  });
  expect(started.statusCode).toBe(200);
  impersonation = started.json().token;
});
afterAll(() => t.close());

const email = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`;

describe('while impersonating', () => {
  it('refuses to create API tokens, webhooks and users with a 403 a person can act on, and writes none', async () => {
    const [tokensBefore, hooksBefore, usersBefore] = await Promise.all([
      t.db.select().from(apiTokens),
      t.db.select().from(webhookEndpoints),
      t.db.select({ id: users.id }).from(users),
    ]);
    const calls = [
      ['POST', '/api/api-tokens', { name: 'Outlasting token', role: 'admin' }],
      ['POST', '/api/webhooks', { url: 'https://hooks.example.com/outlasting', events: ['service.updated'] }],
      ['POST', '/api/users', { email: email('planted'), name: 'Planted', role: 'admin', password: 'planted-password' }],
      ['POST', `/api/services/${serviceId}/users/new`, { email: email('planted'), name: 'Planted', role: 'reader' }],
      ['PUT', `/api/webhooks/${webhookId}`, { url: 'https://hooks.example.com/elsewhere' }],
      ['PUT', `/api/webhooks/${webhookId}`, { rotateSecret: true }],
    ] as const;
    const statuses: number[] = [];
    for (const [method, url, body] of calls) {
      const res = await call(t.app, method, url, { token: impersonation, body });
      statuses.push(res.statusCode);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().error).toBe(M.notWhileImpersonating);
    }
    const accepted = statuses.filter((s) => s < 400).length;
    const signedOut = statuses.filter((s) => s === 401).length;
    recordFigure('impersonation-creations', `${accepted} of ${calls.length} creations accepted while impersonating, ${signedOut} answered 401`, { statuses });
    expect(await t.db.select().from(apiTokens)).toEqual(tokensBefore);
    expect(await t.db.select().from(webhookEndpoints)).toEqual(hooksBefore);
    expect(await t.db.select({ id: users.id }).from(users)).toEqual(usersBefore);
    // The page stays signed in and the rest of the person's work goes on.
    expect((await call(t.app, 'GET', '/api/auth/me', { token: impersonation })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/api/api-tokens', { token: impersonation })).statusCode).toBe(200);
    const paused = await call(t.app, 'PUT', `/api/webhooks/${webhookId}`, { token: impersonation, body: { enabled: false } });
    expect(paused.statusCode).toBe(200);
  });

  it('lets the person impersonated create them as themself', async () => {
    const token = await call(t.app, 'POST', '/api/api-tokens', { token: w.tokens.admin, body: { name: 'Own token', role: 'reader' } });
    expect(token.statusCode).toBe(201);
    const [row] = await t.db.select().from(apiTokens).where(eq(apiTokens.id, token.json().token.id));
    expect(row!.createdBy).toBe(w.users.admin.id);
    const user = await call(t.app, 'POST', '/api/users', {
      token: w.tokens.admin,
      body: { email: email('own'), name: 'Own', role: 'reader', password: 'own-password-1' },
    });
    expect(user.statusCode).toBe(201);
  });
});

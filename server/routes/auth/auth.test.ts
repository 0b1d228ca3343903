import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { M } from '../../../common/messages';
import { buildTestApp, call, TEST_SECRET, type TestApp } from '../../test/app';
import { createTenant, createUser, PASSWORD, signIn } from '../../test/factories';
import { auditLog } from '../../db/schema';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ LOGIN_MAX_FAILURES_PER_ACCOUNT: '3', LOGIN_MAX_FAILURES_PER_ADDRESS: '1000' });
});
afterAll(() => t.close());

describe('POST /api/auth/login', () => {
  it('signs in with the right password and returns token, user, tenant and availableTenants', async () => {
    const tenant = await createTenant(t.db, { name: 'Acme' });
    const user = await createUser(t.db, tenant.id, { role: 'editor' });
    const res = await call(t.app, 'POST', '/api/auth/login', { body: { email: user.email.toUpperCase(), password: PASSWORD } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(typeof body.token).toBe('string');
    expect(body.user).toMatchObject({
      id: user.id,
      email: user.email,
      role: 'editor',
      super_admin: false,
      tenant_id: tenant.id,
      tenant_name: 'Acme',
      user_group: 'manual',
      auth_provider: 'local',
    });
    expect(body.user.tenant_ids).toEqual([tenant.id]);
    expect(body.user).not.toHaveProperty('passwordHash');
    expect(JSON.stringify(body)).not.toContain('scrypt$');
    expect(body.tenant).toMatchObject({ id: tenant.id, slug: tenant.slug, created_at: expect.any(String), createdAt: expect.any(String) });
    expect(body.availableTenants.map((x: { id: string }) => x.id)).toEqual([tenant.id]);
  });

  it('answers 401 with the same message for a wrong password and an unknown email', async () => {
    const tenant = await createTenant(t.db);
    const user = await createUser(t.db, tenant.id);
    const wrong = await call(t.app, 'POST', '/api/auth/login', { body: { email: user.email, password: 'nope-nope' } });
    const unknown = await call(t.app, 'POST', '/api/auth/login', { body: { email: 'nobody@example.com', password: 'nope-nope' } });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json().error).toBe(M.invalidCredentials);
    expect(unknown.json().error).toBe(M.invalidCredentials);
  });

  it('answers 400 for a malformed email', async () => {
    const res = await call(t.app, 'POST', '/api/auth/login', { body: { email: 'not-an-email', password: 'x' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: M.invalidEmail, field: 'email' });
  });

  it.each([
    [{}, 'email'],
    [{ email: 'a@example.com' }, 'password'],
    [{ password: 'secret' }, 'email'],
    [{ email: '', password: '' }, 'email'],
    [{ email: 42, password: ['x'] }, 'email'],
  ])('answers 400 when fields are missing or wrong: %j', async (body, field) => {
    const res = await call(t.app, 'POST', '/api/auth/login', { body });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: M.emailPasswordRequired, field });
  });

  it('answers 400 for a body that is not JSON', async () => {
    const res = await call(t.app, 'POST', '/api/auth/login', { body: '{"email":', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/not valid JSON/);
  });

  it('limits failed attempts per account from one address with a 429, without locking out other accounts', async () => {
    const tenant = await createTenant(t.db);
    const victim = await createUser(t.db, tenant.id);
    const bystander = await createUser(t.db, tenant.id);
    for (let i = 0; i < 3; i++) {
      const r = await call(t.app, 'POST', '/api/auth/login', { body: { email: victim.email, password: 'wrong-one' } });
      expect(r.statusCode).toBe(401);
    }
    const blocked = await call(t.app, 'POST', '/api/auth/login', { body: { email: victim.email, password: PASSWORD } });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error).toBe(M.tooManyLoginAttempts);
    expect(blocked.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    const other = await call(t.app, 'POST', '/api/auth/login', { body: { email: bystander.email, password: PASSWORD } });
    expect(other.statusCode).toBe(200);
  });

  it('writes audit rows for sign-ins and failed sign-ins', async () => {
    const tenant = await createTenant(t.db);
    const user = await createUser(t.db, tenant.id);
    await call(t.app, 'POST', '/api/auth/login', { body: { email: user.email, password: 'wrong-one' } });
    await signIn(t.app, user.email);
    const rows = await t.db.select().from(auditLog);
    const mine = rows.filter((r) => r.targetId === user.id).map((r) => r.action);
    expect(mine).toEqual(expect.arrayContaining(['auth.login_failed', 'auth.login']));
  });

  it('refuses a user whose every tenant is archived', async () => {
    const tenant = await createTenant(t.db, { archived: true });
    const user = await createUser(t.db, tenant.id);
    const res = await call(t.app, 'POST', '/api/auth/login', { body: { email: user.email, password: PASSWORD } });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe(M.allTenantsArchived);
  });
});

describe('address limit', () => {
  it('limits failed attempts per address', async () => {
    const limited = await buildTestApp({ LOGIN_MAX_FAILURES_PER_ACCOUNT: '5', LOGIN_MAX_FAILURES_PER_ADDRESS: '2' });
    try {
      for (let i = 0; i < 2; i++) {
        const r = await call(limited.app, 'POST', '/api/auth/login', { body: { email: `x${i}@example.com`, password: 'wrong-one' } });
        expect(r.statusCode).toBe(401);
      }
      const r = await call(limited.app, 'POST', '/api/auth/login', { body: { email: 'y@example.com', password: 'wrong-one' } });
      expect(r.statusCode).toBe(429);
    } finally {
      await limited.close();
    }
  }, 120_000);
});

describe('GET /api/auth/me and POST /api/auth/logout', () => {
  it('answers the session for a valid token', async () => {
    const tenant = await createTenant(t.db);
    const user = await createUser(t.db, tenant.id);
    const token = await signIn(t.app, user.email);
    const res = await call(t.app, 'GET', '/api/auth/me', { token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ user: { id: user.id }, tenant: { id: tenant.id } });
    expect(res.json()).not.toHaveProperty('token');
  });

  it('answers 401 without a token', async () => {
    const res = await call(t.app, 'GET', '/api/auth/me');
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe(M.signInRequired);
  });

  it('revokes the token on logout: the old token is 401 afterwards', async () => {
    const tenant = await createTenant(t.db);
    const user = await createUser(t.db, tenant.id);
    const token = await signIn(t.app, user.email);
    const out = await call(t.app, 'POST', '/api/auth/logout', { token });
    expect(out.statusCode).toBe(204);
    expect(out.body).toBe('');
    const after = await call(t.app, 'GET', '/api/auth/me', { token });
    expect(after.statusCode).toBe(401);
  });

  it('answers 401 for a tampered token', async () => {
    const tenant = await createTenant(t.db);
    const user = await createUser(t.db, tenant.id);
    const token = await signIn(t.app, user.email);
    const [h, p, s] = token.split('.');
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    payload.sub = '00000000-0000-0000-0000-000000000000';
    const tampered = [h, Buffer.from(JSON.stringify(payload)).toString('base64url'), s].join('.');
    expect((await call(t.app, 'GET', '/api/auth/me', { token: tampered })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', '/api/auth/me', { token: token.slice(0, -2) + 'xx' })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', '/api/auth/me', { token: 'garbage' })).statusCode).toBe(401);
  });

  it('answers 401 for an expired token and for alg none', async () => {
    const tenant = await createTenant(t.db);
    const user = await createUser(t.db, tenant.id);
    const key = new TextEncoder().encode(TEST_SECRET);
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(user.id)
      .setJti('x1')
      .setIssuer('service-catalog')
      .setAudience('service-catalog-api')
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(key);
    expect((await call(t.app, 'GET', '/api/auth/me', { token: expired })).statusCode).toBe(401);
    const none =
      Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url') +
      '.' +
      Buffer.from(JSON.stringify({ sub: user.id, jti: 'x2', iss: 'service-catalog', aud: 'service-catalog-api', exp: 9999999999 })).toString('base64url') +
      '.';
    expect((await call(t.app, 'GET', '/api/auth/me', { token: none })).statusCode).toBe(401);
  });

  it('answers 401 once the user is deleted', async () => {
    const tenant = await createTenant(t.db);
    const user = await createUser(t.db, tenant.id);
    const token = await signIn(t.app, user.email);
    const { users } = await import('../../db/schema');
    const { eq } = await import('drizzle-orm');
    await t.db.delete(users).where(eq(users.id, user.id));
    expect((await call(t.app, 'GET', '/api/auth/me', { token })).statusCode).toBe(401);
  });
});

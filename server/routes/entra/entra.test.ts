import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { buildTestApp, call } from '../../test/app';
import { createTenant, createUser, PASSWORD } from '../../test/factories';
import { auditLog, authHandoffs, tenantMemberships, users } from '../../db/schema';
import { ENTRA_MESSAGES } from '../../auth/oidc';
import { M } from '../../../common/messages';
import { addPerson, browserFor, handOff, PROVIDER_PASSWORD, PUBLIC_URL, REDIRECT_URI, startEntraWorld, userByOid, type EntraWorld } from './signInDriver';

let w: EntraWorld;
let browser: ReturnType<typeof browserFor>;
beforeAll(async () => {
  w = await startEntraWorld();
  browser = browserFor(w.t.app);
});
afterAll(() => w?.close());

describe('GET /api/auth/entra/signin', () => {
  it('redirects to the provider with the code flow, PKCE S256, state and nonce, bound to this browser by httpOnly cookies', async () => {
    const { authUrl, res } = await browser.startSignIn();
    expect(authUrl.origin).toBe(w.idp.issuer);
    const q = authUrl.searchParams;
    expect(q.get('response_type')).toBe('code');
    expect(q.get('client_id')).toBe(w.idp.clientId);
    expect(q.get('redirect_uri')).toBe(REDIRECT_URI);
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('state')).toBeTruthy();
    expect(q.get('nonce')).toBeTruthy();
    expect(q.get('scope')).toContain('openid');
    const cookies = String(res.headers['set-cookie']);
    expect(cookies).toMatch(/catalog_browser=[^;]+;.*HttpOnly/i);
    expect(cookies).toMatch(/catalog_entra_signin=[^;]+;.*HttpOnly/i);
    expect(cookies).toMatch(/SameSite=Lax/i);
    // The verifier never leaves the server in readable form.
    expect(cookies).not.toContain(q.get('state')!);
  });

  it('answers with a readable message on /login when Microsoft sign-in is not configured', async () => {
    const bare = await buildTestApp();
    try {
      for (const url of ['/api/auth/entra/signin', '/api/auth/entra/callback?code=x&state=y']) {
        const res = await bare.app.inject({ method: 'GET', url });
        expect(res.statusCode).toBe(302);
        const location = new URL(String(res.headers.location), PUBLIC_URL);
        expect(location.pathname).toBe('/login');
        expect(location.searchParams.get('error')).toBe(ENTRA_MESSAGES.notConfigured);
      }
    } finally {
      await bare.close();
    }
  });

  it('answers with a readable message on /login when the identity provider cannot be reached', async () => {
    const unreachable = await buildTestApp({ ENTRA_CLIENT_ID: 'x', ENTRA_CLIENT_SECRET: 'y', ENTRA_ISSUER: 'http://127.0.0.1:9', PUBLIC_URL });
    try {
      const res = await unreachable.app.inject({ method: 'GET', url: '/api/auth/entra/signin' });
      expect(res.statusCode).toBe(302);
      expect(new URL(String(res.headers.location), PUBLIC_URL).searchParams.get('error')).toBe(ENTRA_MESSAGES.unavailable);
    } finally {
      await unreachable.close();
    }
  });
});

describe('Microsoft sign-in, the whole flow', () => {
  it('auto-provisions an unknown user on the first visit and matches them by tid and oid on the next', async () => {
    const { login, claims } = addPerson(w);
    const first = await browser.signInThroughProvider(login);
    const { code, data } = handOff(first.location);
    expect([...first.location.searchParams.keys()]).toEqual(['auth_token', 'auth_data']);
    expect(data).not.toHaveProperty('token');
    expect(data.user).toMatchObject({
      email: claims.email,
      name: claims.name,
      role: 'reader',
      user_group: 'entra_auto',
      auth_provider: 'entra',
      tenant_id: w.firstTenant.id,
    });
    expect(data.tenant).toMatchObject({ id: w.firstTenant.id, slug: w.firstTenant.slug });
    expect(data.availableTenants.map((x: { id: string }) => x.id)).toEqual([w.firstTenant.id]);

    const created = await userByOid(w.t, claims.oid);
    expect(created).toMatchObject({ userGroup: 'entra_auto', authProvider: 'entra', passwordHash: null, tenantId: w.firstTenant.id });
    const memberships = await w.t.db.select().from(tenantMemberships).where(eq(tenantMemberships.userId, created.id));
    expect(memberships.map((m) => [m.tenantId, m.role])).toEqual([[w.firstTenant.id, 'reader']]);
    const creations = await w.t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'user.create'), eq(auditLog.targetId, created.id)));
    expect(creations).toHaveLength(1);

    const res = await browser.exchange(code, first.jar);
    expect(res.statusCode).toBe(200);
    const session = res.json();
    expect(session.user).toMatchObject({ id: created.id, auth_provider: 'entra', user_group: 'entra_auto' });
    expect(session.tenant.id).toBe(w.firstTenant.id);
    expect(session.availableTenants).toHaveLength(1);
    const me = await call(w.t.app, 'GET', '/api/auth/me', { token: session.token });
    expect(me.statusCode).toBe(200);
    expect(me.json().user.email).toBe(claims.email);

    // Second visit, in a fresh browser, with a changed email claim: still the same user.
    w.idp.addAccount(login, PROVIDER_PASSWORD, { ...claims, email: `renamed-${claims.email}` });
    const second = await browser.signInThroughProvider(login);
    const again = handOff(second.location);
    expect(again.data.user.id).toBe(created.id);
    expect((await browser.exchange(again.code, second.jar)).statusCode).toBe(200);
    const all = await w.t.db.select().from(users).where(eq(users.entraOid, claims.oid));
    expect(all).toHaveLength(1);

    const logins = await w.t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'auth.login'), eq(auditLog.actorId, created.id)));
    expect(logins).toHaveLength(2);
    expect(logins[0].details).toMatchObject({ provider: 'entra' });
  });

  it('links an account created for Microsoft sign-in (no password) through its verified email the first time only', async () => {
    const tenant = await createTenant(w.t.db);
    const invited = await createUser(w.t.db, tenant.id, { role: 'editor', passwordHash: null, email: `invited-${randomUUID().slice(0, 6)}@contoso.test` });
    const { login, claims } = addPerson(w, { email: invited.email.toUpperCase() });
    const result = await browser.signInThroughProvider(login);
    const { data } = handOff(result.location);
    expect(data.user).toMatchObject({ id: invited.id, role: 'editor', auth_provider: 'entra', user_group: 'manual', tenant_id: tenant.id });
    const linked = await userByOid(w.t, claims.oid);
    expect(linked.id).toBe(invited.id);

    // Another Microsoft identity with the same address cannot take the linked account over.
    const intruder = addPerson(w, { email: invited.email });
    const refused = await browser.signInThroughProvider(intruder.login);
    expect(refused.loginError).toBe(ENTRA_MESSAGES.linkedElsewhere);
  });

  it('links through the UPN (preferred_username) of the configured Entra tenant when there is no email claim', async () => {
    const invited = await createUser(w.t.db, w.firstTenant.id, { passwordHash: null });
    const { login, claims } = addPerson(w, { email: undefined, email_verified: undefined, preferred_username: invited.email });
    const { data } = handOff((await browser.signInThroughProvider(login)).location);
    expect(data.user.id).toBe(invited.id);
    expect((await userByOid(w.t, claims.oid)).id).toBe(invited.id);
  });

  it('provisions into ENTRA_DEFAULT_TENANT with ENTRA_DEFAULT_ROLE', async () => {
    const custom = await buildTestApp({ ...w.entraEnv, ENTRA_DEFAULT_TENANT: 'partners', ENTRA_DEFAULT_ROLE: 'editor' });
    try {
      await createTenant(custom.db, { name: 'Head Office' });
      const partners = await createTenant(custom.db, { name: 'Partners', slug: 'partners' });
      const { login } = addPerson(w);
      const { location } = await browserFor(custom.app).signInThroughProvider(login);
      const { data } = handOff(location);
      expect(data.user).toMatchObject({ role: 'editor', tenant_id: partners.id, user_group: 'entra_auto' });
      expect(data.tenant.slug).toBe('partners');
    } finally {
      await custom.close();
    }
  });
});

describe('POST /api/auth/exchange', () => {
  it('answers 400 without a code', async () => {
    const res = await w.t.app.inject({ method: 'POST', url: '/api/auth/exchange', payload: {} });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: ENTRA_MESSAGES.codeRequired, field: 'code' });
  });

  it('answers 401 for an unknown code', async () => {
    const res = await browser.exchange('not-a-real-code', new Map());
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe(ENTRA_MESSAGES.codeInvalid);
  });

  it('answers 401 when a hand-off code is used twice', async () => {
    const { login } = addPerson(w);
    const result = await browser.signInThroughProvider(login);
    const { code } = handOff(result.location);
    const jar = new Map(result.jar);
    expect((await browser.exchange(code, result.jar)).statusCode).toBe(200);
    const again = await browser.exchange(code, jar);
    expect(again.statusCode).toBe(401);
    expect(again.json().error).toBe(ENTRA_MESSAGES.codeInvalid);
  });

  it('answers 401 when a hand-off code has expired', async () => {
    const { login, claims } = addPerson(w);
    const result = await browser.signInThroughProvider(login);
    const { code } = handOff(result.location);
    const user = await userByOid(w.t, claims.oid);
    await w.t.db
      .update(authHandoffs)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(authHandoffs.userId, user.id));
    const res = await browser.exchange(code, result.jar);
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe(ENTRA_MESSAGES.codeInvalid);
  });

  it('answers 401 for a hand-off code presented by another browser, and it still works in its own', async () => {
    const { login } = addPerson(w);
    const result = await browser.signInThroughProvider(login);
    const { code } = handOff(result.location);
    const other = await browser.startSignIn();
    for (const jar of [other.jar, new Map<string, string>()]) {
      const res = await browser.exchange(code, jar);
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toBe(ENTRA_MESSAGES.codeOtherBrowser);
    }
    expect((await browser.exchange(code, result.jar)).statusCode).toBe(200);
  });

  it('refuses users whose every tenant is archived', async () => {
    const archived = await createTenant(w.t.db, { archived: true });
    const invited = await createUser(w.t.db, archived.id, { passwordHash: null });
    const { login } = addPerson(w, { email: invited.email });
    const result = await browser.signInThroughProvider(login);
    expect(result.loginError).toBe(M.allTenantsArchived);
  });
});

describe('Microsoft sign-in of an account a tenant admin created', () => {
  it('accepts its pending invitation to that tenant at the exchange that issues the session (decision 0110)', async () => {
    const admin = await createUser(w.t.db, w.firstTenant.id, { role: 'admin' });
    const adminToken = (await call(w.t.app, 'POST', '/api/auth/login', { body: { email: admin.email, password: PASSWORD } })).json().token as string;
    const { login, claims } = addPerson(w);
    const created = await call(w.t.app, 'POST', '/api/users', { token: adminToken, body: { email: claims.email, name: 'Entered', role: 'editor' } });
    expect(created.statusCode).toBe(201);
    const invitationId = created.json().user.id as string;
    const listed = async () =>
      ((await call(w.t.app, 'GET', '/api/users', { token: adminToken })).json().users as { email: string; invitation: boolean }[]).find(
        (u) => u.email === claims.email,
      );
    expect(await listed()).toMatchObject({ invitation: true });

    const result = await browser.signInThroughProvider(login);
    // The hand-off code alone issues no session, and accepts nothing yet.
    expect(await listed()).toMatchObject({ invitation: true });
    const res = await browser.exchange(handOff(result.location).code, result.jar);
    expect(res.statusCode).toBe(200);
    expect(await listed()).toMatchObject({ name: 'Entered', invitation: false });
    const me = (await call(w.t.app, 'GET', '/api/auth/me', { token: res.json().token })).json();
    expect(me.invitations).toEqual([]);
    const accepted = await w.t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'invitation.accept'), eq(auditLog.targetId, invitationId)));
    expect(accepted).toMatchObject([{ tenantId: w.firstTenant.id, actorEmail: claims.email }]);
  });
});

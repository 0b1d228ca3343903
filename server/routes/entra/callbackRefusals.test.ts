import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createUser } from '../../test/factories';
import { authorizeAtProvider } from '../../test/oidcProvider';
import { auditLog, users } from '../../db/schema';
import { ENTRA_MESSAGES } from '../../auth/oidc';
import { addPerson, browserFor, handOff, PROVIDER_PASSWORD, REDIRECT_URI, startEntraWorld, userByOid, type EntraWorld, type Jar } from './signInDriver';

let w: EntraWorld;
let browser: ReturnType<typeof browserFor>;
beforeAll(async () => {
  w = await startEntraWorld();
  browser = browserFor(w.t.app);
});
afterAll(() => w?.close());

describe('Microsoft sign-in refuses what does not verify', () => {
  it('refuses a callback whose state was changed', async () => {
    const { login, claims } = addPerson(w);
    const { authUrl, jar } = await browser.startSignIn();
    const back = await authorizeAtProvider(authUrl.href, login, PROVIDER_PASSWORD, REDIRECT_URI);
    back.searchParams.set('state', 'forged-state');
    expect((await browser.callback(back, jar)).loginError).toBe(ENTRA_MESSAGES.state);
    expect(await userByOid(w.t, claims.oid)).toBeUndefined();
  });

  it('refuses a callback without state', async () => {
    const { login } = addPerson(w);
    const { authUrl, jar } = await browser.startSignIn();
    const back = await authorizeAtProvider(authUrl.href, login, PROVIDER_PASSWORD, REDIRECT_URI);
    back.searchParams.delete('state');
    expect((await browser.callback(back, jar)).loginError).toBe(ENTRA_MESSAGES.state);
  });

  it('refuses a callback in a browser that did not start the sign-in', async () => {
    const { login } = addPerson(w);
    const { authUrl } = await browser.startSignIn();
    const back = await authorizeAtProvider(authUrl.href, login, PROVIDER_PASSWORD, REDIRECT_URI);
    const elsewhere = await browser.startSignIn();
    expect((await browser.callback(back, new Map())).loginError).toBe(ENTRA_MESSAGES.state);
    expect((await browser.callback(back, elsewhere.jar)).loginError).toBe(ENTRA_MESSAGES.state);
  });

  it('refuses an ID token with another nonce', async () => {
    const { login, claims } = addPerson(w);
    const { authUrl, jar } = await browser.startSignIn();
    authUrl.searchParams.set('nonce', 'attacker-nonce');
    const back = await authorizeAtProvider(authUrl.href, login, PROVIDER_PASSWORD, REDIRECT_URI);
    expect((await browser.callback(back, jar)).loginError).toBe(ENTRA_MESSAGES.verification);
    expect(await userByOid(w.t, claims.oid)).toBeUndefined();
  });

  it('refuses a code issued for another PKCE challenge (the verifier does not match)', async () => {
    const { login } = addPerson(w);
    const { authUrl, jar } = await browser.startSignIn();
    authUrl.searchParams.set('code_challenge', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    const back = await authorizeAtProvider(authUrl.href, login, PROVIDER_PASSWORD, REDIRECT_URI);
    expect((await browser.callback(back, jar)).loginError).toBe(ENTRA_MESSAGES.verification);
  });

  it('refuses a replayed authorization code', async () => {
    const { login } = addPerson(w);
    const { authUrl, jar } = await browser.startSignIn();
    const saved: Jar = new Map(jar);
    const back = await authorizeAtProvider(authUrl.href, login, PROVIDER_PASSWORD, REDIRECT_URI);
    handOff((await browser.callback(back, jar)).location);
    expect((await browser.callback(back, saved)).loginError).toBe(ENTRA_MESSAGES.verification);
  });

  it('refuses an answer from another issuer', async () => {
    const { login, claims } = addPerson(w);
    const { authUrl, jar } = await browser.startSignIn();
    const forged = new URL(`${authUrl.pathname}${authUrl.search}`, w.otherIdp.issuer);
    const back = await authorizeAtProvider(forged.href, login, PROVIDER_PASSWORD, REDIRECT_URI);
    expect((await browser.callback(back, jar)).loginError).toBe(ENTRA_MESSAGES.verification);
    expect(await userByOid(w.t, claims.oid)).toBeUndefined();
  });

  it('shows that the sign-in was cancelled when the provider answers access_denied', async () => {
    const { authUrl, jar } = await browser.startSignIn();
    const back = new URL(REDIRECT_URI);
    back.search = new URLSearchParams({ error: 'access_denied', state: authUrl.searchParams.get('state')! }).toString();
    expect((await browser.callback(back, jar)).loginError).toBe(ENTRA_MESSAGES.cancelled);
  });

  it('refuses an account of another Entra tenant', async () => {
    const { login, claims } = addPerson(w, { tid: randomUUID() });
    const result = await browser.signInThroughProvider(login);
    expect(result.loginError).toBe(ENTRA_MESSAGES.tenant);
    const [row] = await w.t.db.select().from(users).where(eq(users.entraOid, claims.oid));
    expect(row).toBeUndefined();
  });

  it('never takes over an account with a password through an email claim', async () => {
    const local = await createUser(w.t.db, w.firstTenant.id, { role: 'admin' });
    const { login } = addPerson(w, { email: local.email, email_verified: true });
    const result = await browser.signInThroughProvider(login);
    expect(result.loginError).toBe(ENTRA_MESSAGES.localAccount);
    const [after] = await w.t.db.select().from(users).where(eq(users.id, local.id));
    expect(after).toMatchObject({ entraOid: null, entraTid: null, authProvider: 'local' });
    const failures = await w.t.db.select().from(auditLog).where(eq(auditLog.action, 'auth.login_failed'));
    expect(failures.some((f) => (f.details as { reason?: string } | null)?.reason?.includes('password'))).toBe(true);
  });

  it('does not link an account through an unverified email', async () => {
    const invited = await createUser(w.t.db, w.firstTenant.id, { passwordHash: null });
    const { login } = addPerson(w, { email: invited.email, email_verified: false });
    const result = await browser.signInThroughProvider(login);
    expect(result.loginError).toBe(ENTRA_MESSAGES.unverifiedEmail);
  });
});

import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, type TestApp } from '../../test/app';
import { createTenant } from '../../test/factories';
import { authorizeAtProvider, startTestProvider, type TestAccountClaims, type TestIdentityProvider } from '../../test/oidcProvider';
import { users } from '../../db/schema';

/** Test setup and a browser stand-in for Microsoft sign-in through app.inject and a real provider. */
export const PUBLIC_URL = 'http://catalog.test';
export const REDIRECT_URI = `${PUBLIC_URL}/api/auth/entra/callback`;
export const ENTRA_TENANT = '9c1f6a4e-2b7d-4c1e-9a55-0f3b8d2e6a11';
export const PROVIDER_PASSWORD = 'provider-password';

export type Jar = Map<string, string>;

export interface EntraWorld {
  t: TestApp;
  idp: TestIdentityProvider;
  /** Another issuer that knows the same client: its answers must never be accepted. */
  otherIdp: TestIdentityProvider;
  firstTenant: Awaited<ReturnType<typeof createTenant>>;
  entraEnv: Record<string, string>;
  close(): Promise<void>;
}

export async function startEntraWorld(): Promise<EntraWorld> {
  const idp = await startTestProvider({ redirectUris: [REDIRECT_URI] });
  const otherIdp = await startTestProvider({ redirectUris: [REDIRECT_URI], clientId: idp.clientId, clientSecret: idp.clientSecret });
  const entraEnv = {
    ENTRA_CLIENT_ID: idp.clientId,
    ENTRA_CLIENT_SECRET: idp.clientSecret,
    ENTRA_ISSUER: idp.issuer,
    ENTRA_TENANT_ID: ENTRA_TENANT,
    PUBLIC_URL,
  };
  const t = await buildTestApp(entraEnv);
  const firstTenant = await createTenant(t.db, { name: 'First Organisation' });
  return {
    t,
    idp,
    otherIdp,
    firstTenant,
    entraEnv,
    close: async () => {
      await t.close();
      await idp.close();
      await otherIdp.close();
    },
  };
}

/** A person at both providers: login and the claims Entra would issue for them. */
export function addPerson(world: EntraWorld, overrides: Partial<TestAccountClaims> = {}) {
  const id = randomUUID().slice(0, 8);
  const login = `person-${id}`;
  const claims: TestAccountClaims = {
    oid: randomUUID(),
    tid: ENTRA_TENANT,
    email: `${login}@contoso.test`,
    email_verified: true,
    name: `Person ${id}`,
    ...overrides,
  };
  world.idp.addAccount(login, PROVIDER_PASSWORD, claims);
  world.otherIdp.addAccount(login, PROVIDER_PASSWORD, claims);
  return { login, claims };
}

function keep(jar: Jar, res: { cookies: Array<{ name: string; value: string; expires?: Date; maxAge?: number }> }) {
  for (const c of res.cookies) {
    const gone = c.value === '' || c.maxAge === 0 || (c.expires !== undefined && c.expires.getTime() <= Date.now());
    if (gone) jar.delete(c.name);
    else jar.set(c.name, c.value);
  }
}

const cookieHeader = (jar: Jar) => ({ cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') });

/** The app side of a browser: its cookies go along with every call, as a browser's would. */
export function browserFor(app: FastifyInstance) {
  const startSignIn = async (jar: Jar = new Map()) => {
    const res = await app.inject({ method: 'GET', url: '/api/auth/entra/signin', headers: cookieHeader(jar) });
    expect(res.statusCode).toBe(302);
    keep(jar, res);
    return { authUrl: new URL(String(res.headers.location)), jar, res };
  };

  const callback = async (url: URL, jar: Jar) => {
    const res = await app.inject({ method: 'GET', url: `${url.pathname}${url.search}`, headers: cookieHeader(jar) });
    expect(res.statusCode).toBe(302);
    keep(jar, res);
    const location = new URL(String(res.headers.location), PUBLIC_URL);
    return { location, loginError: location.pathname === '/login' ? location.searchParams.get('error') : null };
  };

  const exchange = (code: unknown, jar: Jar) => app.inject({ method: 'POST', url: '/api/auth/exchange', headers: cookieHeader(jar), payload: { code } });

  /** The whole journey up to the page's hand-off: sign-in, provider login, callback. */
  const signInThroughProvider = async (login: string) => {
    const { authUrl, jar } = await startSignIn();
    const back = await authorizeAtProvider(authUrl.href, login, PROVIDER_PASSWORD, REDIRECT_URI);
    return { ...(await callback(back, jar)), jar };
  };

  return { startSignIn, callback, exchange, signInThroughProvider };
}

/** The one-time code and auth_data of a successful callback's redirect to /. */
export function handOff(location: URL) {
  expect(location.pathname).toBe('/');
  const code = location.searchParams.get('auth_token');
  const data = JSON.parse(location.searchParams.get('auth_data') ?? 'null');
  expect(code).toBeTruthy();
  return { code: code!, data };
}

export async function userByOid(t: TestApp, oid: string) {
  const [row] = await t.db
    .select()
    .from(users)
    .where(and(eq(users.entraTid, ENTRA_TENANT), eq(users.entraOid, oid)));
  return row;
}

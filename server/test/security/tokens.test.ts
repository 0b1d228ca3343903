import { randomUUID } from 'node:crypto';
import { SignJWT, generateKeyPair, type JWTPayload } from 'jose';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, call, TEST_SECRET, type TestApp } from '../app';
import { createUser, createWorld, signIn, type World } from '../factories';
import { users } from '../../db/schema';
import { recordFigure } from './figures';

/**
 * Suite 4, tokens: every token that is not a valid, unrevoked session of an existing user is refused
 * with 401 on every kind of route, and an impersonation token never carries super admin rights.
 */
const ISSUER = 'service-catalog';
const AUDIENCE = 'service-catalog-api';
const secret = new TextEncoder().encode(TEST_SECRET);
const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

/** Routes of each kind a token opens: tenant-scoped reads and writes, cross-tenant, and session routes. */
const PROBES: Array<{ method: 'GET' | 'POST'; url: string; body?: unknown }> = [
  { method: 'GET', url: '/api/auth/me' },
  { method: 'GET', url: '/api/services' },
  { method: 'POST', url: '/api/services', body: { name: 'Token probe', slug: 'token-probe' } },
  { method: 'GET', url: '/api/tenants' },
  { method: 'POST', url: '/api/auth/logout' },
];

let t: TestApp;
let world: World;
let attempts = 0;
let accepted = 0;

interface Claims extends JWTPayload {
  imp?: string;
  tid?: string;
}

function claimsFor(sub: string, extra: Partial<Claims> = {}): Claims {
  return { sub, jti: randomUUID(), iss: ISSUER, aud: AUDIENCE, iat: now(), exp: now() + 3600, ...extra };
}

async function hs(alg: 'HS256' | 'HS384' | 'HS512', claims: Claims, key: Uint8Array = secret): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).sign(key);
}

/** A token with any header, signed (HMAC-SHA256 with the real secret) or not. */
async function raw(header: Record<string, unknown>, claims: Claims, signature: 'none' | 'hmac' = 'none'): Promise<string> {
  const input = `${b64(header)}.${b64(claims)}`;
  if (signature === 'none') return `${input}.`;
  const { createHmac } = await import('node:crypto');
  return `${input}.${createHmac('sha256', TEST_SECRET).update(input).digest('base64url')}`;
}

/** Sends a token to every probe route and counts any answer other than 401 as accepted. */
async function expectRefused(label: string, token: string, status = 401) {
  for (const probe of PROBES) {
    const res = await call(t.app, probe.method, probe.url, { headers: { authorization: `Bearer ${token}` }, body: probe.body });
    attempts++;
    if (res.statusCode !== status) accepted++;
    expect(res.statusCode, `${label}: ${probe.method} ${probe.url}`).toBe(status);
  }
}

beforeAll(async () => {
  t = await buildTestApp();
  world = await createWorld(t.app, t.db);
});

afterAll(async () => {
  recordFigure('tokens', `${accepted} of ${attempts} hostile token probes accepted`, { accepted, attempts });
  await t?.close();
});

describe('tokens that are not what the server issued', () => {
  it('refuses garbage, empty and malformed bearer values', async () => {
    for (const token of ['abc', 'abc.def.ghi', 'a.b', '....', 'eyJhbGciOiJIUzI1NiJ9', 'null', 'undefined', 'x'.repeat(5000)]) {
      await expectRefused(`garbage ${token.slice(0, 20)}`, token);
    }
    for (const header of ['Bearer', 'Bearer ', 'Basic YWRtaW46YWRtaW4=', 'Token abc', `Bearer ${world.tokens.admin} extra`, `${world.tokens.admin}`]) {
      for (const probe of PROBES) {
        const res = await call(t.app, probe.method, probe.url, { headers: { authorization: header }, body: probe.body });
        attempts++;
        if (res.statusCode !== 401) accepted++;
        expect(res.statusCode, `header ${header.slice(0, 20)}`).toBe(401);
      }
    }
  });

  it('refuses a token passed in the query string or a cookie instead of the header', async () => {
    for (const probe of PROBES) {
      for (const opts of [{ query: { token: world.tokens.admin } }, { headers: { cookie: `token=${world.tokens.admin}` } }]) {
        const res = await call(t.app, probe.method, probe.url, { ...opts, body: probe.body });
        attempts++;
        if (res.statusCode !== 401) accepted++;
        expect(res.statusCode).toBe(401);
      }
    }
  });

  it('refuses a tampered payload, a tampered signature and a token of another issuer secret', async () => {
    const [header, payload, signature] = world.tokens.reader.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    // The reader's token rewritten to name the super admin, signature kept.
    await expectRefused('tampered sub', `${header}.${b64({ ...claims, sub: world.users.superAdmin.id })}.${signature}`);
    await expectRefused('extended expiry', `${header}.${b64({ ...claims, exp: claims.exp + 86400 })}.${signature}`);
    await expectRefused('added imp', `${header}.${b64({ ...claims, imp: world.users.superAdmin.id })}.${signature}`);
    const flipped = signature.slice(0, -2) + (signature.at(-2) === 'A' ? 'B' : 'A') + signature.at(-1);
    await expectRefused('tampered signature', `${header}.${payload}.${flipped}`);
    await expectRefused('signature removed', `${header}.${payload}.`);
    await expectRefused('signature of another token', `${header}.${payload}.${world.tokens.editor.split('.')[2]}`);
    const other = new TextEncoder().encode('another-secret-another-secret-another-secret');
    await expectRefused('another secret', await hs('HS256', claimsFor(world.users.admin.id), other));
    await expectRefused('empty-ish secret', await hs('HS256', claimsFor(world.users.admin.id), new TextEncoder().encode('x'.repeat(32))));
  });

  it('refuses every algorithm but HS256: HS384, HS512, none, RS256, ES256 and an RS256 header over an HMAC', async () => {
    const sub = world.users.admin.id;
    await expectRefused('HS384', await hs('HS384', claimsFor(sub)));
    await expectRefused('HS512', await hs('HS512', claimsFor(sub)));
    for (const alg of ['none', 'None', 'NONE', 'nOnE']) {
      await expectRefused(`alg ${alg}`, await raw({ alg, typ: 'JWT' }, claimsFor(sub)));
      await expectRefused(`alg ${alg} with signature`, await raw({ alg, typ: 'JWT' }, claimsFor(sub), 'hmac'));
    }
    await expectRefused('no alg', await raw({ typ: 'JWT' }, claimsFor(sub), 'hmac'));
    await expectRefused('RS256 header over HMAC', await raw({ alg: 'RS256', typ: 'JWT' }, claimsFor(sub), 'hmac'));
    await expectRefused('unknown critical header', await raw({ alg: 'HS256', typ: 'JWT', crit: ['exp2'], exp2: 1 }, claimsFor(sub), 'hmac'));
    const rsa = await generateKeyPair('RS256');
    await expectRefused('RS256', await new SignJWT(claimsFor(sub)).setProtectedHeader({ alg: 'RS256' }).sign(rsa.privateKey));
    const ec = await generateKeyPair('ES256');
    await expectRefused('ES256', await new SignJWT(claimsFor(sub)).setProtectedHeader({ alg: 'ES256' }).sign(ec.privateKey));
    // The real secret and algorithm, to prove the forgeries above fail for the reason tested.
    const control = await call(t.app, 'GET', '/api/auth/me', { token: await hs('HS256', claimsFor(sub)) });
    expect(control.statusCode).toBe(200);
  });

  it('refuses expired, not-yet-valid, wrong issuer or audience, and tokens missing a claim', async () => {
    const sub = world.users.admin.id;
    await expectRefused('expired', await hs('HS256', claimsFor(sub, { iat: now() - 7200, exp: now() - 3600 })));
    await expectRefused('expired a second ago', await hs('HS256', claimsFor(sub, { exp: now() - 1 })));
    await expectRefused('not yet valid', await hs('HS256', claimsFor(sub, { nbf: now() + 3600 })));
    await expectRefused('wrong issuer', await hs('HS256', claimsFor(sub, { iss: 'someone-else' })));
    await expectRefused('wrong audience', await hs('HS256', claimsFor(sub, { aud: 'another-api' })));
    const strip = (key: keyof Claims) => {
      const c = claimsFor(sub);
      delete c[key];
      return c;
    };
    for (const key of ['iss', 'aud', 'exp', 'jti', 'sub'] as const) await expectRefused(`missing ${key}`, await hs('HS256', strip(key)));
    await expectRefused('numeric sub', await hs('HS256', claimsFor(sub, { sub: 42 as never })));
    await expectRefused('sub of nobody', await hs('HS256', claimsFor(randomUUID())));
    await expectRefused('string expiry', await hs('HS256', claimsFor(sub, { exp: 'never' as never })));
  });

  it('refuses a token once it was revoked by Log Out, and the tokens of a deleted user', async () => {
    const user = await createUser(t.db, world.tenant.id, { role: 'admin' });
    const token = await signIn(t.app, user.email);
    expect((await call(t.app, 'GET', '/api/auth/me', { token })).statusCode).toBe(200);
    expect((await call(t.app, 'POST', '/api/auth/logout', { token })).statusCode).toBe(204);
    await expectRefused('revoked', token);

    const doomed = await createUser(t.db, world.tenant.id, { role: 'admin' });
    const doomedToken = await signIn(t.app, doomed.email);
    const forged = await hs('HS256', claimsFor(doomed.id));
    await t.db.delete(users).where(eq(users.id, doomed.id));
    await expectRefused('deleted user', doomedToken);
    await expectRefused('deleted user, freshly signed', forged);
  });

  it('refuses an impersonation token whose impersonator is not (or no longer) a super admin', async () => {
    const admin = await hs('HS256', claimsFor(world.users.reader.id, { imp: world.users.admin.id, tid: world.tenant.id }));
    await expectRefused('impersonator is a tenant admin', admin);
    await expectRefused('impersonator does not exist', await hs('HS256', claimsFor(world.users.reader.id, { imp: randomUUID() })));
    const demoted = await createUser(t.db, world.tenant.id, { role: 'admin', superAdmin: true });
    const token = (await t.app.tokens.sign({ sub: world.users.reader.id, imp: demoted.id, tid: world.tenant.id, sid: randomUUID(), ttlSeconds: 600 })).token;
    // Bound to no super admin session: refused, whoever signed it.
    const unbound = (await t.app.tokens.sign({ sub: world.users.reader.id, imp: demoted.id, tid: world.tenant.id, ttlSeconds: 600 })).token;
    await expectRefused('impersonation bound to no session', unbound);
    expect((await call(t.app, 'GET', '/api/auth/me', { token })).statusCode).toBe(200);
    await t.db.update(users).set({ superAdmin: false }).where(eq(users.id, demoted.id));
    await expectRefused('impersonator demoted', token);
  });
});

describe('impersonation tokens on super admin routes', () => {
  it('never carry super admin rights, not even when impersonating a super admin', async () => {
    const sign = (sub: string) =>
      t.app.tokens.sign({ sub, imp: world.users.superAdmin.id, tid: world.tenant.id, sid: randomUUID(), ttlSeconds: 600 }).then((s) => s.token);
    const asReader = await sign(world.users.reader.id);
    const asAdmin = await sign(world.users.admin.id);
    const otherSuper = await createUser(t.db, world.tenant.id, { role: 'admin', superAdmin: true });
    const asSuper = await sign(otherSuper.id);
    const routes: Array<{ method: 'GET' | 'POST'; url: string; body?: unknown }> = [
      { method: 'GET', url: '/api/tenants' },
      { method: 'POST', url: '/api/tenants', body: { name: 'Impersonated tenant', slug: 'impersonated-tenant' } },
    ];
    for (const token of [asReader, asAdmin, asSuper]) {
      // The token works as the impersonated user...
      expect((await call(t.app, 'GET', '/api/auth/me', { token })).statusCode).toBe(200);
      // ...and never on the platform's own routes.
      for (const route of routes) {
        const res = await call(t.app, route.method, route.url, { token, body: route.body });
        attempts++;
        if (res.statusCode !== 403 && res.statusCode !== 401) accepted++;
        expect([401, 403], `${route.method} ${route.url}`).toContain(res.statusCode);
      }
    }
    const tenants = await call(t.app, 'GET', '/api/tenants', { token: world.tokens.superAdmin });
    expect(tenants.statusCode).toBe(200);
    expect(tenants.json().tenants.map((x: { slug: string }) => x.slug)).not.toContain('impersonated-tenant');
  });
});

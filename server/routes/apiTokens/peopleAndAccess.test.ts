import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { INTEGRATION_MESSAGES } from '../../../common/schemas/integrations';
import { ROLES } from '../../../common/roles';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createApiToken, createUser, signIn } from '../../test/factories';
import { EXAMPLES, fillPath, looksLikePeopleRoute, PEOPLE_ROUTES, QUERIES } from '../../test/isolation/routeTable';
import { fingerprinter, seedDataset, type Dataset } from '../../test/isolation/world';
import { createTenant } from '../../test/factories';
import { users } from '../../db/schema';
import { recordFigure } from '../../test/security/figures';

/**
 * API tokens never manage people or access: every route of users, invitations, service role
 * assignments, embedding origins, API tokens and webhooks answers 403 with a message a person can
 * act on to a token of any role, limited or not, and writes nothing; the super admin's membership
 * and user routes refuse them too. A person with the same rights is let in.
 */
let t: TestApp;
let tenant: { id: string; slug: string };
let d: Dataset;
let humanAdmin: { id: string; email: string };
let humanToken: string;
const tokens: { label: string; secret: string }[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  tenant = await createTenant(t.db);
  d = await seedDataset(t.db, tenant.id, tenant.slug);
  humanAdmin = await createUser(t.db, tenant.id, { role: 'admin' });
  humanToken = await signIn(t.app, humanAdmin.email);
  for (const role of ROLES) {
    tokens.push({ label: `${role} token`, secret: (await createApiToken(t.db, tenant.id, { role })).secret });
    tokens.push({ label: `${role} token limited to a service`, secret: (await createApiToken(t.db, tenant.id, { role, serviceIds: [d.service.id] })).secret });
  }
});
afterAll(() => t.close());

function send(key: string, token: string) {
  const [method, url] = key.split(' ') as ['GET' | 'POST' | 'PUT' | 'DELETE', string];
  const example = EXAMPLES[key]?.(d, { otherTenantId: tenant.id, unique: `people${Math.random().toString(36).slice(2, 8)}`, catalogFile: Buffer.alloc(0) });
  return call(t.app, method, fillPath(url, d)!, { token, tenant: tenant.slug, body: example?.body, query: QUERIES[key]?.(d) });
}

describe('API tokens and people or access', () => {
  it('lists every route of people and access', () => {
    const registered = t.app.registeredRoutes.map((r) => `${r.method} ${r.url}`);
    const unlisted = registered.filter((key) => looksLikePeopleRoute(key.split(' ')[1]!) && !PEOPLE_ROUTES.has(key));
    expect(unlisted).toEqual([]);
    expect([...PEOPLE_ROUTES].filter((key) => !registered.includes(key))).toEqual([]);
  });

  it('answers 403 with what to do instead to a token of every role, and writes nothing', async () => {
    const fingerprint = await fingerprinter(t.db);
    const before = await fingerprint();
    const wrong: string[] = [];
    for (const token of tokens) {
      for (const key of PEOPLE_ROUTES) {
        const res = await send(key, token.secret);
        if (res.statusCode !== 403 || res.json().error !== INTEGRATION_MESSAGES.peopleOnly)
          wrong.push(`${key} as ${token.label}: ${res.statusCode} ${res.body.slice(0, 80)}`);
      }
    }
    const after = await fingerprint();
    const written = Object.keys(after).filter((k) => after[k] !== before[k]);
    const probes = tokens.length * PEOPLE_ROUTES.size;
    recordFigure(
      'tokens-people-access',
      `${wrong.length} of ${probes} calls of API tokens to people and access accepted (${tokens.length} tokens, ${PEOPLE_ROUTES.size} routes), ${written.length} tables written`,
      { probes, wrong, written },
    );
    expect(wrong).toEqual([]);
    expect(written).toEqual([]);
  });

  it('keeps an admin token from creating a human admin, deleting one or replacing the embedding origins', async () => {
    const admin = tokens.find((x) => x.label === 'admin token')!.secret;
    const created = await call(t.app, 'POST', '/api/users', {
      token: admin,
      tenant: tenant.slug,
      body: { email: 'planted-admin@example.com', name: 'Planted', role: 'admin', password: 'planted-password' },
    });
    expect(created.statusCode).toBe(403);
    expect(await t.db.select().from(users).where(eq(users.email, 'planted-admin@example.com'))).toEqual([]);
    expect((await call(t.app, 'DELETE', `/api/users/${humanAdmin.id}`, { token: admin, tenant: tenant.slug })).statusCode).toBe(403);
    expect(await t.db.select({ id: users.id }).from(users).where(eq(users.id, humanAdmin.id))).toHaveLength(1);
    const origins = await call(t.app, 'PUT', '/api/publishing/embed-origins', {
      token: admin,
      tenant: tenant.slug,
      body: { origins: ['https://evil.example'] },
    });
    expect(origins.statusCode).toBe(403);
    // The super admin's user and membership routes are no token's either.
    for (const [method, url, body] of [
      ['GET', '/api/admin/users', undefined],
      ['PATCH', `/api/admin/users/${d.user.id}/tenants`, { tenantIds: [tenant.id] }],
      ['PATCH', `/api/admin/users/${d.user.id}`, { role: 'admin' }],
    ] as const) {
      expect((await call(t.app, method, url, { token: admin, body })).statusCode).toBe(403);
    }
  });

  it('shows an admin token service settings without the tenant users and assignments, which a person sees', async () => {
    const admin = tokens.find((x) => x.label === 'admin token')!.secret;
    const byToken = await call(t.app, 'GET', `/api/services/${d.service.id}/settings-data`, { token: admin, tenant: tenant.slug });
    expect(byToken.statusCode).toBe(200);
    expect(byToken.json()).toMatchObject({ users: [], assignments: [] });
    const byPerson = await call(t.app, 'GET', `/api/services/${d.service.id}/settings-data`, { token: humanToken, tenant: tenant.slug });
    expect(byPerson.json().users.length).toBeGreaterThan(0);
    expect(byPerson.json().assignments.length).toBeGreaterThan(0);
  });

  it('lets a person with the same rights in', async () => {
    expect((await call(t.app, 'GET', '/api/users', { token: humanToken, tenant: tenant.slug })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/api/services/${d.service.id}/users`, { token: humanToken, tenant: tenant.slug })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/api/publishing/embed-origins', { token: humanToken, tenant: tenant.slug })).statusCode).toBe(200);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { PERMISSIONS, RUNGS, type Capability, type Rung } from '../../policies';
import { services, tenantMemberships, users } from '../../db/schema';
import { buildTestApp, call, type TestApp } from '../app';
import { assignServiceRole, createTenant, createUser, signIn } from '../factories';
import { recordFigure } from '../security/figures';
import { seedDataset } from './world';

/**
 * Suite 3, the role matrix: the permission table of spec section 6 executed against the API for
 * every role, rights raised by service role assignments, and what a demotion, a removal from a
 * tenant, a deleted user and a logout do to a token already issued.
 */
let t: TestApp;
let tenant: { id: string; slug: string };
const tokens = {} as Record<Rung, string>;

beforeAll(async () => {
  t = await buildTestApp();
  tenant = await createTenant(t.db);
  for (const rung of RUNGS) {
    const user = await createUser(t.db, tenant.id, { role: rung === 'superAdmin' ? 'admin' : rung, superAdmin: rung === 'superAdmin' });
    tokens[rung] = await signIn(t.app, user.email);
  }
}, 120_000);
afterAll(() => t.close());

type Probe = (token: string) => Promise<boolean>;
const as = (token: string) => ({ token, tenant: tenant.slug });

async function allowed(res: { statusCode: number; body: string }): Promise<boolean> {
  if (res.statusCode >= 200 && res.statusCode < 300) return true;
  if (res.statusCode === 403) return false;
  throw new Error(`unexpected ${res.statusCode}: ${res.body}`);
}

/** One representative call per capability of the table, each on records of its own. */
const REPRESENTATIVE: Record<Capability, Probe> = {
  'catalog.view': async (token) => {
    const d = await seedDataset(t.db, tenant.id, tenant.slug);
    return allowed(await call(t.app, 'GET', `/api/services/${d.service.id}/full`, as(token)));
  },
  'catalog.viewPrivate': async (token) => {
    // A private aspect does not exist for those who may not see it: 404, never 403.
    const d = await seedDataset(t.db, tenant.id, tenant.slug);
    const res = await call(t.app, 'GET', `/api/aspects/${d.privateAspect.id}`, as(token));
    if (res.statusCode === 404) return false;
    return allowed(res);
  },
  'catalog.edit': async (token) => {
    const d = await seedDataset(t.db, tenant.id, tenant.slug);
    return allowed(await call(t.app, 'PUT', `/api/categories/${d.category.id}`, { ...as(token), body: { name: 'Edited' } }));
  },
  'service.settings': async (token) => {
    const d = await seedDataset(t.db, tenant.id, tenant.slug);
    return allowed(await call(t.app, 'POST', '/api/actor-roles', { ...as(token), body: { serviceId: d.service.id, roleName: 'Operator' } }));
  },
  'service.admin': async (token) => {
    const d = await seedDataset(t.db, tenant.id, tenant.slug);
    return allowed(await call(t.app, 'PATCH', `/api/services/${d.service.id}/archive`, as(token)));
  },
  'tenant.services': async (token) => {
    const slug = `matrix-${Math.random().toString(36).slice(2, 10)}`;
    return allowed(await call(t.app, 'POST', '/api/services', { ...as(token), body: { name: `Matrix ${slug}`, slug } }));
  },
  'services.showArchived': async (token) => {
    const d = await seedDataset(t.db, tenant.id, tenant.slug);
    const res = await call(t.app, 'GET', '/api/services', { ...as(token), query: { includeArchived: 'true' } });
    expect(res.statusCode).toBe(200);
    return res.json().services.some((s: { id: string }) => s.id === d.archivedService.id);
  },
  'services.hardDelete': async (token) => {
    const d = await seedDataset(t.db, tenant.id, tenant.slug);
    return allowed(await call(t.app, 'DELETE', `/api/services/${d.archivedService.id}/hard-delete`, as(token)));
  },
  'tenant.publishing': async (token) =>
    allowed(await call(t.app, 'PUT', '/api/publishing/embed-origins', { ...as(token), body: { origins: ['https://intranet.example.org'] } })),
  'tenantSettings.page': async (token) => {
    // The page is for admins who are not super admins: the session says whether to offer it.
    const me = (await call(t.app, 'GET', '/api/auth/me', as(token))).json();
    return me.user.role === 'admin' && !me.user.super_admin;
  },
  'tenant.users': async (token) => allowed(await call(t.app, 'GET', '/api/users', as(token))),
  'platform.manage': async (token) => allowed(await call(t.app, 'GET', '/api/admin/users', { token })),
};

describe('role matrix', () => {
  it('grants every capability of the permission table to exactly the roles that hold it', async () => {
    const mismatches: string[] = [];
    let cells = 0;
    for (const capability of Object.keys(PERMISSIONS) as Capability[]) {
      for (const rung of RUNGS) {
        const got = await REPRESENTATIVE[capability](tokens[rung]);
        cells += 1;
        if (got !== PERMISSIONS[capability][rung]) mismatches.push(`${capability} as ${rung}: ${got ? 'allowed' : 'refused'}`);
      }
    }
    const summary = `${cells - mismatches.length} of ${cells} role x capability cells as the permission table says`;
    console.log(`[role matrix] ${summary}`);
    recordFigure('role-matrix', summary, { cells, mismatches });
    expect(mismatches).toEqual([]);
  }, 120_000);

  it('holds per membership: people whose role elsewhere differs get exactly their role in this tenant', async () => {
    // Roles are held per membership (CONTRACT section 4): an admin elsewhere is a reader here, and the reverse.
    const elsewhere = await createTenant(t.db);
    const mismatches: string[] = [];
    let cells = 0;
    for (const rung of ['reader', 'editor', 'admin'] as const) {
      const user = await createUser(t.db, elsewhere.id, { role: rung === 'admin' ? 'reader' : 'admin', extraTenantIds: [tenant.id] });
      await t.db
        .update(tenantMemberships)
        .set({ role: rung })
        .where(and(eq(tenantMemberships.userId, user.id), eq(tenantMemberships.tenantId, tenant.id)));
      const token = await signIn(t.app, user.email);
      for (const capability of Object.keys(PERMISSIONS) as Capability[]) {
        // The platform's rights belong to no tenant: a member's own tenant says nothing of them.
        if (PERMISSIONS[capability].scope === 'platform') continue;
        const got = await REPRESENTATIVE[capability](token);
        cells += 1;
        if (got !== PERMISSIONS[capability][rung]) mismatches.push(`${capability} as ${rung} here: ${got ? 'allowed' : 'refused'}`);
      }
    }
    recordFigure('role-matrix-memberships', `${cells - mismatches.length} of ${cells} cells as the table says for roles that differ by tenant`, {
      cells,
      mismatches,
    });
    expect(mismatches).toEqual([]);
  }, 180_000);

  it('lets a reader assigned editor on one service edit that service only', async () => {
    const one = await seedDataset(t.db, tenant.id, tenant.slug);
    const two = await seedDataset(t.db, tenant.id, tenant.slug);
    const reader = await createUser(t.db, tenant.id, { role: 'reader' });
    await assignServiceRole(t.db, tenant.id, one.service.id, reader.id, 'editor');
    const token = await signIn(t.app, reader.email);
    expect((await call(t.app, 'PUT', `/api/categories/${one.category.id}`, { ...as(token), body: { name: 'Mine' } })).statusCode).toBe(200);
    expect((await call(t.app, 'PUT', `/api/categories/${two.category.id}`, { ...as(token), body: { name: 'Not mine' } })).statusCode).toBe(403);
    // Editor rights on the service, not admin rights.
    expect((await call(t.app, 'PATCH', `/api/services/${one.service.id}/archive`, as(token))).statusCode).toBe(403);
  });

  it('lets an editor assigned admin on one service archive that service only', async () => {
    const one = await seedDataset(t.db, tenant.id, tenant.slug);
    const two = await seedDataset(t.db, tenant.id, tenant.slug);
    const editor = await createUser(t.db, tenant.id, { role: 'editor' });
    await assignServiceRole(t.db, tenant.id, one.service.id, editor.id, 'admin');
    const token = await signIn(t.app, editor.email);
    expect((await call(t.app, 'PATCH', `/api/services/${two.service.id}/archive`, as(token))).statusCode).toBe(403);
    expect((await call(t.app, 'PATCH', `/api/services/${one.service.id}/archive`, as(token))).statusCode).toBe(200);
  });

  it('never lowers rights through an assignment: an editor assigned reader still edits', async () => {
    const d = await seedDataset(t.db, tenant.id, tenant.slug);
    const editor = await createUser(t.db, tenant.id, { role: 'editor' });
    await assignServiceRole(t.db, tenant.id, d.service.id, editor.id, 'reader');
    const token = await signIn(t.app, editor.email);
    expect((await call(t.app, 'PUT', `/api/categories/${d.category.id}`, { ...as(token), body: { name: 'Still editing' } })).statusCode).toBe(200);
  });

  it('takes rights away at once when an admin is demoted, on the token already issued', async () => {
    const d = await seedDataset(t.db, tenant.id, tenant.slug);
    const admin = await createUser(t.db, tenant.id, { role: 'admin' });
    const token = await signIn(t.app, admin.email);
    expect((await call(t.app, 'GET', '/api/users', as(token))).statusCode).toBe(200);
    const demoted = await call(t.app, 'PATCH', `/api/admin/users/${admin.id}`, { token: tokens.superAdmin, body: { role: 'reader' } });
    expect(demoted.statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/api/users', as(token))).statusCode).toBe(403);
    expect((await call(t.app, 'PUT', `/api/categories/${d.category.id}`, { ...as(token), body: { name: 'Too late' } })).statusCode).toBe(403);
    expect((await call(t.app, 'GET', `/api/services/${d.service.id}/full`, as(token))).statusCode).toBe(200);
  });

  it('shuts a user out of a tenant at once when their membership is removed', async () => {
    const second = await createTenant(t.db);
    const d = await seedDataset(t.db, second.id, second.slug);
    const user = await createUser(t.db, tenant.id, { role: 'editor', extraTenantIds: [second.id] });
    const token = await signIn(t.app, user.email);
    expect((await call(t.app, 'GET', `/api/services/${d.service.id}`, { token, tenant: second.slug })).statusCode).toBe(200);
    const changed = await call(t.app, 'PATCH', `/api/admin/users/${user.id}/tenants`, { token: tokens.superAdmin, body: { tenantIds: [tenant.id] } });
    expect(changed.statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/api/services/${d.service.id}`, { token, tenant: second.slug })).statusCode).toBe(403);
    expect((await call(t.app, 'GET', '/api/services', as(token))).statusCode).toBe(200);
  });

  it('refuses the token of a deleted user at once', async () => {
    const user = await createUser(t.db, tenant.id, { role: 'admin' });
    const token = await signIn(t.app, user.email);
    expect((await call(t.app, 'DELETE', `/api/admin/users/${user.id}`, { token: tokens.superAdmin })).statusCode).toBe(204);
    expect((await call(t.app, 'GET', '/api/services', as(token))).statusCode).toBe(401);
    expect((await call(t.app, 'GET', '/api/auth/me', as(token))).statusCode).toBe(401);
  });

  it('refuses a token at once after its logout, and only that token', async () => {
    const user = await createUser(t.db, tenant.id, { role: 'editor' });
    const token = await signIn(t.app, user.email);
    const other = await signIn(t.app, user.email);
    expect((await call(t.app, 'POST', '/api/auth/logout', { token })).statusCode).toBe(204);
    expect((await call(t.app, 'GET', '/api/services', as(token))).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/api/auth/logout', { token })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', '/api/services', as(other))).statusCode).toBe(200);
  });

  it('refuses an impersonation token once the super admin behind it is no longer one', async () => {
    const superAdmin = await createUser(t.db, tenant.id, { role: 'admin', superAdmin: true });
    const reader = await createUser(t.db, tenant.id, { role: 'reader' });
    const superToken = await signIn(t.app, superAdmin.email);
    const started = await call(t.app, 'POST', '/api/impersonation/start', { token: superToken, body: { userId: reader.id, tenantId: tenant.id } });
    expect(started.statusCode).toBe(200);
    const impersonation = started.json().token;
    expect((await call(t.app, 'GET', '/api/services', as(impersonation))).statusCode).toBe(200);
    await t.db.update(users).set({ superAdmin: false }).where(eq(users.id, superAdmin.id));
    expect((await call(t.app, 'GET', '/api/services', as(impersonation))).statusCode).toBe(401);
  });

  it('keeps an archived service read-only for every role', async () => {
    const d = await seedDataset(t.db, tenant.id, tenant.slug);
    await t.db.update(services).set({ archived: true }).where(eq(services.id, d.service.id));
    for (const rung of ['editor', 'admin', 'superAdmin'] as const) {
      const res = await call(t.app, 'PUT', `/api/categories/${d.category.id}`, { ...as(tokens[rung]), body: { name: 'Archived' } });
      expect(res.statusCode).toBe(409);
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, call, type TestApp } from '../app';
import { recordFigure } from '../security/figures';
import { buildIsolationWorld, fingerprinter, type IsolationWorld } from './world';
import { defaultTimeline } from '../../../common/quarters';

/** The quarters of a service's default timeline, which the writes below must fall in. */
const TIMELINE = defaultTimeline();

/**
 * Suite 2, mixed ids: one request naming a record of the tenant it works in and a record of
 * another tenant. None may be accepted, and none may write anything.
 */
let t: TestApp;
let w: IsolationWorld;

beforeAll(async () => {
  t = await buildTestApp();
  w = await buildIsolationWorld(t.app, t.db);
}, 120_000);
afterAll(() => t.close());

interface MixedCase {
  name: string;
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: (w: IsolationWorld) => string;
  body?: (w: IsolationWorld) => unknown;
  /** Who tries it (default: editor, admin and super admin of tenant A). */
  actors?: ('editor' | 'admin' | 'superAdmin')[];
}

const CASES: MixedCase[] = [
  {
    name: 'an aspect of tenant A in a category of tenant B',
    method: 'POST',
    url: () => '/api/aspects',
    body: ({ A, B }) => ({ serviceId: A.service.id, categoryId: B.category.id, title: 'Mixed', description: '', isPublic: true }),
  },
  {
    name: 'an aspect in a service of tenant B with a category of tenant A',
    method: 'POST',
    url: () => '/api/aspects',
    body: ({ A, B }) => ({ serviceId: B.service.id, categoryId: A.category.id, title: 'Mixed', description: '', isPublic: true }),
  },
  {
    name: "an aspect of tenant A moved into tenant B's category",
    method: 'PUT',
    url: ({ A }) => `/api/aspects/${A.aspect.id}`,
    body: ({ B }) => ({ title: 'Moved', description: '', isPublic: true, categoryId: B.category.id }),
  },
  {
    name: "a reorder of tenant A's category listing tenant B's aspects",
    method: 'PATCH',
    url: () => '/api/aspects/reorder',
    body: ({ A, B }) => ({ categoryId: A.category.id, aspectIds: [B.aspect.id, A.aspect.id, A.privateAspect.id] }),
  },
  {
    name: "a reorder of tenant B's category listing tenant A's aspects",
    method: 'PATCH',
    url: () => '/api/aspects/reorder',
    body: ({ A, B }) => ({ categoryId: B.category.id, aspectIds: [A.aspect.id, A.privateAspect.id] }),
  },
  {
    name: "an availability for tenant B's aspect",
    method: 'POST',
    url: () => '/api/availabilities',
    body: ({ B }) => ({ aspectId: B.aspect.id, timeBucket: TIMELINE[0], value: 'Mixed' }),
  },
  {
    name: "a category in tenant B's service",
    method: 'POST',
    url: () => '/api/categories',
    body: ({ B }) => ({ serviceId: B.service.id, name: 'Mixed', position: 0 }),
  },
  { name: "a snapshot of tenant B's service", method: 'POST', url: () => '/api/snapshots', body: ({ B }) => ({ serviceId: B.service.id, label: 'Mixed' }) },
  {
    name: "an assignment of tenant B's user to tenant A's service",
    method: 'POST',
    url: ({ A }) => `/api/services/${A.service.id}/users`,
    body: ({ B }) => ({ userId: B.user.id, role: 'editor' }),
  },
  {
    name: "a service role for tenant B's user, by email",
    method: 'POST',
    url: () => '/api/service-roles',
    body: ({ A, B }) => ({ serviceId: A.service.id, userEmail: B.user.email, role: 'admin' }),
  },
  {
    name: "a change of tenant B's assignee on tenant A's service",
    method: 'PUT',
    url: ({ A, B }) => `/api/services/${A.service.id}/users/${B.assignee.id}`,
    body: () => ({ role: 'admin' }),
  },
  {
    name: "a removal of tenant B's assignee from tenant A's service",
    method: 'DELETE',
    url: ({ A, B }) => `/api/services/${A.service.id}/users/${B.assignee.id}`,
  },
  {
    name: "a change of tenant B's service role assignment",
    method: 'PUT',
    url: ({ B }) => `/api/service-roles/${B.assignment.id}`,
    body: () => ({ role: 'admin' }),
  },
  {
    name: "a reorder of tenant A's actor roles listing tenant B's",
    method: 'PATCH',
    url: () => '/api/actor-roles/reorder',
    body: ({ A, B }) => ({ serviceId: A.service.id, roleIds: [B.actorRole.id, A.actorRole.id] }),
  },
  {
    name: "a reorder of tenant A's quick templates listing tenant B's",
    method: 'PATCH',
    url: () => '/api/quick-templates/reorder',
    body: ({ A, B }) => ({ serviceId: A.service.id, templateIds: [B.quickTemplate.id, A.quickTemplate.id] }),
  },
  {
    name: "a reorder of tenant B's quick templates listing tenant A's",
    method: 'PATCH',
    url: () => '/api/quick-templates/reorder',
    body: ({ A, B }) => ({ serviceId: B.service.id, templateIds: [A.quickTemplate.id] }),
  },
  {
    name: "a move of tenant A's service to a tenant the admin is not in",
    method: 'PATCH',
    url: ({ A }) => `/api/services/${A.service.id}/move-tenant`,
    body: ({ B }) => ({ targetTenantId: B.tenantId }),
    // A super admin belongs to every tenant, so for them this move is allowed.
    actors: ['editor', 'admin'],
  },
  {
    name: "a move of tenant B's service into tenant A",
    method: 'PATCH',
    url: ({ B }) => `/api/services/${B.service.id}/move-tenant`,
    body: ({ A }) => ({ targetTenantId: A.tenantId }),
  },
  {
    name: 'a move to a tenant that does not exist',
    method: 'PATCH',
    url: ({ A }) => `/api/services/${A.service.id}/move-tenant`,
    body: () => ({ targetTenantId: '00000000-0000-4000-8000-000000000099' }),
  },
];

/** Cases that only a super admin could try, as they name users and tenants across the platform. */
const PLATFORM_CASES: MixedCase[] = [
  {
    name: 'an impersonation of a user in a tenant they do not belong to',
    method: 'POST',
    url: () => '/api/impersonation/start',
    body: ({ A, B }) => ({ userId: B.user.id, tenantId: A.tenantId }),
  },
  {
    name: 'a membership in a tenant that does not exist',
    method: 'PATCH',
    url: ({ A }) => `/api/admin/users/${A.user.id}/tenants`,
    body: ({ A }) => ({ tenantIds: [A.tenantId, '00000000-0000-4000-8000-000000000099'] }),
  },
  {
    name: 'a user created in a tenant that does not exist',
    method: 'POST',
    url: () => '/api/admin/users',
    body: () => ({ email: 'mixed-tenant@example.com', name: 'Mixed', role: 'reader', tenantId: '00000000-0000-4000-8000-000000000099' }),
  },
];

describe('mixed ids', () => {
  it('accepts none of the requests that mix two tenants, and writes nothing', async () => {
    const fingerprint = await fingerprinter(t.db);
    const accepted: string[] = [];
    let attempts = 0;
    const runs: { c: MixedCase; actor: 'admin' | 'superAdmin' | 'editor' }[] = [
      ...CASES.flatMap((c) => (c.actors ?? (['editor', 'admin', 'superAdmin'] as const)).map((actor) => ({ c, actor }))),
      ...PLATFORM_CASES.map((c) => ({ c, actor: 'superAdmin' as const })),
    ];
    for (const { c, actor } of runs) {
      const before = await fingerprint();
      const res = await call(t.app, c.method, c.url(w), { token: w.actors[actor].token, tenant: w.tenantA.slug, body: c.body?.(w) });
      attempts += 1;
      const after = await fingerprint();
      const changed = Object.keys(after).filter((k) => after[k] !== before[k]);
      if (res.statusCode < 400 || res.statusCode >= 500 || changed.length) {
        accepted.push(`${actor}: ${c.name} -> ${res.statusCode}${changed.length ? `, changed ${changed.join(', ')}` : ''}`);
      }
    }
    const summary = `${accepted.length} accepted of ${attempts} mixed-tenant requests`;
    console.log(`[mixed ids] ${summary}`);
    recordFigure('mixed-ids', summary, { attempts, accepted });
    expect(accepted).toEqual([]);
  }, 120_000);
});

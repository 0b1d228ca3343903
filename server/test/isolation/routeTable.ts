import type { Capability } from '../../policies';
import type { Dataset } from './world';
import { defaultTimeline } from '../../../common/quarters';

/** The quarters of a service's default timeline, which the writes below must fall in. */
const TIMELINE = defaultTimeline();

/**
 * What each route requires: a capability of server/policies/permissions.ts, or
 * 'public' (no session), 'member' (any signed-in member of the tenant), 'self' (any signed-in
 * caller, about their own session; no tenant).
 */
export type RouteRule = Capability | 'public' | 'member' | 'self';

/** The one table of what every route requires, keyed by method and url. */
export const ROUTE_RULES: Record<string, RouteRule> = {
  'GET /api/health': 'public',
  'GET /api/health/ready': 'public',
  'GET /api/openapi.json': 'public',
  'GET /api/docs': 'public',
  'GET /api/docs/': 'public',
  'GET /api/docs/js/scalar.js': 'public',
  'GET /api/docs/plain': 'public',
  'POST /api/auth/login': 'public',
  'GET /api/auth/me': 'member',
  'GET /api/events': 'member',
  'POST /api/auth/logout': 'self',
  'GET /api/auth/entra/signin': 'public',
  'GET /api/auth/entra/callback': 'public',
  'POST /api/auth/exchange': 'public',
  'GET /api/services': 'catalog.view',
  'GET /api/services/:id': 'catalog.view',
  'GET /api/services/:id/full': 'catalog.view',
  'POST /api/services': 'tenant.services',
  'PUT /api/services/:id': 'service.settings',
  'PATCH /api/services/:id/archive': 'service.admin',
  'PATCH /api/services/:id/unarchive': 'service.admin',
  'DELETE /api/services/:id': 'service.admin',
  'GET /api/categories/service/:id': 'catalog.view',
  'POST /api/categories': 'catalog.edit',
  'PUT /api/categories/:id': 'catalog.edit',
  'DELETE /api/categories/:id': 'catalog.edit',
  'GET /api/aspects/service/:id': 'catalog.view',
  'GET /api/aspects/:id': 'catalog.view',
  'POST /api/aspects': 'catalog.edit',
  'PUT /api/aspects/:id': 'catalog.edit',
  'DELETE /api/aspects/:id': 'catalog.edit',
  'PATCH /api/aspects/reorder': 'catalog.edit',
  'POST /api/availabilities': 'catalog.edit',
  'POST /api/availabilities/batch': 'catalog.edit',
  'GET /api/availabilities/aspect/:id': 'catalog.view',
  'GET /api/availabilities/aspect/:id/history': 'catalog.view',
  'GET /api/availabilities/service/:id/resolved': 'catalog.view',
  'GET /api/tenants': 'platform.manage',
  'POST /api/tenants': 'platform.manage',
  'PUT /api/tenants/:id': 'platform.manage',
  'PATCH /api/tenants/:id/archive': 'platform.manage',
  'PATCH /api/tenants/:id/unarchive': 'platform.manage',
  'DELETE /api/tenants/:id': 'platform.manage',
  'GET /api/admin/users': 'platform.manage',
  'GET /api/admin/panel-data': 'platform.manage',
  'GET /api/admin/tenants': 'platform.manage',
  'POST /api/admin/users': 'platform.manage',
  'PATCH /api/admin/users/:id': 'platform.manage',
  'DELETE /api/admin/users/:id': 'platform.manage',
  'PATCH /api/admin/users/:id/tenants': 'platform.manage',
  'GET /api/admin/audit': 'platform.manage',
  'GET /api/admin/audit/export': 'platform.manage',
  'GET /api/admin/audit/:id/cells': 'platform.manage',
  'GET /api/users': 'tenant.users',
  'POST /api/users': 'tenant.users',
  'PATCH /api/users/:id': 'tenant.users',
  'DELETE /api/users/:id': 'tenant.users',
  'GET /api/audit': 'tenant.users',
  'GET /api/audit/export': 'tenant.users',
  'GET /api/audit/actors': 'tenant.users',
  'GET /api/audit/:id/cells': 'tenant.users',
  'POST /api/impersonation/start': 'platform.manage',
  'GET /api/impersonation/active': 'self',
  'POST /api/impersonation/stop': 'self',
  'GET /api/actor-roles/service/:id': 'service.settings',
  'POST /api/actor-roles': 'service.settings',
  'PUT /api/actor-roles/:id': 'service.settings',
  'DELETE /api/actor-roles/:id': 'service.settings',
  'PATCH /api/actor-roles/reorder': 'service.settings',
  'GET /api/quick-templates/service/:id': 'service.settings',
  'POST /api/quick-templates': 'service.settings',
  'PUT /api/quick-templates/:id': 'service.settings',
  'DELETE /api/quick-templates/:id': 'service.settings',
  'PATCH /api/quick-templates/reorder': 'service.settings',
  'GET /api/services/:id/settings-data': 'service.settings',
  'GET /api/services/:id/users': 'service.admin',
  'POST /api/services/:id/users': 'service.admin',
  'PUT /api/services/:id/users/:userId': 'service.admin',
  'DELETE /api/services/:id/users/:userId': 'service.admin',
  'POST /api/services/:id/users/new': 'tenant.users',
  'GET /api/service-roles/service/:id': 'service.admin',
  'POST /api/service-roles': 'service.admin',
  'PUT /api/service-roles/:id': 'service.admin',
  'DELETE /api/service-roles/:id': 'service.admin',
  'GET /api/snapshots/service/:id': 'catalog.view',
  'GET /api/snapshots/:id': 'catalog.view',
  'POST /api/snapshots': 'service.settings',
  'GET /api/export/service/:id/csv': 'service.settings',
  'GET /api/services/:id/export': 'service.settings',
  'POST /api/services/import': 'tenant.services',
  'POST /api/services/import/preview': 'tenant.services',
  'POST /api/services/:id/csv-import': 'service.settings',
  'PATCH /api/services/:id/move-tenant': 'tenant.services',
  'DELETE /api/services/:id/hard-delete': 'services.hardDelete',
  'POST /api/invitations/:id/accept': 'self',
  'DELETE /api/invitations/:id': 'self',
  'PATCH /api/services/:id/publish': 'service.admin',
  'PATCH /api/services/:id/unpublish': 'service.admin',
  'GET /api/publishing/embed-origins': 'tenant.publishing',
  'PUT /api/publishing/embed-origins': 'tenant.publishing',
  'GET /api/snapshots/compare': 'catalog.view',
  // The public pages: the same answer whoever asks (the matrix's services are not published: 404).
  'GET /p': 'public',
  'GET /p/*': 'public',
  'GET /p/:tenant': 'public',
  'GET /p/:tenant/feed.atom': 'public',
  'GET /p/:tenant/:service': 'public',
  'GET /p/:tenant/:service/feed.atom': 'public',
  'GET /p/:tenant/:service/editions/:id': 'public',
  'POST /api/api-tokens': 'tenant.users',
  'GET /api/api-tokens': 'tenant.users',
  'DELETE /api/api-tokens/:id': 'tenant.users',
  'POST /api/api-tokens/:id/reissue': 'tenant.users',
  'GET /api/admin/api-tokens': 'platform.manage',
  'DELETE /api/admin/api-tokens/:id': 'platform.manage',
  'POST /api/webhooks': 'tenant.users',
  'GET /api/webhooks': 'tenant.users',
  'PUT /api/webhooks/:id': 'tenant.users',
  'DELETE /api/webhooks/:id': 'tenant.users',
  'GET /api/webhooks/:id/deliveries': 'tenant.users',
  'POST /api/webhooks/:id/deliveries/:deliveryId/retry': 'tenant.users',
  'POST /api/webhooks/:id/test': 'tenant.users',
};

/**
 * The routes that manage people or access (users, invitations, memberships, service role
 * assignments, embedding origins, API tokens, webhooks): a signed-in person's, answered 403 to an API
 * token of any role (server/policies: requirePerson).
 */
export const PEOPLE_ROUTES: ReadonlySet<string> = new Set([
  'GET /api/users',
  'POST /api/users',
  'PATCH /api/users/:id',
  'DELETE /api/users/:id',
  'POST /api/invitations/:id/accept',
  'DELETE /api/invitations/:id',
  'GET /api/services/:id/users',
  'POST /api/services/:id/users',
  'PUT /api/services/:id/users/:userId',
  'DELETE /api/services/:id/users/:userId',
  'POST /api/services/:id/users/new',
  'GET /api/service-roles/service/:id',
  'POST /api/service-roles',
  'PUT /api/service-roles/:id',
  'DELETE /api/service-roles/:id',
  'GET /api/publishing/embed-origins',
  'PUT /api/publishing/embed-origins',
  'POST /api/api-tokens',
  'GET /api/api-tokens',
  'DELETE /api/api-tokens/:id',
  'POST /api/api-tokens/:id/reissue',
  'POST /api/webhooks',
  'GET /api/webhooks',
  'PUT /api/webhooks/:id',
  'DELETE /api/webhooks/:id',
  'GET /api/webhooks/:id/deliveries',
  'POST /api/webhooks/:id/deliveries/:deliveryId/retry',
  'POST /api/webhooks/:id/test',
]);

/** Whether a route's url is one of people and access: every such route must be listed above. */
export const looksLikePeopleRoute = (url: string) =>
  /^\/api\/(users|invitations|service-roles|publishing|api-tokens|webhooks)(\/|$)|^\/api\/services\/:id\/users(\/|$)/.test(url);

/** Query strings of the routes that name their records there, filled from a dataset. */
export const QUERIES: Record<string, (d: Dataset) => Record<string, string>> = {
  'GET /api/snapshots/compare': (d) => ({ from: d.snapshot.id, to: 'current' }),
};

/** Path parameters -> the dataset entity they name, by url. The first matching rule wins. */
const PARAM_RULES: { test: RegExp; params: Record<string, (d: Dataset) => string> }[] = [
  { test: /^\/api\/services\/:id\/users\/:userId$/, params: { id: (d) => d.service.id, userId: (d) => d.assignee.id } },
  { test: /\/service\/:id(\/|$)/, params: { id: (d) => d.service.id } },
  { test: /^\/api\/services\/:id(\/|$)/, params: { id: (d) => d.service.id } },
  { test: /^\/api\/categories\/:id$/, params: { id: (d) => d.category.id } },
  { test: /^\/api\/aspects\/:id$/, params: { id: (d) => d.aspect.id } },
  { test: /^\/api\/availabilities\/aspect\/:id(\/|$)/, params: { id: (d) => d.aspect.id } },
  { test: /^\/api\/snapshots\/:id$/, params: { id: (d) => d.snapshot.id } },
  { test: /^\/api\/actor-roles\/:id$/, params: { id: (d) => d.actorRole.id } },
  { test: /^\/api\/quick-templates\/:id$/, params: { id: (d) => d.quickTemplate.id } },
  { test: /^\/api\/service-roles\/:id$/, params: { id: (d) => d.assignment.id } },
  { test: /^\/api\/(admin\/)?users\/:id(\/|$)/, params: { id: (d) => d.user.id } },
  { test: /^\/api\/tenants\/:id(\/|$)/, params: { id: (d) => d.tenant.id } },
  { test: /^\/api\/invitations\/:id(\/|$)/, params: { id: (d) => d.invitation.id } },
  { test: /^\/p\//, params: { tenant: (d) => d.tenantSlug, service: (d) => d.service.slug, id: (d) => d.snapshot.id } },
  { test: /^\/api\/(admin\/)?api-tokens\/:id(\/|$)/, params: { id: (d) => d.apiToken.id } },
  { test: /^\/api\/(admin\/)?audit\/:id\/cells$/, params: { id: (d) => d.auditEntry.id } },
  { test: /^\/api\/webhooks\/:id(\/|$)/, params: { id: (d) => d.webhook.id, deliveryId: (d) => d.delivery.id } },
];

/** The url with its parameters filled from a dataset, or null when the map cannot fill one. */
export function fillPath(url: string, d: Dataset): string | null {
  const names = [...url.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]);
  if (names.length === 0) return url;
  const rule = PARAM_RULES.find((r) => r.test.test(url));
  if (!rule || names.some((n) => !rule.params[n])) return null;
  return url.replace(/:([A-Za-z]+)/g, (_m, n: string) => rule.params[n](d));
}

export interface ExampleContext {
  /** The other tenant, seen from the tenant the call works in. */
  otherTenantId: string;
  unique: string;
  /** A valid .catalog file. */
  catalogFile: Buffer;
}

export interface Example {
  body?: unknown;
  /** A body that is not JSON (the import's multipart form). */
  raw?: { payload: Buffer; contentType: string };
}

const json = (body: unknown): Example => ({ body });

function multipart(file: Buffer, filename = 'import.catalog'): Example {
  const boundary = 'isolation-boundary';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/gzip\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { raw: { payload: Buffer.concat([head, file, tail]), contentType: `multipart/form-data; boundary=${boundary}` } };
}

/** A valid body for every route that takes one, with the target tenant's ids filled in. */
export const EXAMPLES: Record<string, (d: Dataset, c: ExampleContext) => Example> = {
  'POST /api/auth/login': () => json({ email: 'nobody@example.com', password: 'not-the-password' }),
  'POST /api/auth/logout': () => json({}),
  'POST /api/auth/exchange': () => json({ code: 'not-a-code' }),
  'POST /api/services': (_d, c) => json({ name: `Probe ${c.unique}`, slug: `probe-${c.unique}` }),
  'PUT /api/services/:id': () => json({ name: 'Renamed service' }),
  'PATCH /api/services/:id/archive': () => json({}),
  'PATCH /api/services/:id/unarchive': () => json({}),
  'POST /api/categories': (d) => json({ serviceId: d.service.id, name: 'Probe category', position: 5 }),
  'PUT /api/categories/:id': () => json({ name: 'Renamed category' }),
  'POST /api/aspects': (d) => json({ serviceId: d.service.id, categoryId: d.category.id, title: 'Probe aspect', description: '', isPublic: true }),
  'PUT /api/aspects/:id': () => json({ title: 'Renamed aspect', description: '', isPublic: true }),
  'PATCH /api/aspects/reorder': (d) => json({ categoryId: d.category.id, aspectIds: [d.privateAspect.id, d.aspect.id] }),
  'POST /api/availabilities': (d) => json({ aspectId: d.aspect.id, timeBucket: TIMELINE[0], value: 'Probe' }),
  'POST /api/availabilities/batch': (d) => json({ serviceId: d.service.id, cells: [{ aspectId: d.aspect.id, timeBucket: TIMELINE[1], value: 'Probe' }] }),
  'POST /api/tenants': (_d, c) => json({ name: `Probe ${c.unique}`, slug: `probe-${c.unique}` }),
  'PUT /api/tenants/:id': (_d, c) => json({ name: `Renamed ${c.unique}` }),
  'PATCH /api/tenants/:id/archive': () => json({}),
  'PATCH /api/tenants/:id/unarchive': () => json({}),
  'POST /api/admin/users': (d, c) =>
    json({ email: `probe-${c.unique}@example.com`, name: 'Probe', role: 'reader', tenantId: d.tenantId, password: 'probe-password' }),
  'PATCH /api/admin/users/:id': () => json({ role: 'editor' }),
  'PATCH /api/admin/users/:id/tenants': (d) => json({ tenantIds: [d.tenantId] }),
  'PATCH /api/users/:id': () => json({ role: 'editor' }),
  'POST /api/users': (_d, c) => json({ email: `probe-${c.unique}@example.com`, name: 'Probe', role: 'reader', password: 'probe-password' }),
  'POST /api/impersonation/start': (d) => json({ userId: d.user.id, tenantId: d.tenantId }),
  'POST /api/impersonation/stop': () => json({}),
  'POST /api/actor-roles': (d) => json({ serviceId: d.service.id, roleName: 'Probe role' }),
  'PUT /api/actor-roles/:id': () => json({ roleName: 'Renamed role' }),
  'PATCH /api/actor-roles/reorder': (d) => json({ serviceId: d.service.id, roleIds: [d.actorRole.id] }),
  'POST /api/quick-templates': (d) => json({ serviceId: d.service.id, templateText: 'Probe template' }),
  'PUT /api/quick-templates/:id': () => json({ templateText: 'Renamed template' }),
  'PATCH /api/quick-templates/reorder': (d) => json({ serviceId: d.service.id, templateIds: [d.quickTemplate.id] }),
  'POST /api/services/:id/users': (d) => json({ userId: d.user.id, role: 'editor' }),
  'PUT /api/services/:id/users/:userId': () => json({ role: 'admin' }),
  'POST /api/services/:id/users/new': (_d, c) => json({ email: `probe-${c.unique}@example.com`, name: 'Probe', role: 'reader' }),
  'POST /api/service-roles': (d) => json({ serviceId: d.service.id, userEmail: d.user.email, role: 'editor' }),
  'PUT /api/service-roles/:id': () => json({ role: 'admin' }),
  'POST /api/snapshots': (d) => json({ serviceId: d.service.id, label: 'Probe snapshot', visibility: 'internal', note: '' }),
  'POST /api/services/import': (_d, c) => multipart(c.catalogFile),
  'POST /api/services/import/preview': (_d, c) => multipart(c.catalogFile),
  // The export's heading alone: a preview of nothing.
  'POST /api/services/:id/csv-import': () => multipart(Buffer.from('Category,Aspect,Description,Public\r\n'), 'roadmap.csv'),
  'PATCH /api/services/:id/move-tenant': (_d, c) => json({ targetTenantId: c.otherTenantId }),
  'POST /api/invitations/:id/accept': () => json({}),
  'PATCH /api/services/:id/publish': () => json({}),
  'PATCH /api/services/:id/unpublish': () => json({}),
  'PUT /api/publishing/embed-origins': () => json({ origins: ['https://intranet.example.org'] }),
  'POST /api/api-tokens': (_d, c) => json({ name: `Probe ${c.unique}`, role: 'reader' }),
  'POST /api/api-tokens/:id/reissue': () => json({}),
  'POST /api/webhooks': () => json({ url: 'https://hooks.example.com/probe', events: ['service.updated'] }),
  'PUT /api/webhooks/:id': () => json({ events: ['service.created'] }),
  'POST /api/webhooks/:id/deliveries/:deliveryId/retry': () => json({}),
  'POST /api/webhooks/:id/test': () => json({}),
};

/** Routes that may legitimately write on a refused call: failed sign-ins are audited. */
export const AUDITED_REFUSALS = new Set(['POST /api/auth/login', 'GET /api/auth/entra/callback', 'POST /api/auth/exchange']);

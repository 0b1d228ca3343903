import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTestApp, call, type TestApp } from './test/app';
import { checkDocumentedAnswer, checkDocumentedCapability, isReferencePage } from './openapi';
import { collectChecks } from './policies/checks';
import { requirePlatform, requireTenant } from './policies';
import { WEBHOOK_EVENTS } from '../common/schemas/integrations';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const key = (method: string, url: string) => `${method} ${url}`;
const apiRoutes = () => t.app.registeredRoutes.filter((r) => r.url.startsWith('/api/') && r.url !== '/api/openapi.json' && !isReferencePage(r.url));

describe('the OpenAPI document', () => {
  it('is served without a token as OpenAPI 3.1 and names every registered route', async () => {
    const res = await call(t.app, 'GET', '/api/openapi.json');
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    const missing = apiRoutes().filter((r) => !doc.paths[r.url.replace(/:([A-Za-z]+)/g, '{$1}')]?.[r.method.toLowerCase()]);
    expect(missing.map((r) => key(r.method, r.url))).toEqual([]);
    expect(doc.components.schemas.WebhookEvent.enum).toEqual([...WEBHOOK_EVENTS]);
  });

  it('documents every route next to its code: a route added without config.doc fails here', () => {
    const undocumented = apiRoutes()
      .filter((r) => !r.config.doc)
      .map((r) => key(r.method, r.url));
    expect(undocumented, 'routes without config.doc (server/openapi.ts)').toEqual([]);
    for (const r of apiRoutes().filter((x) => x.config.doc)) {
      expect(r.config.doc!.summary.length, key(r.method, r.url)).toBeGreaterThan(0);
      expect(r.config.doc!.capability.length, key(r.method, r.url)).toBeGreaterThan(0);
      expect(Object.keys(r.config.doc!.responses).length, key(r.method, r.url)).toBeGreaterThan(0);
    }
  });

  it('takes request shapes from the schemas the routes validate with', async () => {
    const doc = (await call(t.app, 'GET', '/api/openapi.json')).json();
    const create = doc.paths['/api/api-tokens'].post;
    expect(Object.keys(create.requestBody.content['application/json'].schema.properties)).toEqual(['name', 'role', 'serviceIds', 'expiresAt']);
    expect(create['x-capability']).toMatch(/tenant\.users/);
    expect(create.responses['201'].content['application/json'].schema.properties.secret).toBeDefined();
    expect(create.responses['400'].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
    expect(doc.paths['/api/webhooks/{id}/deliveries/{deliveryId}/retry'].post.parameters.map((p: { name: string }) => p.name)).toEqual([
      'id',
      'deliveryId',
      'X-Tenant-Slug',
    ]);
  });

  it('catches an answer unlike its documented schema (the check every API test runs through call())', () => {
    const doc = { summary: 's', capability: 'c', responses: { 200: z.object({ id: z.uuid() }) } };
    const json = 'application/json; charset=utf-8';
    expect(checkDocumentedAnswer(doc, 200, { body: JSON.stringify({ id: 'not-a-uuid' }), contentType: json })).toMatch(/id/);
    expect(checkDocumentedAnswer(doc, 200, { body: JSON.stringify({ id: '00000000-0000-4000-8000-000000000000' }), contentType: json })).toBeNull();
    expect(checkDocumentedAnswer(doc, 200, { body: 'id\n1', contentType: 'text/csv' })).toMatch(/text\/csv/);
    expect(checkDocumentedAnswer(doc, 201, { body: '{}', contentType: json })).toMatch(/status 201/);
  });

  it('catches a success decided on another capability than the one documented (the check every API test runs through call())', () => {
    const doc = (capability: string) => ({ summary: 's', capability, responses: { 200: null } });
    const admin = { userId: 'u', role: 'admin' as const, superAdmin: false };
    const seen = new Set<string>();
    collectChecks(seen, () => requireTenant(admin, 'tenant.users'));
    expect([...seen]).toEqual(['tenant.users']);
    expect(checkDocumentedCapability(doc('tenant.users (a person, never an API token)'), 200, seen)).toBeNull();
    expect(checkDocumentedCapability(doc('tenant.services'), 201, seen)).toMatch(/documents tenant\.services, but the access layer checked tenant\.users/);
    expect(checkDocumentedCapability(doc('platform.manage'), 204, new Set())).toMatch(/checked no capability/);
    // A refusal is checked too, so a route that refuses on another capability is caught by its success case.
    const refused = new Set<string>();
    expect(() => collectChecks(refused, () => requirePlatform(admin))).toThrow();
    expect([...refused]).toEqual(['platform.manage']);
    // Only successes are checked, and only a leading token naming a capability.
    expect(checkDocumentedCapability(doc('tenant.services'), 403, seen)).toBeNull();
    for (const free of ['public', 'member', 'a signed-in person']) expect(checkDocumentedCapability(doc(free), 200, new Set())).toBeNull();
  });

  it('catches an error the route does not document, or one unlike the error shape', () => {
    const doc = { summary: 's', capability: 'c', responses: { 204: null }, errors: { 409: 'A conflict' } };
    const error = (status: number, body: unknown, isPublic = false) =>
      checkDocumentedAnswer(doc, status, { body: JSON.stringify(body), public: isPublic, method: 'GET' });
    expect(error(404, { error: 'Not found', code: 'not_found' })).toBeNull();
    expect(error(409, { error: 'Taken', code: 'conflict' })).toBeNull();
    expect(error(404, {})).toMatch(/error/);
    expect(error(413, { error: 'Too large', code: 'too_large' })).toMatch(/status 413/);
    expect(checkDocumentedAnswer(doc, 413, { body: JSON.stringify({ error: 'Too large', code: 'too_large' }), method: 'POST' })).toBeNull();
    expect(error(401, { error: 'Sign in', code: 'unauthenticated' }, true)).toMatch(/status 401/);
    expect(error(500, { oops: true })).toBeNull();
  });

  it('documents files, streams and redirects by media type, and an error with fields of its own by its schema', async () => {
    const csv = { summary: 's', capability: 'c', responses: { 200: { description: 'A CSV file', content: { 'text/csv': null } } } };
    expect(checkDocumentedAnswer(csv, 200, { body: 'a,b', contentType: 'text/csv; charset=utf-8' })).toBeNull();
    expect(checkDocumentedAnswer(csv, 200, { body: '{}', contentType: 'application/json' })).toMatch(/text\/csv/);
    const conflict = {
      summary: 's',
      capability: 'c',
      responses: { 204: null },
      errors: { 409: { description: 'Changed', schema: z.object({ error: z.string(), current: z.string() }) } },
    };
    expect(checkDocumentedAnswer(conflict, 409, { body: JSON.stringify({ error: 'Changed', code: 'conflict' }) })).toMatch(/current/);
    const doc = (await call(t.app, 'GET', '/api/openapi.json')).json();
    const download = doc.paths['/api/export/service/{id}/csv'].get.responses['200'];
    expect(Object.keys(download.content)).toEqual(['text/csv']);
    expect(download.headers['Content-Disposition']).toBeDefined();
    expect(Object.keys(doc.paths['/api/events'].get.responses['200'].content)).toEqual(['application/json', 'text/event-stream']);
    expect(doc.paths['/api/auth/entra/signin'].get.responses['302'].headers.Location).toBeDefined();
    expect(doc.paths['/api/services/import'].post.requestBody.content['multipart/form-data'].schema.properties.file).toBeDefined();
    const edit = doc.paths['/api/aspects/{id}'].put.responses['409'].content['application/json'].schema;
    expect(edit.properties.current).toBeDefined();
  });

  it('has a reference page at /api/docs/plain that loads no script', async () => {
    const res = await call(t.app, 'GET', '/api/docs/plain');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toContain('POST /api/webhooks');
    expect(res.body).not.toContain('<script');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTestApp, call, type TestApp } from './test/app';
import { checkDocumentedAnswer, isReferencePage } from './openapi';
import { NOT_YET_DOCUMENTED } from './openapiPending';
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

  it('documents every route next to its code, except the ones still listed as not yet documented (a list that only shrinks)', () => {
    const undocumented = apiRoutes()
      .filter((r) => !r.config.doc)
      .map((r) => key(r.method, r.url));
    const unexpected = undocumented.filter((k) => !NOT_YET_DOCUMENTED.includes(k));
    expect(unexpected, 'routes without config.doc (server/openapi.ts)').toEqual([]);
    const stale = NOT_YET_DOCUMENTED.filter((k) => !undocumented.includes(k));
    expect(stale, 'documented now or gone: remove from server/openapiPending.ts').toEqual([]);
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
    expect(checkDocumentedAnswer(doc, 200, JSON.stringify({ id: 'not-a-uuid' }))).toMatch(/id/);
    expect(checkDocumentedAnswer(doc, 200, JSON.stringify({ id: '00000000-0000-4000-8000-000000000000' }))).toBeNull();
    expect(checkDocumentedAnswer(doc, 404, '{}')).toBeNull();
  });

  it('has a reference page at /api/docs/plain that loads no script', async () => {
    const res = await call(t.app, 'GET', '/api/docs/plain');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toContain('POST /api/webhooks');
    expect(res.body).not.toContain('<script');
  });
});

import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { RegisteredRoute } from './app';
import { API_REFERENCE_PATH, PLAIN_REFERENCE_PATH, apiReferenceRoutes } from './apiReference';

/**
 * The OpenAPI 3.1 document (docs/decisions/0133-openapi.md), built from the routes the app
 * registered and the zod schemas they validate with: a route documents itself next to its code
 * with `config: { doc: {...} }`; the route still validates with `parse` (server/validation.ts), so
 * documenting changes no answer.
 */
export interface RouteDoc {
  summary: string;
  /** Who may call it: a capability of server/policies/permissions.ts, or 'public' / 'member'. */
  capability: string;
  tags?: string[];
  body?: z.ZodType;
  query?: z.ZodType;
  /** Answers by status code; 204 needs no schema. */
  responses: Record<number, z.ZodType | null>;
  description?: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's OpenAPI description (server/openapi.ts). */
    doc?: RouteDoc;
  }
}

const errorSchema = {
  type: 'object',
  required: ['error', 'code'],
  properties: { error: { type: 'string', description: 'A message for people' }, code: { type: 'string' }, field: { type: 'string' } },
};

const ERRORS: Record<string, string> = {
  '400': 'Invalid input: `error` says what, `field` names the field',
  '401': 'No token, or an expired or revoked one',
  '403': 'The caller may not do this',
  '404': 'Not found (also a record of another tenant)',
  '429': 'Rate limited; retry after the Retry-After header',
};

const jsonSchema = (schema: z.ZodType) => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  return rest;
};
const outputSchema = (schema: z.ZodType) => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  return rest;
};

/** Fastify's `/a/:id` as OpenAPI's `/a/{id}`, with its parameters. */
function pathOf(url: string): { path: string; params: string[] } {
  const params: string[] = [];
  const path = url.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path, params };
}

export function buildOpenApiDocument(routes: readonly RegisteredRoute[], extra: { events: readonly string[] }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    if (!route.url.startsWith('/api/') || route.url === '/api/openapi.json' || isReferencePage(route.url)) continue;
    const doc = route.config.doc;
    const { path, params } = pathOf(route.url);
    const method = route.method.toLowerCase();
    const responses: Record<string, unknown> = {};
    for (const [status, schema] of Object.entries(doc?.responses ?? ({ 200: null } as Record<number, z.ZodType | null>))) {
      responses[status] = schema ? { description: 'Success', content: { 'application/json': { schema: outputSchema(schema) } } } : { description: 'Success' };
    }
    for (const [status, description] of Object.entries(ERRORS)) {
      if (route.config.public && (status === '401' || status === '403')) continue;
      responses[status] = { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    }
    const parameters: unknown[] = params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
    if (!route.config.public && route.config.tenant !== false) {
      parameters.push({
        name: 'X-Tenant-Slug',
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description: "The tenant worked in (default: the caller's own)",
      });
    }
    if (doc?.query) {
      const q = jsonSchema(doc.query) as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, schema] of Object.entries(q.properties ?? {}))
        parameters.push({ name, in: 'query', required: q.required?.includes(name) ?? false, schema });
    }
    const capability = doc?.capability ?? (route.config.public ? 'public' : 'see the route');
    paths[path] ??= {};
    paths[path][method] = {
      summary: doc?.summary ?? `${route.method} ${path}`,
      ...(doc?.description ? { description: doc.description } : {}),
      tags: doc?.tags ?? [route.url.split('/')[2] ?? 'api'],
      'x-capability': capability,
      'x-documented': Boolean(doc),
      ...(route.config.public ? { security: [] } : {}),
      parameters,
      ...(doc?.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(doc.body) } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Service Catalog API',
      version: '1',
      description: 'Every call takes a bearer token (a session token or an API token) and the X-Tenant-Slug header. See docs/api.md.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A session token from POST /api/auth/login, or an API token (scat_...)' } },
      schemas: {
        Error: errorSchema,
        WebhookEvent: { type: 'string', enum: [...extra.events] },
      },
    },
    paths,
  };
}

/** Checks an answer against its route's documented schema; answers the problem, or null. */
export function checkDocumentedAnswer(doc: RouteDoc | undefined, status: number, body: string): string | null {
  const schema = doc?.responses[status];
  if (!schema) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'the answer is not JSON';
  }
  const result = schema.safeParse(parsed);
  return result.success ? null : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
}

/** The reference pages and the files they load are no API operations. */
export const isReferencePage = (url: string) => url === API_REFERENCE_PATH || url.startsWith(`${API_REFERENCE_PATH}/`);

/** A reference page with no script: every operation, who may call it, and its shapes (the JSON is at /api/openapi.json). */
function referencePage(document: ReturnType<typeof buildOpenApiDocument>): string {
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
  const ops: string[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, raw] of Object.entries(methods)) {
      const op = raw as { summary: string; 'x-capability': string; requestBody?: unknown; responses: Record<string, unknown> };
      ops.push(
        `<section><h2><code>${method.toUpperCase()} ${esc(path)}</code></h2><p>${esc(op.summary)}</p><p>Needs: <code>${esc(op['x-capability'])}</code></p>` +
          (op.requestBody ? `<details><summary>Request body</summary><pre>${esc(JSON.stringify(op.requestBody, null, 2))}</pre></details>` : '') +
          `<details><summary>Responses</summary><pre>${esc(JSON.stringify(op.responses, null, 2))}</pre></details></section>`,
      );
    }
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Service Catalog API reference</title>
<style>body{font-family:system-ui,sans-serif;max-width:960px;margin:0 auto;padding:1rem;line-height:1.5}pre{overflow:auto;background:#f4f4f5;padding:.5rem}code{overflow-wrap:anywhere}</style></head>
<body><main><h1>Service Catalog API reference</h1><p>The machine-readable document: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1).</p>${ops.join('')}</main></body></html>`;
}

export async function openApiRoutes(app: FastifyInstance, events: readonly string[]) {
  let document: ReturnType<typeof buildOpenApiDocument> | undefined;
  const get = () => (document ??= buildOpenApiDocument(app.registeredRoutes, { events }));
  app.get('/api/openapi.json', { config: { public: true } }, async () => get());
  app.get(PLAIN_REFERENCE_PATH, { config: { public: true } }, async (_req, reply) => reply.type('text/html; charset=utf-8').send(referencePage(get())));
  await apiReferenceRoutes(app);
}

import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { documentedCapability, type RegisteredRoute, type RouteAnswer, type RouteDoc } from './routeDoc';
import { API_REFERENCE_PATH, PLAIN_REFERENCE_PATH, apiReferenceRoutes } from './apiReference';
import { apiErrorSchema } from '../common/schemas/api';

/**
 * The OpenAPI 3.1 document (docs/decisions/0133-openapi.md), built from the routes the app
 * registered and the zod schemas they validate with (server/routeDoc.ts).
 */

/** The errors any route may answer; a public route takes no token, so it answers no 401 or 403 of its own. */
const ERRORS: Record<number, string> = {
  400: 'Invalid input: `error` says what, `field` names the field',
  401: 'No token, or an expired or revoked one',
  403: 'The caller may not do this',
  404: 'Not found (also a record of another tenant)',
  429: 'Rate limited; retry after the Retry-After header',
  503: 'The database is not answering; retry after the Retry-After header',
};

/** The errors of a request with a body (any method but GET and HEAD), answered before the route runs. */
const BODY_ERRORS: Record<number, string> = {
  413: 'The request body is too large',
  415: 'Unsupported content type',
};

/** The errors a route documents: the common ones and its own, each with the schema of its body (null: the common Error). */
function errorsOf(doc: RouteDoc, route: { method?: string; public?: boolean }): Map<number, { description: string; schema: z.ZodType | null }> {
  const errors = new Map<number, { description: string; schema: z.ZodType | null }>();
  for (const [status, description] of Object.entries(ERRORS)) {
    if (route.public && (status === '401' || status === '403')) continue;
    errors.set(Number(status), { description, schema: null });
  }
  if (route.method !== 'GET' && route.method !== 'HEAD')
    for (const [status, description] of Object.entries(BODY_ERRORS)) errors.set(Number(status), { description, schema: null });
  for (const [status, error] of Object.entries(doc.errors ?? {})) {
    errors.set(Number(status), typeof error === 'string' ? { description: error, schema: null } : error);
  }
  return new Map([...errors].sort(([a], [b]) => a - b));
}

const isZod = (answer: RouteAnswer): answer is z.ZodType => answer instanceof z.ZodType;

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

const SUCCESS: Record<string, string> = { 200: 'Success', 201: 'Created', 204: 'Done; no body', 302: 'Redirect', 304: 'Not modified since the ETag given' };

function responseOf(status: string, answer: RouteAnswer) {
  const description = SUCCESS[status] ?? 'Success';
  if (answer === null) return { description };
  if (isZod(answer)) return { description, content: { 'application/json': { schema: outputSchema(answer) } } };
  return {
    description: answer.description,
    ...(answer.content
      ? { content: Object.fromEntries(Object.entries(answer.content).map(([type, schema]) => [type, schema ? { schema: outputSchema(schema) } : {}])) }
      : {}),
    ...(answer.headers
      ? { headers: Object.fromEntries(Object.entries(answer.headers).map(([name, about]) => [name, { description: about, schema: { type: 'string' } }])) }
      : {}),
  };
}

export function buildOpenApiDocument(routes: readonly RegisteredRoute[], extra: { events: readonly string[] }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    if (!route.url.startsWith('/api/') || route.url === '/api/openapi.json' || isReferencePage(route.url)) continue;
    const doc = route.config.doc;
    const { path, params } = pathOf(route.url);
    const method = route.method.toLowerCase();
    const responses: Record<string, unknown> = {};
    for (const [status, answer] of Object.entries(doc?.responses ?? ({ 200: null } as Record<number, RouteAnswer>)))
      responses[status] = responseOf(status, answer);
    for (const [status, error] of errorsOf(doc ?? { summary: '', capability: '', responses: {} }, { method: route.method, public: route.config.public })) {
      const schema = error.schema ? outputSchema(error.schema) : { $ref: '#/components/schemas/Error' };
      responses[status] = { description: error.description, content: { 'application/json': { schema } } };
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
      const q = jsonSchema(doc.query) as { properties?: Record<string, { description?: string }>; required?: string[] };
      for (const [name, schema] of Object.entries(q.properties ?? {}))
        parameters.push({
          name,
          in: 'query',
          required: q.required?.includes(name) ?? false,
          ...(schema.description ? { description: schema.description } : {}),
          schema,
        });
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
      ...(doc?.body ? { requestBody: { required: true, content: { [doc.bodyType ?? 'application/json']: { schema: jsonSchema(doc.body) } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Service Catalog API',
      version: '1',
      description:
        "Every call takes a bearer token (a session token or an API token); the X-Tenant-Slug header is optional (default: the caller's own tenant). Requests are camelCase, answers the specification's snake_case names. See docs/api.md.",
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A session token from POST /api/auth/login, or an API token (scat_...)' } },
      schemas: {
        Error: outputSchema(apiErrorSchema),
        WebhookEvent: { type: 'string', enum: [...extra.events] },
      },
    },
    paths,
  };
}

/** The problems of a body against its schema, or null; a body that is not JSON is one. */
function checkBody(schema: z.ZodType, body: string): string | null {
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

export interface AnswerSeen {
  /** The body as text, when it is text (a file or a compressed body is not read). */
  body?: string;
  /** The Content-Type header sent. */
  contentType?: string;
  /** The route takes no token (config.public). */
  public?: boolean;
  /** The request's method: any but GET and HEAD may carry a body, and so answer 413 and 415. */
  method?: string;
}

/**
 * Checks an answer against its route's documentation: its status must be documented (a success in
 * `responses`, an error in the common errors or the route's own), its media type too, and its body
 * must match the schema documented for it. Answers the problem, or null; 5xx answers are not checked.
 */
export function checkDocumentedAnswer(doc: RouteDoc | undefined, status: number, seen: AnswerSeen): string | null {
  if (!doc || status >= 500) return null;
  const media = seen.contentType?.split(';')[0]!.trim().toLowerCase();
  if (status >= 400) {
    const error = errorsOf(doc, seen).get(status);
    if (!error) return `status ${status} is not among the route's documented errors`;
    return seen.body === undefined ? null : checkBody(error.schema ?? apiErrorSchema, seen.body);
  }
  if (!(status in doc.responses)) return `status ${status} is not among the route's documented answers`;
  const answer = doc.responses[status]!;
  if (answer === null) return null;
  let schema: z.ZodType | null;
  if (isZod(answer)) {
    if (media && media !== 'application/json') return `the answer is ${media}, documented as application/json`;
    schema = answer;
  } else {
    if (!answer.content) return null;
    if (!media || !(media in answer.content)) return `the answer is ${media ?? 'of no media type'}, documented as ${Object.keys(answer.content).join(' or ')}`;
    schema = answer.content[media]!;
  }
  return schema && seen.body !== undefined ? checkBody(schema, seen.body) : null;
}

/**
 * Checks that a route's success was decided on the capability it documents: the documented
 * capability (its leading token, see documentedCapability) must be among those the access layer
 * checked while the request ran. Answers the problem, or null; a route documenting 'public',
 * 'member' or no capability, and an answer other than 2xx, are not checked.
 */
export function checkDocumentedCapability(doc: RouteDoc | undefined, status: number, checked: ReadonlySet<string>): string | null {
  const capability = documentedCapability(doc);
  if (!capability || status < 200 || status >= 300) return null;
  if (checked.has(capability)) return null;
  const seen = [...checked].sort().join(', ');
  return `it documents ${capability}, but the access layer checked ${seen ? seen : 'no capability'}`;
}

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

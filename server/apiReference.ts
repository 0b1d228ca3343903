import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import scalarApiReference, { type ApiReferenceConfiguration } from '@scalar/fastify-api-reference';

/** The interactive API reference (docs/decisions/0133-openapi.md). */
export const API_REFERENCE_PATH = '/api/docs';
/** The same reference rendered on the server, with no script. */
export const PLAIN_REFERENCE_PATH = '/api/docs/plain';
const DOCUMENT_PATH = '/api/openapi.json';

const PLUGIN_DIST = createRequire(import.meta.url).resolve('@scalar/fastify-api-reference');
const VERSION = (JSON.parse(readFileSync(join(dirname(PLUGIN_DIST), '..', 'package.json'), 'utf8')) as { version: string }).version;
/** The plugin serves the Scalar bundle here; the version in the address lets browsers keep it. */
const SCRIPT_PATH = `${API_REFERENCE_PATH}/js/scalar.js`;
const SCRIPT_URL = `${SCRIPT_PATH}?v=${VERSION}`;

/**
 * Scalar's settings: nothing leaves this origin. No fonts from Scalar's servers, no telemetry, no
 * AI agent or MCP panel, no request proxy (a request tried from the page goes straight to this
 * server), and a token typed into the page is not kept in the browser's storage.
 */
const CONFIGURATION = {
  url: DOCUMENT_PATH,
  withDefaultFonts: false,
  telemetry: false,
  persistAuth: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  documentDownloadType: 'json',
  // Text colours at 4.5:1 or more against their backgrounds (WCAG AA): the faintest text (the
  // search box's placeholder, the other client libraries' tabs) and, on the light theme, the HTTP
  // methods' colours, which Scalar's defaults give 1.7:1 to 4.2:1.
  customCss:
    '.light-mode{--scalar-color-3:#696969;--scalar-color-green:#00734a;--scalar-color-blue:#005fa3;--scalar-color-orange:#b84000;' +
    '--scalar-color-yellow:#7a6000;--scalar-color-red:#c8000a;--scalar-color-purple:#5203d1;--scalar-color-query:#00666a}' +
    '.dark-mode{--scalar-color-3:#9a9a9a}',
} satisfies Partial<ApiReferenceConfiguration>;

const escapeAttribute = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/**
 * The page: Scalar reads its settings from a JSON data block (no inline script, so the policy
 * needs no hash or nonce), and without script the reader is sent to the plain reference.
 */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Service Catalog API reference</title>
<link rel="icon" type="image/svg+xml" href="/favicon.svg">
</head>
<body>
<noscript><p>This reference needs JavaScript. Read <a href="${PLAIN_REFERENCE_PATH}">the reference without script</a>, or the OpenAPI document itself: <a href="${DOCUMENT_PATH}">${DOCUMENT_PATH}</a>.</p></noscript>
<script id="api-reference" type="application/json" data-configuration="${escapeAttribute(JSON.stringify(CONFIGURATION))}"></script>
<script src="${SCRIPT_URL}"></script>
</body>
</html>
`;

/**
 * Put before Scalar's bundle: the schema library inside it (zod) tries whether it may compile code
 * with `Function`, a violation of a policy without 'unsafe-eval' (ours) that the browser reports;
 * told to work without compiling, it never tries.
 */
const BEFORE_BUNDLE = 'globalThis.__zod_globalConfig = Object.assign(globalThis.__zod_globalConfig ?? {}, { jitless: true });\n';

/** The bundle as sent, compressed once (in the thread pool) on its first request. */
let script: Promise<{ plain: string; gzipped: Buffer }> | undefined;
const prepare = async (bundle: string) => {
  const plain = BEFORE_BUNDLE + bundle;
  return { plain, gzipped: await promisify(gzip)(plain) };
};

/**
 * Registers the interactive reference with `@scalar/fastify-api-reference`, which serves Scalar's
 * bundle from this server (`/api/docs/js/scalar.js`) and sends `/api/docs` to `/api/docs/`. Its own
 * page (an inline script, which the Content-Security-Policy refuses, and no language) is replaced
 * by PAGE, so the reference runs under the same strict policy as every other answer
 * (server/plugins/security.ts). The routes are public; the bundle is sent compressed and kept by
 * browsers for its version.
 */
export async function apiReferenceRoutes(app: FastifyInstance): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      Object.assign((route.config ??= {}), { public: true });
      if (route.url === `${API_REFERENCE_PATH}/`) {
        route.handler = async (_req: FastifyRequest, reply: FastifyReply) => reply.type('text/html; charset=utf-8').send(PAGE);
      }
    });
    scope.addHook('onSend', async (req, reply, payload) => {
      if (req.routeOptions.url !== SCRIPT_PATH || typeof payload !== 'string') return payload;
      const { plain, gzipped } = await (script ??= prepare(payload));
      if ((req.query as { v?: string }).v === VERSION) reply.header('cache-control', 'public, max-age=31536000, immutable');
      reply.header('vary', 'accept-encoding');
      if (!/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return plain;
      reply.header('content-encoding', 'gzip');
      return gzipped;
    });
    await scope.register(scalarApiReference, { routePrefix: API_REFERENCE_PATH, configuration: CONFIGURATION, logLevel: 'warn' });
  });
}

import Fastify, { type FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { Config } from './config';
import type { Database } from './db';
import { TokenService } from './auth/tokens';
import { errorsPlugin } from './plugins/errors';
import { securityPlugin } from './plugins/security';
import { sessionPlugin } from './plugins/session';
import { tenantPlugin } from './plugins/tenant';
import { unicodePlugin } from './plugins/unicode';
import { spaPlugin } from './plugins/spa';
import { HotReads, serverTiming } from './plugins/hotReads';
import { AvailabilityChanges } from './routes/services/fullParts';
import { createLimits } from './plugins/sharedLimits';
import type { Admit } from './plugins/rateLimit';
import publicPageRoutes from './routes/publicPages';
import { registerRoutes } from './routes';
import { WebhookDispatcher } from './integrations/webhooks';
import { TableUpkeeper } from './db/upkeep';
import { openApiRoutes } from './openapi';
import type { RegisteredRoute } from './routeDoc';
import { WEBHOOK_EVENTS } from '../common/schemas/integrations';
import { M } from '../common/messages';
import { AppError } from './errors';
import './plugins/context';

export interface AppOptions {
  config: Config;
  database: Database;
  jwtSecret: string;
  /** Folder of the built web app; unset serves only the API. */
  webRoot?: string | null;
  logger?: boolean;
}

export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../dist/web', import.meta.url));

declare module 'fastify' {
  interface FastifyInstance {
    registeredRoutes: RegisteredRoute[];
    hotReads: HotReads;
    /** Which aspects this process's availability writes changed, by service version (server/routes/services/fullParts.ts). */
    availabilityChanges: AvailabilityChanges;
    /** Counts a public page request per address (PUBLIC_RATE_LIMIT); null when unlimited. */
    publicLimit: Admit | null;
    /** The webhook queue's sender in this process (server/integrations/webhooks.ts). */
    webhooks: WebhookDispatcher;
  }
}

const RATE_WINDOW_MS = 60_000;
const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Strips secrets from logged URLs (one-time sign-in codes, OIDC state). */
function safeUrl(url: string): string {
  return url.replace(/([?&](?:auth_token|auth_data|code|state|token)=)[^&]*/gi, '$1[redacted]');
}

/** The request id: the caller's X-Request-Id when it is a plain token, else a new uuid. */
function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options;
  // eslint-disable-next-line prefer-const -- the server factory runs inside Fastify(), before app is assigned
  let app: FastifyInstance;
  const hotReads = new HotReads(() => app.log);
  hotReads.requestId = requestId;
  app = Fastify({
    // Hot reads answer first when they can (server/plugins/hotReads.ts); Fastify's own settings
    // for the server are applied as it would apply them.
    serverFactory: (handler, factoryOptions) => {
      const opts = factoryOptions as { keepAliveTimeout?: number; requestTimeout?: number; connectionTimeout?: number; maxRequestsPerSocket?: number };
      const server = createServer((req, res) => {
        if (!hotReads.answer(req, res)) handler(req, res);
      });
      server.keepAliveTimeout = opts.keepAliveTimeout ?? 72_000;
      server.requestTimeout = opts.requestTimeout ?? 0;
      server.setTimeout(opts.connectionTimeout ?? 0);
      if (opts.maxRequestsPerSocket) server.maxRequestsPerSocket = opts.maxRequestsPerSocket;
      return server;
    },
    logger:
      options.logger === false
        ? false
        : {
            level: config.LOG_LEVEL,
            redact: {
              paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]', '*.password', '*.token'],
              censor: '[redacted]',
            },
            serializers: {
              req: (req) => ({ method: req.method, url: safeUrl(req.url), remoteAddress: req.ip }),
            },
          },
    genReqId: requestId,
    requestIdHeader: false,
    trustProxy: config.TRUST_PROXY,
    bodyLimit: 1024 * 1024,
    routerOptions: { maxParamLength: 200 },
  });

  const registeredRoutes: RegisteredRoute[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      // The route's own config object: a later onRoute hook of a plugin's scope may still add to it.
      if (method !== 'HEAD') registeredRoutes.push({ method, url: route.url, config: (route.config ??= {}) as RegisteredRoute['config'] });
    }
  });
  app.decorate('registeredRoutes', registeredRoutes);
  app.decorate('hotReads', hotReads);
  const availabilityChanges = new AvailabilityChanges();
  app.decorate('availabilityChanges', availabilityChanges);
  // Availability writes announced by any process make the next /full from the held body (decision 0107).
  const unfollowAvailability = options.database.changes.follow((change) => availabilityChanges.hear(change));
  app.addHook('onClose', async () => {
    unfollowAvailability();
  });
  app.decorate('config', config);
  app.decorate('database', options.database);
  app.decorate('tokens', new TokenService(options.jwtSecret));
  const webhooks = new WebhookDispatcher(options.database, config, () => app.log);
  app.decorate('webhooks', webhooks);
  if (config.WEBHOOK_DELIVERY === 'on') {
    app.addHook('onReady', async () => webhooks.start());
    app.addHook('preClose', async () => webhooks.stop());
  }
  // PostgreSQL vacuums and analyzes by itself; the embedded database has no autovacuum.
  if (options.database.kind === 'pglite' && config.EMBEDDED_UPKEEP_SECONDS > 0) {
    const upkeep = new TableUpkeeper(options.database, () => app.log);
    app.addHook('onReady', async () => upkeep.start(config.EMBEDDED_UPKEEP_SECONDS * 1000));
    app.addHook('preClose', async () => upkeep.stop());
  }
  const limits = await createLimits(config, options.database, RATE_WINDOW_MS);
  app.addHook('onClose', () => limits.close());
  app.decorate('loginLimiter', limits.loginThrottle);
  app.decorate('publicLimit', limits.publicPages?.admit ?? null);
  app.addHook('onSend', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
    if (req.url.startsWith('/api/')) {
      reply.header('Cache-Control', reply.getHeader('Cache-Control') ?? 'no-store');
      // The server's own time on the call, as the browser's developer tools show it.
      reply.header('Server-Timing', serverTiming(reply.elapsedTime));
    }
  });

  await app.register(errorsPlugin);
  await app.register(securityPlugin);
  await app.register(sessionPlugin);
  await app.register(tenantPlugin);
  await app.register(unicodePlugin);
  if (limits.api) {
    hotReads.limit = limits.api.take;
    await app.register(rateLimit, {
      store: limits.api.Store,
      // The shared store away: its counters count in the process meanwhile (the library's insurance
      // limiter); should that fail too, calls go on unlimited rather than all failing.
      skipOnError: true,
      global: true,
      hook: 'preHandler',
      max: config.API_RATE_LIMIT,
      timeWindow: RATE_WINDOW_MS,
      // The web app's files are not API calls.
      allowList: (req) => !req.url.startsWith('/api/'),
      keyGenerator: (req) => (req.actor ? `u:${req.actor.user.id}` : `ip:${req.ip}`),
      errorResponseBuilder: (_req, ctx) => new AppError(429, 'rate_limited', M.tooManyRequests, undefined, { retryAfter: ctx.after }),
    });
  }
  await registerRoutes(app);
  // Public pages live outside /api and before the web app's catch-all (docs/decisions/0120-public-pages.md).
  await app.register(publicPageRoutes);
  await openApiRoutes(app, WEBHOOK_EVENTS);
  if (options.webRoot !== null) await app.register(spaPlugin, { root: options.webRoot ?? DEFAULT_WEB_ROOT });
  return app;
}

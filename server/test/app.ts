import type { FastifyInstance, InjectOptions } from 'fastify';
import type { LightMyRequestResponse } from 'fastify';
import { loadConfig, type Config } from '../config';
import { buildApp } from '../app';
import type { Database } from '../db';
import { openTestDatabase } from './db';
import { checkDocumentedAnswer, checkDocumentedCapability } from '../openapi';
import { collectChecks } from '../policies/checks';
import { sql } from 'drizzle-orm';
import { CHANGE_CHANNEL } from '../db/changes';

const DOC_MISMATCH = 'x-test-doc-mismatch';

export interface TestApp {
  app: FastifyInstance;
  database: Database;
  db: Database['db'];
  /** The PostgreSQL database's address (unset on the embedded database), for a second process's connections. */
  databaseUrl?: string;
  close: () => Promise<void>;
}

export const TEST_SECRET = 'test-secret-test-secret-test-secret-0123456789';

/**
 * Builds the real app on a fresh database (see openTestDatabase for `databaseBase`); the API rate
 * limit is off unless a test sets it.
 */
export async function buildTestApp(env: Record<string, string> = {}, databaseBase?: string | null): Promise<TestApp> {
  const { database, dispose, url } = await openTestDatabase(databaseBase);
  // Cached reads go stale by this process's writes only, so statement counts do not depend on timing.
  // Webhook deliveries are sent, and the embedded database's tables vacuumed by the timer, only where
  // a test asks for it (server/integrations/webhooks.test.ts, server/db/upkeep.test.ts).
  const config: Config = loadConfig({
    API_RATE_LIMIT: '0',
    PUBLIC_RATE_LIMIT: '0',
    LOG_LEVEL: 'silent',
    CACHE_MAX_AGE_MS: '600000',
    WEBHOOK_DELIVERY: 'off',
    EMBEDDED_UPKEEP_SECONDS: '0',
    ...env,
  });
  const app = await buildApp({ config, database, jwtSecret: TEST_SECRET, webRoot: null, logger: false });
  // Every request collects the capabilities the access layer checks from its handler on.
  const checked = new WeakMap<object, Set<string>>();
  app.addHook('preHandler', (req, _reply, done) => {
    const seen = new Set<string>();
    checked.set(req, seen);
    collectChecks(seen, done);
  });
  // Every answer of every API test is checked against its route's documented schema and capability (server/openapi.ts).
  app.addHook('onSend', async (req, reply, payload) => {
    const contentType = reply.getHeader('content-type');
    const type = typeof contentType === 'string' ? contentType : undefined;
    // A JSON body sent as bytes is read too; a compressed body or a file is not.
    const json = Buffer.isBuffer(payload) && type?.startsWith('application/json') && !reply.getHeader('content-encoding');
    const body = typeof payload === 'string' ? payload : json ? (payload as Buffer).toString('utf8') : undefined;
    const config = req.routeOptions.config;
    const problem =
      checkDocumentedAnswer(config?.doc, reply.statusCode, { body, contentType: type, public: Boolean(config?.public), method: req.method }) ??
      checkDocumentedCapability(config?.doc, reply.statusCode, checked.get(req) ?? new Set());
    if (problem) reply.header(DOC_MISMATCH, problem.replace(/[^\x20-\x7e]/g, '?').slice(0, 1000));
    return payload;
  });
  await app.ready();
  return {
    app,
    database,
    db: database.db,
    databaseUrl: url,
    close: async () => {
      await app.close();
      await dispose();
    },
  };
}

/**
 * Waits until the change stream has brought this process every change committed so far. On
 * PostgreSQL it comes asynchronously, and a change heard late makes the caches read again: a test
 * counting cached answers waits for it first. A notification sent now arrives after all of them;
 * it names no tenant, so nothing follows it.
 */
export async function settleChangeStream(t: TestApp): Promise<void> {
  let unfollow = () => {};
  const marker = new Promise<void>((resolve) => {
    unfollow = t.database.changes.follow((change) => {
      if (change.table === 'test_settle') resolve();
    });
  });
  try {
    await t.database.exclusive((owner) => owner.execute(sql`select pg_notify(${CHANGE_CHANNEL}, '{"t":"test_settle","tn":[]}')`));
    await Promise.race([
      marker,
      new Promise((_, reject) => setTimeout(() => reject(new Error('the change stream did not bring the marker within 10 s')), 10_000).unref()),
    ]);
  } finally {
    unfollow();
  }
}

export interface CallOptions {
  token?: string | null;
  tenant?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

/** One API call through app.inject with a bearer token and tenant header. */
export async function call(
  app: FastifyInstance,
  method: InjectOptions['method'],
  url: string,
  opts: CallOptions = {},
): Promise<LightMyRequestResponse & { json: () => any }> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.tenant) headers['x-tenant-slug'] = opts.tenant;
  const res = await app.inject({
    method,
    url,
    headers,
    query: opts.query,
    ...(opts.body !== undefined ? { payload: opts.body as InjectOptions['payload'] } : {}),
  });
  const mismatch = res.headers[DOC_MISMATCH];
  if (mismatch) throw new Error(`${method} ${url} answered ${res.statusCode} unlike its documentation: ${String(mismatch)}`);
  return res as never;
}

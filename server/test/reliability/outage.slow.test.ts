import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app';
import { loadConfig } from '../../config';
import { openDatabase, type Database } from '../../db';
import { availabilityHistory } from '../../db/schema';
import { call, TEST_SECRET } from '../app';
import { createAspect, createCategory, createService, createWorld, type World } from '../factories';
import { recordFigure } from '../security/figures';
import { DatabaseProxy, type CutMode, type Upstream } from './proxy';
import { defaultTimeline } from '../../../common/quarters';

/** The quarters of a service's default timeline, which the writes below must fall in. */
const TIMELINE = defaultTimeline();

/**
 * Suite 9, database outage: the app reaches its database through a TCP proxy the test controls.
 * While the proxy refuses or resets connections every request answers 503 with a message a person
 * can act on (never a 500), the server recovers by itself once the database is back, and every
 * write it acknowledged is in the database afterwards. On PostgreSQL (TEST_DATABASE_URL) the proxy
 * sits in front of the PostgreSQL server with a database of its own; otherwise in front of the
 * embedded database's socket.
 */
const UNAVAILABLE = 'The service is temporarily unavailable. Please try again shortly.';
const RECOVERY_LIMIT_MS = 5000;

interface Target {
  upstream: Upstream;
  url: (proxyPort: number) => string;
  poolSize: number;
  dispose: () => Promise<void>;
}

async function adminQuery(url: string, text: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

async function openTarget(): Promise<Target> {
  const base = process.env.TEST_DATABASE_URL;
  if (base) {
    const name = `catalog_outage_${randomBytes(6).toString('hex')}`;
    await adminQuery(base, `create database ${name}`);
    const parsed = new URL(base);
    return {
      upstream: { host: parsed.hostname, port: Number(parsed.port || 5432) },
      url: (port) => {
        const u = new URL(base);
        u.host = `127.0.0.1:${port}`;
        u.pathname = `/${name}`;
        return u.toString();
      },
      poolSize: 5,
      dispose: () => adminQuery(base, `drop database if exists ${name} with (force)`),
    };
  }
  const { startEmbedded } = await import('../../db/embedded/host');
  const embedded = await startEmbedded();
  return {
    upstream: { path: `${embedded.socketDir}/.s.PGSQL.${embedded.port}` },
    url: (port) => `postgres://postgres@127.0.0.1:${port}/postgres`,
    // The embedded database serves one connection at a time.
    poolSize: 1,
    dispose: () => embedded.stop(),
  };
}

let target: Target;
let proxy: DatabaseProxy;
let database: Database;
let app: FastifyInstance;
let world: World;
let aspectId = '';
let serviceId = '';
const figures: Record<string, number> = {};
const acknowledged: string[] = [];
let attemptedWrites = 0;

beforeAll(async () => {
  target = await openTarget();
  proxy = new DatabaseProxy(target.upstream);
  await proxy.start();
  database = await openDatabase({ url: target.url(proxy.port), poolSize: target.poolSize });
  app = await buildApp({ config: loadConfig({ API_RATE_LIMIT: '0', LOG_LEVEL: 'silent' }), database, jwtSecret: TEST_SECRET, webRoot: null, logger: false });
  await app.ready();
  world = await createWorld(app, database.db);
  const service = await createService(database.db, world.tenant.id);
  const category = await createCategory(database.db, world.tenant.id, service.id);
  const aspect = await createAspect(database.db, world.tenant.id, service.id, category.id);
  serviceId = service.id;
  aspectId = aspect.id;
}, 120_000);

afterAll(async () => {
  await app?.close();
  await database?.close();
  await proxy?.stop();
  await target?.dispose();
});

let seq = 0;
/** One availability write and one read; answers every status seen. */
async function traffic(statuses: number[], bodies: unknown[]) {
  const value = `write ${seq++}`;
  attemptedWrites++;
  const [w, r] = await Promise.all([
    call(app, 'POST', '/api/availabilities', {
      token: world.tokens.editor,
      tenant: world.tenant.slug,
      body: { aspectId, timeBucket: TIMELINE[0], value },
    }),
    call(app, 'GET', `/api/services/${serviceId}/full`, { token: world.tokens.reader, tenant: world.tenant.slug }),
  ]);
  if (w.statusCode >= 200 && w.statusCode < 300) acknowledged.push(value);
  for (const res of [w, r]) {
    statuses.push(res.statusCode);
    if (res.statusCode !== 200) bodies.push(res.json());
  }
}

/** Fires traffic every `everyMs` until `stop()`; resolves when every call has answered. */
function load(everyMs: number, statuses: number[], bodies: unknown[]) {
  const pending: Promise<void>[] = [];
  const timer = setInterval(() => pending.push(traffic(statuses, bodies)), everyMs);
  return {
    stop: async () => {
      clearInterval(timer);
      await Promise.all(pending);
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function outage(mode: CutMode) {
  const statuses: number[] = [];
  const bodies: unknown[] = [];
  const before = load(20, statuses, bodies);
  await sleep(500);
  await before.stop();
  expect(statuses.every((s) => s === 200)).toBe(true);

  await proxy.cut(mode);
  const during: number[] = [];
  const duringBodies: unknown[] = [];
  const down = load(20, during, duringBodies);
  await sleep(1500);
  await down.stop();
  // Requests that finished before the cut answered 200; everything else is a 503, never a 500.
  expect(during.filter((s) => s !== 200 && s !== 503)).toEqual([]);
  expect(during.filter((s) => s === 503).length).toBeGreaterThan(10);
  for (const body of duringBodies) expect(body).toMatchObject({ error: UNAVAILABLE, code: 'unavailable' });
  const health = await call(app, 'GET', '/api/health');
  expect(health.statusCode).toBe(503);

  const restoredAt = Date.now();
  await proxy.restore();
  const after: number[] = [];
  const afterBodies: unknown[] = [];
  const up = load(20, after, afterBodies);
  let recoveredAt = 0;
  while (Date.now() - restoredAt < RECOVERY_LIMIT_MS + 1000) {
    const res = await call(app, 'GET', '/api/services', { token: world.tokens.reader, tenant: world.tenant.slug });
    if (res.statusCode === 200) {
      recoveredAt = Date.now();
      break;
    }
    expect(res.statusCode).toBe(503);
    await sleep(10);
  }
  await sleep(500);
  await up.stop();
  expect(recoveredAt, 'the server did not recover').toBeGreaterThan(0);
  const recovery = recoveredAt - restoredAt;
  expect(recovery).toBeLessThan(RECOVERY_LIMIT_MS);
  expect(after.filter((s) => s !== 200 && s !== 503)).toEqual([]);
  expect(after.slice(-10).every((s) => s === 200)).toBe(true);
  figures[`recovery_ms_${mode}`] = recovery;
  figures[`answers_503_${mode}`] = during.filter((s) => s === 503).length;
}

describe('database outage', () => {
  it('answers 503 while the database refuses connections and recovers by itself', async () => {
    await outage('refuse');
  }, 60_000);

  it('answers 503 while connections are reset (a restarting server) and recovers by itself', async () => {
    await outage('reset');
  }, 60_000);

  it('survives a connection lost while a transaction holds it between two statements', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const failed = await database.db
        .transaction(async (tx) => {
          await tx.select({ value: availabilityHistory.value }).from(availabilityHistory).limit(1);
          // The connection goes while the transaction holds it, no statement of its own under way.
          await proxy.cut('reset');
          await sleep(200);
          await tx.select({ value: availabilityHistory.value }).from(availabilityHistory).limit(1);
        })
        .then(
          () => false,
          () => true,
        );
      expect(failed).toBe(true);
      await proxy.restore();
      // The lost connection was dropped, not handed out again: the next request is answered.
      await expect
        .poll(async () => (await call(app, 'GET', '/api/services', { token: world.tokens.reader, tenant: world.tenant.slug })).statusCode, { timeout: 10_000 })
        .toBe(200);
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
      await proxy.restore();
    }
  }, 60_000);

  it('lost no acknowledged write', async () => {
    const rows = await database.db.select({ value: availabilityHistory.value }).from(availabilityHistory).where(eq(availabilityHistory.aspectId, aspectId));
    const stored = new Set(rows.map((r) => r.value));
    const lost = acknowledged.filter((v) => !stored.has(v));
    expect(acknowledged.length).toBeGreaterThan(50);
    expect(lost).toEqual([]);
    recordFigure(
      'database-outage',
      `recovery ${figures.recovery_ms_refuse} ms after refused connections, ${figures.recovery_ms_reset} ms after reset connections (limit ${RECOVERY_LIMIT_MS} ms); ` +
        `${lost.length} of ${acknowledged.length} acknowledged writes lost (${attemptedWrites} attempted)`,
      { ...figures, acknowledged: acknowledged.length, lost: lost.length, attemptedWrites },
    );
  });
});

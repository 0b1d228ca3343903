import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigure } from '../security/figures';
import { openEvents, type SseStream } from '../sse';
import { ApiClient, createPostgresDatabase, freePort, startServer, stopServer, type RunningServer } from './server';

/**
 * The change stream across processes (docs/decisions/0115-change-stream.md): three real server
 * processes on one PostgreSQL database. The caches' backstop is set to ten minutes, so nothing but
 * the stream can make a change made through one process show through the others; every check
 * polls the other processes from the moment the write was answered and fails after a second.
 * The times measured are recorded as figures; the targets live in bench/ and docs/performance.md.
 */
const PROCESSES = 3;
const TRIALS = Number(process.env.CHANGE_STREAM_TRIALS ?? 30);
/** Not a speed target: a bound far above it, which a process that was never told would not meet. */
const BOUND_MS = 1000;
const base = process.env.TEST_DATABASE_URL;

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

type Reply = { status: number; body: any; etag?: string | null };

async function send(server: RunningServer, method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(server.base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed, etag: res.headers.get('etag') };
}

/** Milliseconds until `check` holds on `server`, polling from now; fails after BOUND_MS. */
async function until(what: string, check: () => Promise<boolean>): Promise<number> {
  const start = performance.now();
  for (;;) {
    if (await check()) return performance.now() - start;
    if (performance.now() - start > BOUND_MS) throw new Error(`${what}: not seen within ${BOUND_MS} ms`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

describe.skipIf(!base)('the change stream across three server processes on one PostgreSQL database', () => {
  let servers: RunningServer[] = [];
  let databaseUrl = '';
  let superToken = '';
  let tenant: { id: string; slug: string };
  let otherTenant: { id: string; slug: string };
  const tokens: Record<string, string> = {};
  const ids: Record<string, string> = {};
  let serviceId = '';
  let quarter = '';
  const aspectIds: string[] = [];
  const propagation: number[] = [];

  const via = (i: number) => servers[i % PROCESSES]!;
  const others = (i: number) => servers.filter((_, j) => j !== i % PROCESSES);

  beforeAll(async () => {
    const database = await createPostgresDatabase(base!, 'catalog_stream');
    cleanups.push(() => database.drop());
    databaseUrl = database.url;
    const ports: number[] = [];
    for (let i = 0; i < PROCESSES; i++) ports.push(await freePort());
    servers = await Promise.all(
      ports.map((port) => {
        const dataDir = mkdtempSync(join(tmpdir(), 'catalog-stream-'));
        cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
        return startServer({ port, dataDir, databaseUrl: database.url, env: { CACHE_MAX_AGE_MS: '600000', LOGIN_THROTTLE: 'false' } });
      }),
    );
    cleanups.push(async () => {
      for (const s of servers) await stopServer(s);
    });
    const admin = new ApiClient(servers[0]!.base);
    await admin.signIn();
    superToken = admin.token;
    const u = Date.now();
    tenant = (await send(servers[0]!, 'POST', '/api/tenants', superToken, { name: `Stream Org ${u}`, slug: `stream-${u}` })).body.tenant;
    otherTenant = (await send(servers[0]!, 'POST', '/api/tenants', superToken, { name: `Second Org ${u}`, slug: `second-${u}` })).body.tenant;
    for (const role of ['reader', 'editor', 'admin', 'demoted', 'doomed', 'member', 'leaving'] as const) {
      const email = `${role}-${u}@example.com`;
      const created = await send(servers[0]!, 'POST', '/api/admin/users', superToken, {
        email,
        name: `The ${role}`,
        role: role === 'reader' || role === 'member' || role === 'leaving' ? 'reader' : role === 'editor' ? 'editor' : 'admin',
        tenant_id: tenant.id,
        password: 'stream-password',
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      ids[role] = created.body.user.id;
      const client = new ApiClient(servers[0]!.base);
      await client.signIn(email, 'stream-password');
      tokens[role] = client.token;
    }
    const t = { 'x-tenant-slug': tenant.slug };
    const service = await send(servers[0]!, 'POST', '/api/services', tokens.admin!, { name: 'Streamed', slug: `streamed-${u}` }, t);
    expect(service.status).toBe(201);
    serviceId = service.body.service.id;
    quarter = service.body.service.timeline[0];
    const category = await send(servers[0]!, 'POST', '/api/categories', tokens.editor!, { serviceId, name: 'Core', position: 0 }, t);
    for (const title of ['Public one', 'Public two']) {
      const aspect = await send(
        servers[0]!,
        'POST',
        '/api/aspects',
        tokens.editor!,
        { serviceId, categoryId: category.body.category.id, title, description: '', isPublic: true },
        t,
      );
      expect(aspect.status).toBe(201);
      aspectIds.push(aspect.body.aspect.id);
    }
  }, 180_000);

  const tenantHeaders = () => ({ 'x-tenant-slug': tenant.slug });
  const full = (server: RunningServer, token: string, headers: Record<string, string> = {}) =>
    send(server, 'GET', `/api/services/${serviceId}/full`, token, undefined, { ...tenantHeaders(), ...headers });

  it(`shows a write made through one process through every other (${TRIALS} trials), never answering 304 to what it was told is old`, async () => {
    // Every process holds the service warm for the reader.
    for (const server of servers) expect((await full(server, tokens.reader!)).status).toBe(200);
    let stale304 = 0;
    for (let n = 0; n < TRIALS; n++) {
      const value = `Value ${n} ${Date.now()}`;
      const before = await Promise.all(others(n).map((s) => full(s, tokens.reader!)));
      const wrote = await send(
        via(n),
        'POST',
        '/api/availabilities',
        tokens.editor!,
        { aspectId: aspectIds[n % 2], timeBucket: quarter, value },
        tenantHeaders(),
      );
      expect(wrote.status).toBe(200);
      await Promise.all(
        others(n).map(async (server, k) => {
          propagation.push(await until(`write ${n} on ${server.base}`, async () => JSON.stringify((await full(server, tokens.reader!)).body).includes(value)));
          // Told of the write, the process never confirms the copy from before it.
          const old = await full(server, tokens.reader!, { 'if-none-match': before[k]!.etag! });
          if (old.status === 304) stale304++;
          expect(old.status).toBe(200);
        }),
      );
    }
    expect(stale304).toBe(0);
    recordFigure(
      'change-stream-propagation',
      `${TRIALS} writes through one of ${PROCESSES} processes, read back through the other two: p50 ${percentile(propagation, 50).toFixed(1)} ms, ` +
        `p99 ${percentile(propagation, 99).toFixed(1)} ms (polled from the write's answer, over HTTP), 0 answers of 304 to an older ETag`,
      { trials: TRIALS, p50: percentile(propagation, 50), p99: percentile(propagation, 99), max: Math.max(...propagation) },
    );
  }, 180_000);

  it('ends access through every process at once: sign-out, deletion, demotion, removed membership, archived tenant', async () => {
    const times: Record<string, number[]> = {};
    const expectEverywhere = async (what: string, i: number, check: (server: RunningServer) => Promise<boolean>) => {
      for (const server of others(i)) (times[what] ??= []).push(await until(`${what} on ${server.base}`, () => check(server)));
    };
    const me = (server: RunningServer, token: string, slug = tenant.slug) => send(server, 'GET', '/api/auth/me', token, undefined, { 'x-tenant-slug': slug });
    // Each process has resolved each session before the change.
    for (const server of servers) {
      for (const who of ['member', 'doomed', 'demoted', 'leaving']) expect((await me(server, tokens[who]!)).status).toBe(200);
      expect((await send(server, 'GET', '/api/users', tokens.demoted!, undefined, tenantHeaders())).status).toBe(200);
    }

    expect((await send(via(0), 'POST', '/api/auth/logout', tokens.member!)).status).toBeLessThan(300);
    await expectEverywhere('sign-out', 0, async (s) => (await me(s, tokens.member!)).status === 401);

    expect((await send(via(1), 'DELETE', `/api/admin/users/${ids.doomed}`, superToken)).status).toBe(204);
    await expectEverywhere('user deleted', 1, async (s) => (await me(s, tokens.doomed!)).status === 401);

    expect((await send(via(2), 'PATCH', `/api/admin/users/${ids.demoted}`, superToken, { role: 'reader' })).status).toBe(200);
    await expectEverywhere('demotion', 2, async (s) => (await send(s, 'GET', '/api/users', tokens.demoted!, undefined, tenantHeaders())).status === 403);

    // A member of two tenants loses the second.
    const leaving = ids.leaving!;
    expect((await send(via(0), 'PATCH', `/api/admin/users/${leaving}/tenants`, superToken, { tenantIds: [tenant.id, otherTenant.id] })).status).toBe(200);
    for (const server of servers) await until('membership added', async () => (await me(server, tokens.leaving!, otherTenant.slug)).status === 200);
    expect((await send(via(0), 'PATCH', `/api/admin/users/${leaving}/tenants`, superToken, { tenantIds: [tenant.id] })).status).toBe(200);
    await expectEverywhere('membership removed', 0, async (s) => (await me(s, tokens.leaving!, otherTenant.slug)).status === 403);

    // A private flag: the reader's copy loses the aspect through every process.
    for (const server of servers) expect(JSON.stringify((await full(server, tokens.reader!)).body)).toContain('Public two');
    const hidden = await send(
      via(1),
      'PUT',
      `/api/aspects/${aspectIds[1]}`,
      tokens.editor!,
      { title: 'Public two', description: '', isPublic: false },
      tenantHeaders(),
    );
    expect(hidden.status).toBe(200);
    await expectEverywhere('private flag', 1, async (s) => !JSON.stringify((await full(s, tokens.reader!)).body).includes('Public two'));

    // Last, the whole tenant is archived: its members are refused by every process.
    expect((await send(via(2), 'PATCH', `/api/tenants/${tenant.id}/archive`, superToken)).status).toBe(200);
    await expectEverywhere('tenant archived', 2, async (s) => (await full(s, tokens.reader!)).status === 403);

    const summary = Object.entries(times).map(([what, ms]) => `${what} ${Math.max(...ms).toFixed(1)} ms`);
    recordFigure('change-stream-access', `Access changes through one process, refused by the other two within (slowest): ${summary.join(', ')}`, times);
    // The tenant comes back for the stream checks below.
    expect((await send(via(0), 'PATCH', `/api/tenants/${tenant.id}/unarchive`, superToken)).status).toBe(200);
  }, 120_000);

  it('survives losing the listening connections: nothing is served stale meanwhile, and the stream is heard again', async () => {
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    try {
      for (const server of servers) expect((await full(server, tokens.reader!)).status).toBe(200);
      const { rowCount } = await admin.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query = 'listen catalog_changes'",
      );
      expect(rowCount).toBe(PROCESSES);
      // Written while the processes may not hear it: each reads again until it hears again, and
      // then reads everything again once.
      const value = `Written while deaf ${Date.now()}`;
      expect(
        (await send(via(0), 'POST', '/api/availabilities', tokens.editor!, { aspectId: aspectIds[0], timeBucket: quarter, value }, tenantHeaders())).status,
      ).toBe(200);
      for (const server of others(0))
        await until(`write during reconnection on ${server.base}`, async () => JSON.stringify((await full(server, tokens.reader!)).body).includes(value));
      for (const server of servers) await until(`${server.base} ready again`, async () => (await fetch(`${server.base}/api/health/ready`)).status === 200);
      const after = `Heard again ${Date.now()}`;
      expect(
        (await send(via(1), 'POST', '/api/availabilities', tokens.editor!, { aspectId: aspectIds[0], timeBucket: quarter, value: after }, tenantHeaders()))
          .status,
      ).toBe(200);
      for (const server of others(1))
        await until(`write after reconnection on ${server.base}`, async () => JSON.stringify((await full(server, tokens.reader!)).body).includes(after));
    } finally {
      await admin.end();
    }
  }, 60_000);

  it('carries a write through one process to a page following another, with ids only', async () => {
    const streams: SseStream[] = [];
    try {
      for (const server of servers.slice(1)) {
        const stream = await openEvents(server.base, tokens.reader!, { tenant: tenant.slug });
        expect(stream.status).toBe(200);
        streams.push(stream);
      }
      const secret = `Hidden-${Date.now()}`;
      const created = await send(via(0), 'POST', '/api/aspects', tokens.editor!, { serviceId, categoryId: undefined, title: secret }, tenantHeaders());
      // The body above lacks a category: refused, nothing written, nothing announced.
      expect(created.status).toBe(400);
      const start = performance.now();
      const wrote = await send(
        via(0),
        'POST',
        '/api/availabilities',
        tokens.editor!,
        { aspectId: aspectIds[1], timeBucket: quarter, value: `${secret} value` },
        tenantHeaders(),
      );
      expect(wrote.status).toBe(200);
      const arrivals = await Promise.all(
        streams.map(async (s) => {
          const event = await s.next((e) => e.event === 'catalog' && e.data.record === 'availability', BOUND_MS);
          expect(event.data.services).toEqual([serviceId]);
          return performance.now() - start;
        }),
      );
      for (const s of streams) expect(s.raw()).not.toContain(secret);
      recordFigure(
        'change-stream-sse',
        `A cell written through one process reached pages following the other two in ${arrivals.map((a) => a.toFixed(1)).join(' and ')} ms`,
        { arrivals },
      );
    } finally {
      for (const s of streams) s.close();
    }
  }, 60_000);
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigure } from '../security/figures';
import { ADMIN_EMAIL, ADMIN_PASSWORD, ApiClient, createPostgresDatabase, freePort, stopServer, startServer, type RunningServer } from './server';

/**
 * Suite 15, several server processes on one PostgreSQL database (docs/decisions/0112-shared-limits.md).
 * Each round starts three real server processes at the same moment on a fresh database none of them
 * has seen, without JWT_SECRET: every one must come up healthy, the database must hold exactly one
 * super admin, one first tenant and one Demo service, and a token signed in through one process must
 * work on the others. On the last round's processes: failed sign-ins spread over the three are
 * slowed as if one process had counted them, and the API rate limit holds across them within its
 * documented tolerance: 1,000 calls at a limit of 600 a minute admit at most 630. With TEST_REDIS_URL (e.g. redis://127.0.0.1:6379), the same limits are
 * checked once more on three processes that count in Redis (REDIS_URL).
 *
 * PostgreSQL only: the embedded database serves one process by design (its data-directory lock,
 * checked by server/main.slow.test.ts), so there is nothing to run several of on it.
 */
const PROCESSES = 3;
const ROUNDS = Number(process.env.MULTI_PROCESS_ROUNDS ?? 3);
const API_LIMIT = 600;
/** Calls of one caller spread over the processes, all of them under way at once, in the rate-limit check. */
const CALLS = 1000;
/** What the limit may admit past API_LIMIT across the processes (docs/decisions/0178-limits-from-a-library.md). */
const TOLERANCE = 30;
/** The pair limit of the sign-in throttle here: reached without any wait between the failures. */
const PAIR_LIMIT = 3;
const base = process.env.TEST_DATABASE_URL;

const cleanups: Array<() => Promise<void> | void> = [];
let last: RunningServer[] = [];

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function scalar(url: string, text: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query(text)).rows[0].n);
  } finally {
    await client.end();
  }
}

/** An address of its own for each check and run: Redis keeps its counts from one run to the next. */
const address = () => `127.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;

/** Starts the processes all at once; every one must come up (a failed start fails the round). */
async function startTogether(databaseUrl: string, redisUrl = ''): Promise<RunningServer[]> {
  const ports: number[] = [];
  for (let i = 0; i < PROCESSES; i++) ports.push(await freePort());
  const starts = await Promise.allSettled(
    ports.map((port) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'catalog-multi-'));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      return startServer({
        port,
        dataDir,
        databaseUrl,
        env: {
          // No shared secret is configured: the processes must agree on one through the database.
          JWT_SECRET: '',
          REDIS_URL: redisUrl,
          SEED_DEMO: 'true',
          API_RATE_LIMIT: String(API_LIMIT),
          LOGIN_MAX_FAILURES_PER_ACCOUNT: String(PAIR_LIMIT),
          // Each check below comes from an address of its own (X-Forwarded-For), as behind a proxy.
          TRUST_PROXY: 'true',
        },
      });
    }),
  );
  const servers = starts.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  cleanups.push(async () => {
    for (const s of servers) await stopServer(s);
  });
  const failed = starts.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
  expect(failed, 'every process starts').toEqual([]);
  return servers;
}

function login(server: RunningServer, password: string, address: string) {
  return fetch(`${server.base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify({ email: ADMIN_EMAIL, password }),
  });
}

function retryAfter(res: Response): number {
  const value = res.headers.get('retry-after') ?? '';
  expect(value).toMatch(/^[1-9]\d*$/);
  return Number(value);
}

describe.skipIf(!base)('several server processes on one PostgreSQL database', () => {
  it(`start together ${ROUNDS} times on a fresh database: one setup, one signing secret`, async () => {
    const startMs: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const database = await createPostgresDatabase(base!, 'catalog_multi');
      cleanups.push(() => database.drop());
      const servers = await startTogether(database.url);
      startMs.push(...servers.map((s) => s.startMs));

      for (const server of servers) {
        const health = await fetch(`${server.base}/api/health`);
        expect(health.status).toBe(200);
        expect(await health.json()).toEqual({ status: 'ok', database: 'postgres' });
      }
      expect(await scalar(database.url, 'select count(*) as n from users where super_admin')).toBe(1);
      expect(await scalar(database.url, 'select count(*) as n from users')).toBe(1);
      expect(await scalar(database.url, 'select count(*) as n from tenants')).toBe(1);
      expect(await scalar(database.url, "select count(*) as n from services where name = 'Demo'")).toBe(1);

      // Signed in through one process (a different one each round), the token works on every other.
      const signer = servers[round % PROCESSES]!;
      const client = new ApiClient(signer.base);
      await client.signIn();
      for (const server of servers) {
        const me = await new ApiClient(server.base).request('GET', '/api/auth/me', undefined, { authorization: `Bearer ${client.token}` });
        expect(me.status, `${server.base} accepts a token of ${signer.base}`).toBe(200);
        expect(me.body.user.email).toBe(ADMIN_EMAIL);
      }

      if (round < ROUNDS - 1) {
        for (const server of servers) await stopServer(server);
      } else {
        last = servers;
      }
    }
    recordFigure(
      'several-processes',
      `${ROUNDS} rounds of ${PROCESSES} processes started together on a fresh database: ${ROUNDS * PROCESSES} of ${ROUNDS * PROCESSES} healthy, ` +
        `1 super admin, 1 tenant and 1 Demo service each round, tokens accepted by every process; start ${Math.min(...startMs)}-${Math.max(...startMs)} ms`,
      { rounds: ROUNDS, processes: PROCESSES, startMs },
    );
  }, 240_000);

  limitChecks('postgres', () => last);
});

describe.skipIf(!base || !process.env.TEST_REDIS_URL)('several server processes counting in Redis (TEST_REDIS_URL)', () => {
  let servers: RunningServer[] = [];
  beforeAll(async () => {
    const database = await createPostgresDatabase(base!, 'catalog_multi');
    cleanups.push(() => database.drop());
    servers = await startTogether(database.url, process.env.TEST_REDIS_URL);
  }, 120_000);

  limitChecks('redis', () => servers);
});

/**
 * The limits on running processes. Both stores count each call of the full route with one atomic
 * increment (rate-limiter-flexible's RateLimiterPostgres or RateLimiterRedis), which the call waits
 * for: the processes count as one.
 */
function limitChecks(store: 'postgres' | 'redis', serversOf: () => RunningServer[]) {
  it(`slows failed sign-ins spread over the processes as one (${store})`, async () => {
    const servers = serversOf();
    expect(servers).toHaveLength(PROCESSES);
    const from = address();
    // One wrong password through each process: one process alone would let each of them through.
    for (const server of servers) expect((await login(server, 'wrong-password', from)).status).toBe(401);
    // The pair limit is reached after PAIR_LIMIT failures in all: every process now refuses, the
    // right password included, until the first failure leaves the 15-minute window.
    const waits: number[] = [];
    for (const server of servers) {
      const res = await login(server, ADMIN_PASSWORD, from);
      expect(res.status, server.base).toBe(429);
      waits.push(retryAfter(res));
    }
    for (const wait of waits) expect(wait).toBeGreaterThan(15 * 60 - 60);
    // Another address is not slowed for the account: the owner still signs in.
    expect((await login(servers[0]!, ADMIN_PASSWORD, address())).status).toBe(200);
    recordFigure(
      `several-processes-sign-in-${store}`,
      `${PAIR_LIMIT} failures spread over ${PROCESSES} processes, then 429 from every process (Retry-After ${waits.join(', ')} s)`,
      { waits },
    );
  }, 60_000);

  it(`holds the API rate limit across the processes: ${CALLS} calls at a limit of ${API_LIMIT} admit at most ${API_LIMIT + TOLERANCE} (${store})`, async () => {
    const servers = serversOf();
    expect(servers).toHaveLength(PROCESSES);
    const from = address();
    const call = (server: RunningServer) => fetch(`${server.base}/api/health`, { headers: { 'x-forwarded-for': from } });
    // One caller's calls, to the processes in turn, as many under way at once as the machine takes.
    const statuses: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next < CALLS) {
          const res = await call(servers[next++ % PROCESSES]!);
          statuses.push(res.status);
          await res.arrayBuffer();
        }
      }),
    );
    const admitted = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(admitted).toBeGreaterThanOrEqual(API_LIMIT);
    expect(admitted).toBeLessThanOrEqual(API_LIMIT + TOLERANCE);
    // Afterwards every process refuses the caller, and says when the window ends.
    const after = await Promise.all(servers.map((s) => call(s)));
    expect(after.map((a) => a.status)).toEqual(servers.map(() => 429));
    for (const res of after) expect(retryAfter(res)).toBeLessThanOrEqual(60);

    recordFigure(
      `several-processes-rate-limit-${store}`,
      `API_RATE_LIMIT=${API_LIMIT} over ${PROCESSES} processes: ${admitted} of ${CALLS} calls of one caller admitted, 50 under way at once ` +
        `(at most ${API_LIMIT + TOLERANCE} allowed), then 429 from every process`,
      { limit: API_LIMIT, processes: PROCESSES, calls: CALLS, admitted },
    );
  }, 120_000);
}

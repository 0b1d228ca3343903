import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_MAX_ASPECTS_CEILING } from '../../../common/limits';
import { buildTestApp, call, type TestApp } from '../app';
import { createWorld, type World } from '../factories';
import { recordFigure } from './figures';
import { catalogDocument, catalogState, deltas, gz, importDeltas, multipart, type State } from './uploadFixtures';

/**
 * Suite 6, uploads and imports, at the largest size a setting allows: a .catalog file of 100,000
 * aspects (IMPORT_MAX_ASPECTS at its ceiling) is imported while the server and the database keep
 * answering. Large on purpose, since answering during a long import is what it checks; the other
 * cases of the suite are in uploads.test.ts.
 */

let t: TestApp;
let w: World;
const timings: Record<string, number> = {};

beforeAll(async () => {
  t = await buildTestApp({ IMPORT_MAX_ASPECTS: String(IMPORT_MAX_ASPECTS_CEILING) });
  w = await createWorld(t.app, t.db);
});

afterAll(async () => {
  recordFigure('uploads-scale', `100,000 aspects imported in ${timings['100,000 aspects imported'] ?? '?'} ms`, { timingsMs: timings });
  await t?.close();
});

const admin = () => ({ token: w.tokens.admin, tenant: w.tenant.slug });

type Reply = Awaited<ReturnType<typeof call>>;

/** An accepted case: the database state before and after the upload, and no server error. */
async function acceptedCase(send: () => Promise<Reply>, check: (res: Reply, before: State, after: State) => Promise<void>) {
  const before = await catalogState(t.db);
  const res = await send();
  const after = await catalogState(t.db);
  expect(res.statusCode, `a server error: ${res.body.slice(0, 300)}`).toBeLessThan(500);
  await check(res, before, after);
}

function upload(file: Buffer, filename = 'service.catalog') {
  const { body, headers } = multipart([{ field: 'file', filename, content: file }]);
  return call(t.app, 'POST', '/api/services/import', { ...admin(), body, headers });
}

describe('.catalog import at the largest allowed size', () => {
  it('imports 100,000 aspects in steps while the server and the database keep answering', async () => {
    const doc = catalogDocument(100_000, 10);
    const file = gz(doc);
    const loop = monitorEventLoopDelay({ resolution: 10 });
    const started = Date.now();
    let importDone = 0;
    const probes: Record<'light' | 'health', { status: number; at: number }> = { light: { status: 0, at: 0 }, health: { status: 0, at: 0 } };
    const probe = async (name: 'light' | 'health', url: string) => {
      const res = await t.app.inject({ method: 'GET', url });
      probes[name] = { status: res.statusCode, at: Date.now() };
    };
    await acceptedCase(
      async () => {
        loop.enable();
        const pending = upload(file).then((res) => {
          importDone = Date.now();
          return res;
        });
        // Requests sent while the import runs: one the process answers alone, one that needs the database.
        await new Promise((resolve) => setTimeout(resolve, 200));
        await Promise.all([probe('light', '/api/no-such-route'), probe('health', '/api/health')]);
        const res = await pending;
        loop.disable();
        return res;
      },
      async (res, before, after) => {
        expect(res.statusCode, res.body.slice(0, 300)).toBe(201);
        expect(deltas(before, after)).toEqual(importDeltas(100_000, 10_000));
        const id = res.json().service.id as string;
        const rows = (await t.db.execute(
          sql`select count(*)::int as n, min(position)::int as first, max(position)::int as last, count(distinct title)::int as titles,
                     sum(case when is_public then 1 else 0 end)::int as public from aspects where service_id = ${id}`,
        )) as unknown as { rows: { n: number; first: number; last: number; titles: number; public: number }[] };
        expect(rows.rows[0]).toEqual({ n: 100_000, first: 0, last: 99_999, titles: 100_000, public: 50_000 });
      },
    );
    timings['100,000 aspects imported'] = importDone - started;
    timings['request without the database, answered after'] = probes.light.at - started;
    timings['health check, answered after'] = probes.health.at - started;
    timings['longest event-loop stall during the import'] = Math.round(loop.max / 1e6);
    timings['100,000-aspect file size (KB)'] = Math.round(file.length / 1024);
    // The process answers while the import runs, and so does the database, the embedded one too:
    // the import writes in short steps (docs/decisions/0136-imports-in-steps.md).
    expect(probes.light.status).toBe(404);
    expect(probes.light.at).toBeLessThan(importDone);
    expect(probes.health.status).toBe(200);
    expect(probes.health.at).toBeLessThan(importDone);
    const afterwards = Date.now();
    expect((await call(t.app, 'GET', '/api/health')).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/api/services', admin())).statusCode).toBe(200);
    timings['health and service list after the import'] = Date.now() - afterwards;
    // The import's own time is no part of what is checked: on a slower machine, with the suite's
    // other files running beside it, 100,000 aspects took over two minutes.
  }, 300_000);
});

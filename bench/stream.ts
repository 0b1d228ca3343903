/**
 * The change stream (docs/decisions/0115-change-stream.md) measured on PostgreSQL, issue 26
 * (`BENCH_STEPS=stream`): three real server processes on one fresh database, their caches' backstop
 * at ten minutes (CACHE_MAX_AGE_MS=600000), so that nothing but the stream carries a write through
 * one process to the others.
 *
 * 1. Propagation (bench/streamPropagation.ts): writes of an availability cell of the large service
 *    through each process in turn; after each, the other two are polled (GET /full, a reader's
 *    token) until the new value shows, and, in a second series, the time the SSE `catalog` event
 *    reaches a stream opened on each of the other two is taken.
 * 2. Warm read throughput (bench/streamThroughput.ts): GET /full of the large service warm, wrk at
 *    10 connections, against one process, against the three at once (summed), against a bare
 *    node:http server answering the same bytes, and next to the figure of docs/performance.json
 *    from before the change stream.
 * 3. Idle streams (bench/streamIdle.ts): 10,000 idle GET /api/events streams held by one process,
 *    its resident memory before and after (/proc/<pid>/status), and the time a write through
 *    another process takes to reach every one of them.
 *
 * This file sets up what the three share (the database, the processes, the tenant, its reader and
 * editor, the large service) and takes it down; the calls they make as clients are in
 * bench/streamClient.ts.
 *
 *   node --import tsx bench/stream.ts     BENCH_SCALE=small (50 writes, 1,000 streams), BENCH_PORT (3
 *                                         servers on it and the next two, the bare server on the
 *                                         third after it), BENCH_STREAM_DATABASE_URL, else
 *                                         DATABASE_URL, else postgres://postgres@127.0.0.1:5432
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SCALES, catalogFile, type BenchScale } from './data';
import { Client } from './http';
import type { Figure } from './measure';
import { benchDatabase } from './memory';
import { ADMIN, startServer, type RunningServer } from './server';
import { PROCESSES, send, type LightStream, type Reply } from './streamClient';
import { measureIdleStreams } from './streamIdle';
import { measurePropagation } from './streamPropagation';
import { measureThroughput, storedWarmFull } from './streamThroughput';

export interface StreamOptions {
  scaleName: 'small' | 'full';
  scale: BenchScale;
  /** Writes of the propagation series (each series). */
  writes: number;
  /** Idle streams opened on one process. */
  streams: number;
  /** wrk runs per throughput figure (median taken), after one not counted. */
  runs: number;
  seconds: number;
  port: number;
  databaseUrl: string;
  /** A commit from before the change stream to run next to this one (default: the stored api figure's). */
  before?: string;
  log: (line: string) => void;
}

export interface StreamFigure extends Figure {
  section: string;
}

/** What the sections of the step share: the processes and the tenant set up for them, and where their results go. */
export interface StreamRun {
  o: StreamOptions;
  servers: RunningServer[];
  /** The processes' base urls, in the order of `servers`. */
  urls: string[];
  /** The super admin, signed in through the first process. */
  admin: Client;
  tokens: Record<'reader' | 'editor', string>;
  /** The tenant's slug; `stamp` makes it and every written value unique to the run. */
  slug: string;
  stamp: string;
  /** GET /full of the large service. */
  fullPath: string;
  /** The step's temporary directory, removed at the end. */
  work: string;
  figures: StreamFigure[];
  notes: string[];
  /** Every stream open at the moment: closed at the end, whatever happens. */
  streams: LightStream[];
  /** The reader's GET /full through process i. */
  read: (i: number) => Promise<Reply & { body: any }>;
  /** The editor's write of `value` through process i, into the cell of the large service n picks among those the reader sees. */
  write: (i: number, n: number, value: string) => Promise<Reply & { body: any }>;
}

/**
 * The step: a fresh database and three processes on it, a tenant with a reader and an editor, the
 * large service imported; then the three sections in order, and everything taken down again
 * whatever happens (streams closed, processes stopped, database dropped, temporary directory removed).
 */
export async function measureStream(o: StreamOptions): Promise<{ figures: StreamFigure[]; notes: string[] }> {
  const figures: StreamFigure[] = [];
  const notes: string[] = [];
  // Read before anything is written: the api step's figure from before the change stream.
  const stored = storedWarmFull();
  const database = await benchDatabase(o.databaseUrl, 'catalog_bench_stream');
  const work = mkdtempSync(join(tmpdir(), 'catalog-bench-stream-'));
  const webRoot = join(work, 'no-web');
  mkdirSync(webRoot, { recursive: true });
  // The page the api step serves at / (as bench/measure.ts writes it).
  writeFileSync(
    join(webRoot, 'index.html'),
    `<!doctype html><html lang="en"><head><meta charset="UTF-8"><title>Service Catalog</title></head><body><div id="root"></div>${' '.repeat(800)}</body></html>`,
  );
  const servers: RunningServer[] = [];
  const streams: LightStream[] = [];
  try {
    // One after the other: the first runs the migrations.
    for (let i = 0; i < PROCESSES; i++) {
      servers.push(
        await startServer({
          port: o.port + i,
          dataDir: join(work, `data${i}`),
          webRoot,
          databaseUrl: database.url,
          env: { CACHE_MAX_AGE_MS: '600000', LOGIN_THROTTLE: 'false' },
        }),
      );
    }
    o.log(`stream: ${PROCESSES} server processes on one PostgreSQL database (pids ${servers.map((s) => s.pid).join(', ')})`);
    const urls = servers.map((s) => s.url);
    const admin = new Client(urls[0]!);
    await admin.signIn(ADMIN.email, ADMIN.password);
    const stamp = Date.now().toString(36);
    const slug = `stream-${stamp}`;
    const tenant = await admin.json('POST', '/api/tenants', { name: `Stream ${stamp}`, slug });
    if (tenant.status !== 201) throw new Error(`creating a tenant answered ${tenant.status}`);
    const tokens: Record<'reader' | 'editor', string> = { reader: '', editor: '' };
    for (const role of ['reader', 'editor'] as const) {
      const email = `${role}-${stamp}@example.com`;
      const created = await admin.json('POST', '/api/admin/users', {
        email,
        name: `Stream ${role}`,
        role,
        tenant_id: tenant.body.tenant.id,
        password: 'stream-bench-password',
      });
      if (created.status !== 201) throw new Error(`creating the ${role} answered ${created.status}`);
      const client = new Client(urls[0]!);
      await client.signIn(email, 'stream-bench-password');
      tokens[role] = client.token;
    }
    // The api step's large service (same shape, same bytes for the super admin), in the new tenant.
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(catalogFile(o.scale.large))]), 'stream.catalog');
    const imported = await admin.fetch('/api/services/import', { method: 'POST', headers: { 'x-tenant-slug': slug }, body: form });
    if (imported.status !== 201) throw new Error(`import answered ${imported.status}`);
    const serviceId = ((await imported.json()) as { service: { id: string } }).service.id;
    const fullPath = `/api/services/${serviceId}/full`;
    const full = (await send(urls[0]!, 'GET', fullPath, tokens.reader, slug)).body;
    const aspectIds: string[] = full.resolved_data.aspects.map((a: { id: string }) => a.id);
    const timeline: string[] = full.resolved_data.timeline;
    notes.push(
      `Three server processes (scripts/start.mjs, as \`npm start\`) on one fresh PostgreSQL database, CACHE_MAX_AGE_MS=600000. The large service of the api step ` +
        `(${o.scale.large.aspects} aspects, ${timeline.length} quarters) imported into a new tenant; the reader sees its ${aspectIds.length} public aspects.`,
    );
    const read = (i: number) => send(urls[i]!, 'GET', fullPath, tokens.reader, slug);
    const write = (i: number, n: number, value: string) =>
      send(urls[i]!, 'POST', '/api/availabilities', tokens.editor, slug, {
        aspectId: aspectIds[(n * 7) % aspectIds.length],
        timeBucket: timeline[n % timeline.length],
        value,
      });
    const run: StreamRun = { o, servers, urls, admin, tokens, slug, stamp, fullPath, work, figures, notes, streams, read, write };

    // The three sections in order. The first leaves a stream open on each process; the third closes
    // them before it opens its idle ones.
    const listeners = await measurePropagation(run);
    await measureThroughput(run, stored);
    await measureIdleStreams(run, listeners);
    notes.push(
      `Load average at the end of the step: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} (the machine's ${cpus().length} cores are shared with whatever else runs on it).`,
    );
  } finally {
    for (const s of streams) s.close();
    for (const s of servers) await s.stop();
    await database.drop();
    rmSync(work, { recursive: true, force: true });
  }
  return { figures, notes };
}

export function streamOptionsFromEnv(log: (line: string) => void): StreamOptions {
  const scaleName = process.env.BENCH_SCALE === 'small' ? 'small' : 'full';
  return {
    scaleName,
    scale: SCALES[scaleName],
    writes: Number(process.env.BENCH_STREAM_WRITES ?? (scaleName === 'small' ? 50 : 200)),
    streams: Number(process.env.BENCH_STREAMS ?? (scaleName === 'small' ? 1000 : 10_000)),
    runs: Number(process.env.BENCH_RUNS ?? (scaleName === 'small' ? 1 : 3)),
    seconds: Number(process.env.BENCH_SECONDS ?? (scaleName === 'small' ? 2 : 5)),
    port: Number(process.env.BENCH_PORT ?? 3390),
    databaseUrl: process.env.BENCH_STREAM_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    before: process.env.BENCH_STREAM_BEFORE || undefined,
    log,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await measureStream(streamOptionsFromEnv((line) => console.log(`[bench] ${line}`)));
  for (const f of result.figures) console.log(`${f.section} | ${f.name}: ${f.value.toFixed(1)}`);
  for (const n of result.notes) console.log(`- ${n}`);
}

/**
 * The change stream (docs/decisions/0115-change-stream.md) measured on PostgreSQL, issue 26
 * (`BENCH_STEPS=stream`): three real server processes on one fresh database, their caches' backstop
 * at ten minutes (CACHE_MAX_AGE_MS=600000), so that nothing but the stream carries a write through
 * one process to the others.
 *
 * 1. Propagation: writes of an availability cell of the large service through each process in
 *    turn; after each, the other two are polled (GET /full, a reader's token) until the new value
 *    shows, and, in a second series, the time the SSE `catalog` event reaches a stream opened on
 *    each of the other two is taken.
 * 2. Warm read throughput: GET /full of the large service warm, wrk at 10 connections, against one
 *    process, against the three at once (summed), against a bare node:http server answering the
 *    same bytes, and next to the figure of docs/performance.json from before the change stream.
 * 3. Idle streams: 10,000 idle GET /api/events streams held by one process, its resident memory
 *    before and after (/proc/<pid>/status), and the time a write through another process takes to
 *    reach every one of them.
 *
 *   node --import tsx bench/stream.ts     BENCH_SCALE=small (50 writes, 1,000 streams), BENCH_PORT (3
 *                                         servers on it and the next two, the bare server on the
 *                                         third after it), BENCH_STREAM_DATABASE_URL, else
 *                                         DATABASE_URL, else postgres://postgres@127.0.0.1:5432
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SCALES, catalogFile, type BenchScale } from './data';
import { Client, median, percentile, type WrkResult } from './http';
import type { Figure } from './measure';
import { benchDatabase } from './memory';
import { ADMIN, checkoutAt, rawGet, rssOf, startBaseline, startServer, type RunningServer } from './server';

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

const MB = 1024 * 1024;
const PROCESSES = 3;
/** A process that was never told would never show the value: fails the bench rather than wait. */
const BOUND_MS = 5000;
const RESULTS = fileURLToPath(new URL('../docs/performance.json', import.meta.url));
const FULL_WARM = 'GET /full, large service, warm (req/s)';

type Reply = { status: number; text: string; /** The server's own time on the call (Server-Timing). */ serverMs: number };

async function send(base: string, method: string, path: string, token: string, slug: string, body?: unknown): Promise<Reply & { body: any }> {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'x-tenant-slug': slug, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON
  }
  const serverMs = Number(/dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '')?.[1] ?? NaN);
  return { status: res.status, text, body: parsed, serverMs };
}

/**
 * A GET /api/events stream that keeps no more than it needs: the time each `catalog` event arrived.
 * No agent (a connection of its own, never pooled), as a browser's EventSource has.
 */
interface LightStream {
  status: number;
  /** performance.now() of each catalog event's arrival. */
  arrivals: number[];
  onCatalog?: (at: number) => void;
  close(): void;
}

function openStream(base: string, token: string, slug: string): Promise<LightStream> {
  return new Promise((resolve, reject) => {
    let req: ClientRequest | undefined = undefined;
    req = request(
      `${base}/api/events`,
      { agent: false, headers: { accept: 'text/event-stream', authorization: `Bearer ${token}`, 'x-tenant-slug': slug } },
      (res) => {
        const stream: LightStream = { status: res.statusCode ?? 0, arrivals: [], close: () => req!.destroy() };
        let tail = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const at = performance.now();
          const text = tail + chunk;
          // Each event is one line `event: catalog`; one chunk may hold several.
          let from = 0;
          let i: number;
          while ((i = text.indexOf('event: catalog\n', from)) >= 0) {
            stream.arrivals.push(at);
            stream.onCatalog?.(at);
            from = i + 1;
          }
          tail = text.slice(Math.max(from, text.length - 16));
        });
        res.on('error', () => {});
        resolve(stream);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** wrk as bench/http.ts runs it, but without waiting: several run at once against several servers. */
function wrkAsync(url: string, headers: Record<string, string>, seconds: number, connections = 10): Promise<WrkResult> {
  const args = ['-t2', `-c${connections}`, `-d${seconds}s`, '--latency'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', [...args, url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`wrk failed: ${err}`));
      const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out);
      const unit = p99 ? { us: 0.001, ms: 1, s: 1000 }[p99[2] as 'us' | 'ms' | 's'] : 0;
      resolve({
        rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
        p99Ms: p99 ? Number(p99[1]) * unit : 0,
        non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
      });
    });
  });
}

/** The warm /full figure on PostgreSQL recorded by the api step of docs/performance.json, with its commit. */
function storedWarmFull(): { value: number; baseline?: number; commit: string; date: string; scale: string } | undefined {
  if (!existsSync(RESULTS)) return undefined;
  const api = JSON.parse(readFileSync(RESULTS, 'utf8')).api as
    { machine: { commit: string; date: string; scale: string }; results: { database: string; figures: Figure[] }[] } | undefined;
  const figure = api?.results.find((r) => r.database === 'PostgreSQL')?.figures.find((f) => f.name === FULL_WARM);
  return figure && api
    ? { value: figure.value, baseline: figure.baseline, commit: api.machine.commit, date: api.machine.date, scale: api.machine.scale }
    : undefined;
}

/**
 * The product at an older commit, running on a fresh database of its own with the large service
 * imported: `git archive` of the commit (nothing in this checkout changes), this checkout's node_modules.
 */
async function startBefore(commit: string, o: StreamOptions, work: string): Promise<{ url: string; auth: Record<string, string>; stop(): Promise<void> }> {
  const root = checkoutAt(commit, work);
  const database = await benchDatabase(o.databaseUrl, 'catalog_bench_stream_before');
  let server: RunningServer | undefined;
  try {
    server = await startServer({
      root,
      port: o.port + PROCESSES + 1,
      dataDir: join(work, 'data-before'),
      webRoot: join(work, 'no-web'),
      databaseUrl: database.url,
      env: { LOGIN_THROTTLE: 'false', CACHE_MAX_AGE_MS: '600000' },
    });
    const admin = new Client(server.url);
    await admin.signIn(ADMIN.email, ADMIN.password);
    const slug = `before-${Date.now().toString(36)}`;
    const tenant = await admin.json('POST', '/api/tenants', { name: `Before ${slug}`, slug });
    if (tenant.status !== 201) throw new Error(`creating a tenant answered ${tenant.status}`);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(catalogFile(o.scale.large))]), 'before.catalog');
    const imported = await admin.fetch('/api/services/import', { method: 'POST', headers: { 'x-tenant-slug': slug }, body: form });
    if (imported.status !== 201) throw new Error(`import answered ${imported.status}`);
    const id = ((await imported.json()) as { service: { id: string } }).service.id;
    const url = `${server.url}/api/services/${id}/full`;
    const auth = { authorization: `Bearer ${admin.token}`, 'x-tenant-slug': slug };
    if ((await rawGet(url, auth)).status !== 200) throw new Error('its /full did not answer 200');
    const running = server;
    return {
      url,
      auth,
      stop: async () => {
        await running.stop();
        await database.drop();
      },
    };
  } catch (err) {
    await server?.stop();
    await database.drop();
    throw err;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(1));

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

    // ---- 1. Propagation -------------------------------------------------------------------------
    const section1 = 'Propagation across three processes';
    const read = (i: number) => send(urls[i]!, 'GET', fullPath, tokens.reader, slug);
    const write = (i: number, n: number, value: string) =>
      send(urls[i]!, 'POST', '/api/availabilities', tokens.editor, slug, {
        aspectId: aspectIds[(n * 7) % aspectIds.length],
        timeBucket: timeline[n % timeline.length],
        value,
      });
    for (let i = 0; i < PROCESSES; i++) if ((await read(i)).status !== 200) throw new Error('the reader could not read /full');
    // A few writes not counted warm every process's write and rebuild paths.
    for (let n = 0; n < 6; n++) {
      const value = `Warm-up ${stamp} ${n}`;
      if ((await write(n % PROCESSES, n, value)).status !== 200) throw new Error('a warm-up write failed');
      for (let i = 0; i < PROCESSES; i++) {
        const start = performance.now();
        while (!(await read(i)).text.includes(value)) if (performance.now() - start > BOUND_MS) throw new Error('warm-up write not seen');
      }
    }
    o.log(`stream: propagation, ${o.writes} writes polled through /full`);
    const polled: number[] = [];
    const rebuilt: number[] = [];
    for (let n = 0; n < o.writes; n++) {
      const via = n % PROCESSES;
      const value = `Polled ${stamp} ${n}`;
      const wrote = await write(via, n, value);
      if (wrote.status !== 200) throw new Error(`write ${n} answered ${wrote.status}`);
      const answered = performance.now();
      await Promise.all(
        [0, 1, 2]
          .filter((i) => i !== via)
          .map(async (i) => {
            for (;;) {
              const reply = await read(i);
              if (reply.text.includes(value)) {
                rebuilt.push(reply.serverMs);
                return polled.push(performance.now() - answered);
              }
              if (performance.now() - answered > BOUND_MS)
                throw new Error(`write ${n} through process ${via} not seen through process ${i} within ${BOUND_MS} ms`);
              await sleep(1);
            }
          }),
      );
    }
    figures.push({
      section: section1,
      name: `Write through one process to its value in /full through the other two, p50 (ms; ${polled.length} reads)`,
      value: percentile(polled, 50),
      unit: 'ms',
    });
    figures.push({
      section: section1,
      name: 'Write through one process to its value in /full through the other two, p99 (ms)',
      value: percentile(polled, 99),
      unit: 'ms',
      target: { value: 100, atMost: true },
    });
    figures.push({
      section: section1,
      name: 'Server time of the first /full that showed the value (its body built again), p50 (ms)',
      value: percentile(rebuilt, 50),
      unit: 'ms',
    });
    figures.push({ section: section1, name: 'Server time of the first /full that showed the value, p99 (ms)', value: percentile(rebuilt, 99), unit: 'ms' });
    o.log(`stream: rebuild server time p50 ${fmt(percentile(rebuilt, 50))} ms, p99 ${fmt(percentile(rebuilt, 99))}`);
    o.log(`stream: /full p50 ${fmt(percentile(polled, 50))} ms, p99 ${fmt(percentile(polled, 99))} ms, max ${fmt(Math.max(...polled))}`);

    o.log(`stream: propagation, ${o.writes} writes heard on SSE streams`);
    const listeners = await Promise.all(urls.map((u) => openStream(u, tokens.reader, slug)));
    streams.push(...listeners);
    if (listeners.some((s) => s.status !== 200)) throw new Error(`GET /api/events answered ${listeners.map((s) => s.status).join(', ')}`);
    await sleep(200);
    const fromAnswer: number[] = [];
    const fromSent: number[] = [];
    let before = 0;
    for (let n = 0; n < o.writes; n++) {
      const via = n % PROCESSES;
      const others = listeners.filter((_, i) => i !== via);
      const marks = others.map((s) => s.arrivals.length);
      const ownMark = listeners[via]!.arrivals.length;
      const sent = performance.now();
      const wrote = await write(via, n, `Streamed ${stamp} ${n}`);
      const answered = performance.now();
      if (wrote.status !== 200) throw new Error(`write ${n} answered ${wrote.status}`);
      await Promise.all(
        others.map(async (s, k) => {
          const start = performance.now();
          while (s.arrivals.length <= marks[k]!) {
            if (performance.now() - start > BOUND_MS) throw new Error(`write ${n}: no catalog event within ${BOUND_MS} ms`);
            await sleep(1);
          }
          const at = s.arrivals[marks[k]!]!;
          if (at < answered) before++;
          fromAnswer.push(Math.max(0, at - answered));
          fromSent.push(at - sent);
        }),
      );
      // The stream of the process written through hears its own write too: not counted, but awaited,
      // so that it is not taken for the next write's event.
      const own = listeners[via]!;
      const start = performance.now();
      while (own.arrivals.length <= ownMark) {
        if (performance.now() - start > BOUND_MS) throw new Error(`write ${n}: its own process sent no catalog event`);
        await sleep(1);
      }
    }
    figures.push({
      section: section1,
      name: `Write's answer to the SSE catalog event on the other two processes, p50 (ms; ${fromAnswer.length} events)`,
      value: percentile(fromAnswer, 50),
      unit: 'ms',
    });
    figures.push({
      section: section1,
      name: "Write's answer to the SSE catalog event on the other two processes, p99 (ms)",
      value: percentile(fromAnswer, 99),
      unit: 'ms',
      target: { value: 100, atMost: true },
    });
    figures.push({
      section: section1,
      name: 'Write sent to the SSE catalog event on the other two processes, p99 (ms)',
      value: percentile(fromSent, 99),
      unit: 'ms',
    });
    notes.push(
      `Propagation: ${o.writes} writes of a cell of the large service (each its own aspect and quarter and text), through the three processes in turn, each after the previous one was seen; ` +
        `the reader's GET /full (as fetch sends it, gzip accepted) on the other two is polled from the write's answer until it holds the new text: that includes building the body again ` +
        `(another process's write: one statement builds it whole) and the transfer. Then ${o.writes} more writes, each heard on a stream (GET /api/events, the reader) open on each of the ` +
        `other two processes, timed from the write's answer to the event's arrival (${before} of ${fromAnswer.length} events arrived before the write's answer: counted as 0 ms); ` +
        `from the write being sent, p50 ${fmt(percentile(fromSent, 50))} ms. Six writes before these, not counted, warm every process's paths.`,
    );
    o.log(`stream: SSE p50 ${fmt(percentile(fromAnswer, 50))} ms, p99 ${fmt(percentile(fromAnswer, 99))} ms (from the answer)`);

    // ---- 2. Warm read throughput ------------------------------------------------------------------
    const section2 = 'Warm read throughput with the change stream';
    // As the api step measures it: the super admin's plain /full of the large service.
    const auth = { authorization: `Bearer ${admin.token}`, 'x-tenant-slug': slug };
    for (const u of urls) {
      const res = await rawGet(u + fullPath, auth);
      if (res.status !== 200) throw new Error(`warm /full answered ${res.status}`);
    }
    const body = await rawGet(urls[0]! + fullPath, auth);
    const file = join(work, 'full.json');
    writeFileSync(file, body.body);
    const skip = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
    writeFileSync(
      `${file}.headers.json`,
      JSON.stringify(
        Object.fromEntries(
          Object.entries(body.headers)
            .filter(([k]) => !skip.has(k))
            .map(([k, v]) => [k, String(v)]),
        ),
      ),
    );
    const baseline = await startBaseline(o.port + PROCESSES, [file]);
    // The commit the stored figure came from, run now next to this one (same machine, same minutes).
    const beforeCommit = o.before ?? stored?.commit;
    const old = beforeCommit
      ? await startBefore(beforeCommit, o, work).catch((err: unknown) => {
          notes.push(`The server at ${beforeCommit} could not be run next to this one (${String(err).split('\n')[0]}): no same-run comparison.`);
          return undefined;
        })
      : undefined;
    const then: number[] = [];
    const abNow: number[] = [];
    const AB_PAIRS = o.scaleName === 'small' ? 2 : 8;
    const AB_SECONDS = o.scaleName === 'small' ? 2 : 3;
    const one: number[] = [];
    const bare: number[] = [];
    const three: number[] = [];
    const threeEach: number[][] = [];
    try {
      o.log(`stream: warm GET /full throughput, ${o.runs} runs of ${o.seconds} s (one process, the bare server, three processes)`);
      for (let r = -1; r < o.runs; r++) {
        const single = await wrkAsync(urls[0]! + fullPath, auth, o.seconds);
        const bareRun = await wrkAsync(`${baseline.url}/0`, auth, o.seconds);
        const all = await Promise.all(urls.map((u) => wrkAsync(u + fullPath, auth, o.seconds)));
        for (const x of [single, ...all]) if (x.non2xx) throw new Error(`warm /full: ${x.non2xx} failed responses`);
        if (r < 0) continue;
        one.push(single.rps);
        bare.push(bareRun.rps);
        three.push(all.reduce((s, x) => s + x.rps, 0));
        threeEach.push(all.map((x) => x.rps));
      }
      // The same-run comparison: this commit's first process and the older one take turns, in
      // pairs of short runs whose order alternates; the figure is the median of the pairs' ratios,
      // which a shared machine's load moves less than it moves either figure.
      if (old) {
        o.log(`stream: ${AB_PAIRS} alternating pairs against ${beforeCommit}`);
        for (let r = -1; r < AB_PAIRS; r++) {
          const runNow = () => wrkAsync(urls[0]! + fullPath, auth, AB_SECONDS);
          const runThen = () => wrkAsync(old.url, old.auth, AB_SECONDS);
          const [a, b] = r % 2 ? [await runThen(), await runNow()] : [await runNow(), await runThen()];
          const [x, y] = r % 2 ? [b, a] : [a, b];
          if (x.non2xx || y.non2xx) throw new Error(`warm /full: ${x.non2xx + y.non2xx} failed responses`);
          if (r < 0) continue;
          abNow.push(x.rps);
          then.push(y.rps);
        }
      }
    } finally {
      await baseline.stop();
      await old?.stop();
    }
    const oneNow = median(one);
    const bareNow = median(bare);
    figures.push({ section: section2, name: 'GET /full warm, one process (req/s)', value: oneNow, unit: 'req/s' });
    figures.push({ section: section2, name: 'GET /full warm, the bare node:http server, same bytes, same run (req/s)', value: bareNow, unit: 'req/s' });
    figures.push({ section: section2, name: 'GET /full warm, three processes at once, summed (req/s)', value: median(three), unit: 'req/s' });
    figures.push({ section: section2, name: 'Three processes summed, as a share of one (%)', value: (100 * median(three)) / oneNow, unit: '%' });
    if (old && then.length) {
      const ratios = then.map((t, i) => (100 * abNow[i]!) / t);
      figures.push({ section: section2, name: `GET /full warm, one process now, in the pairs below (req/s; median)`, value: median(abNow), unit: 'req/s' });
      figures.push({
        section: section2,
        name: `GET /full warm, one process at ${beforeCommit} (before the change stream), in the same pairs (req/s; median)`,
        value: median(then),
        unit: 'req/s',
      });
      figures.push({
        section: section2,
        name: `One process now, as a share of ${beforeCommit}'s: median of ${ratios.length} pairs (%)`,
        value: median(ratios),
        unit: '%',
        target: { value: 90, atMost: false },
      });
      notes.push(
        `Same-run comparison: the product at ${beforeCommit} (git archive of that commit, this checkout's node_modules) ran on a fresh database of its own with the same tenant, large service and CACHE_MAX_AGE_MS, ` +
          `and wrk took turns between it and this commit's first process, ${then.length} pairs of ${AB_SECONDS} s runs (after a pair not counted), the order alternating; ` +
          `per pair, now / ${beforeCommit}: ${then.map((t, i) => `${abNow[i]!.toFixed(0)} / ${t.toFixed(0)}`).join(', ')} req/s.`,
      );
    }
    // Another scale has another large service: its figure is shown, not held against this one;
    // with a same-run comparison, the stored figure (another day, another machine load) is shown only.
    const comparable = stored?.scale === o.scaleName && !(old && then.length);
    if (stored && old && then.length)
      notes.push(
        `The figure stored in docs/performance.json (${stored.commit}, another day and machine load) is shown next to it; the target is checked on the same-run comparison.`,
      );
    else if (stored && !comparable)
      notes.push(`The stored figure was measured at ${stored.scale} scale, this one at ${o.scaleName}: another body, so no target is checked against it.`);
    if (stored) {
      figures.push({
        section: section2,
        name: `GET /full warm, PostgreSQL, docs/performance.json before the change stream (req/s; ${stored.commit})`,
        value: stored.value,
        unit: 'req/s',
      });
      figures.push({
        section: section2,
        name: `One process now, as a share of the figure of ${stored.commit} (%)`,
        value: (100 * oneNow) / stored.value,
        unit: '%',
        ...(comparable ? { target: { value: 90, atMost: false } } : {}),
      });
      if (stored.baseline) {
        const then = stored.value / stored.baseline;
        const now = oneNow / bareNow;
        figures.push({
          section: section2,
          name: `One process's share of the bare server now (${(now * 100).toFixed(0)}%), as a share of ${stored.commit}'s (${(then * 100).toFixed(0)}%) (%)`,
          value: (100 * now) / then,
          unit: '%',
          ...(comparable ? { target: { value: 90, atMost: false } } : {}),
        });
      }
    } else {
      notes.push('docs/performance.json holds no api figure on PostgreSQL to compare with.');
    }
    notes.push(
      `Warm throughput: wrk at 10 connections (2 threads) for ${o.seconds} s a run, median of ${o.runs} runs after one not counted, GET /full of the large service as the api step asks it ` +
        `(the super admin, plain JSON of ${(body.body.length / 1024).toFixed(0)} KB; here with an x-tenant-slug header too), all three processes following the change stream. ` +
        `"One process": wrk against the first while the other two are idle; "three": one wrk against each process at once (per process, median run: ` +
        `${(threeEach[Math.floor(threeEach.length / 2)] ?? []).map((x) => x.toFixed(0)).join(', ')} req/s). The machine has ${cpus().length} cores, shared by the processes, ` +
        `the three wrk and PostgreSQL: three processes cannot serve more than the cores allow.` +
        (stored
          ? ` The stored figure is the api step's on PostgreSQL measured at ${stored.commit} (${stored.date}), before the change stream; its bare server answered ${fmt(stored.baseline ?? 0)} req/s then, ${fmt(bareNow)} now.`
          : ''),
    );
    o.log(
      `stream: one ${fmt(oneNow)} req/s (bare ${fmt(bareNow)}), three ${fmt(median(three))}; stored ${stored ? `${fmt(stored.value)} at ${stored.commit}` : 'none'}`,
    );

    // ---- 3. Idle streams on one process --------------------------------------------------------------
    const section3 = `${o.streams.toLocaleString('en')} idle streams on one process`;
    for (const s of listeners) s.close();
    streams.length = 0;
    const target = servers[1]!;
    await sleep(2000);
    const rssBefore = rssOf(target.pid);
    o.log(`stream: opening ${o.streams} idle streams on process 2 (RSS ${fmt(rssBefore / MB)} MB)`);
    const openStarted = performance.now();
    const BATCH = 200;
    let refused = 0;
    for (let opened = 0; opened < o.streams; opened += BATCH) {
      const batch = await Promise.all(Array.from({ length: Math.min(BATCH, o.streams - opened) }, () => openStream(target.url, tokens.reader, slug)));
      for (const s of batch) {
        if (s.status === 200) streams.push(s);
        else refused++;
      }
    }
    const openSeconds = (performance.now() - openStarted) / 1000;
    if (refused) throw new Error(`${refused} streams were refused`);
    await sleep(3000);
    const rssAfter = rssOf(target.pid);
    const added = (rssAfter - rssBefore) / MB;
    figures.push({
      section: section3,
      name: `Server RSS added by ${o.streams.toLocaleString('en')} idle streams (MB)`,
      value: added,
      unit: 'MB',
      target: { value: (300 * o.streams) / 10_000, atMost: true },
    });
    figures.push({ section: section3, name: 'Server RSS added per stream (KB)', value: (added * 1024) / o.streams, unit: 'KB' });
    o.log(`stream: ${streams.length} open in ${openSeconds.toFixed(1)} s; RSS ${fmt(rssBefore / MB)} -> ${fmt(rssAfter / MB)} MB (+${fmt(added)})`);

    // A write through another process while they are all open: the time to each of them.
    const deliveries: number[] = [];
    const lasts: number[] = [];
    const WRITES = 3;
    for (let w = 0; w < WRITES; w++) {
      const marks = streams.map((s) => s.arrivals.length);
      const wrote = await write(0, 1000 + w, `Fan-out ${stamp} ${w}`);
      const answered = performance.now();
      if (wrote.status !== 200) throw new Error(`the fan-out write answered ${wrote.status}`);
      const start = performance.now();
      while (streams.some((s, i) => s.arrivals.length <= marks[i]!)) {
        if (performance.now() - start > 30_000)
          throw new Error(`fan-out write ${w}: ${streams.filter((s, i) => s.arrivals.length <= marks[i]!).length} streams got nothing within 30 s`);
        await sleep(5);
      }
      const times = streams.map((s, i) => Math.max(0, s.arrivals[marks[i]!]! - answered));
      deliveries.push(...times);
      lasts.push(Math.max(...times));
      o.log(`stream: fan-out write ${w}: p50 ${fmt(percentile(times, 50))} ms, p99 ${fmt(percentile(times, 99))}, last ${fmt(Math.max(...times))}`);
      await sleep(500);
    }
    const rssAfterWrites = rssOf(target.pid);
    figures.push({
      section: section3,
      name: `Server RSS added, after ${WRITES} writes reached every stream (MB)`,
      value: (rssAfterWrites - rssBefore) / MB,
      unit: 'MB',
      target: { value: (300 * o.streams) / 10_000, atMost: true },
    });
    figures.push({
      section: section3,
      name: `A write through another process to each of the ${o.streams.toLocaleString('en')} streams, p50 (ms)`,
      value: percentile(deliveries, 50),
      unit: 'ms',
    });
    figures.push({
      section: section3,
      name: `A write through another process to each of the ${o.streams.toLocaleString('en')} streams, p99 (ms)`,
      value: percentile(deliveries, 99),
      unit: 'ms',
    });
    figures.push({
      section: section3,
      name: 'A write through another process to the last of the streams (ms; median of 3 writes)',
      value: median(lasts),
      unit: 'ms',
    });
    notes.push(
      `Idle streams: ${o.streams.toLocaleString('en')} GET /api/events streams (the reader, one connection each, no agent, over loopback from one client process) opened on the second process in batches of ${BATCH} ` +
        `(${openSeconds.toFixed(1)} s in all); its resident memory read from /proc/<pid>/status before (${fmt(rssBefore / MB)} MB) and 3 s after the last one opened (${fmt(rssAfter / MB)} MB), ` +
        `${fmt(rssAfterWrites / MB)} MB after the writes below. Then ${WRITES} writes through the first process, each timed from its answer to the catalog event's arrival on every stream; ` +
        `the client process reading all the streams is part of that time (every figure counted: ${deliveries.length}).`,
    );
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

/**
 * Memory and event loop under a mixed load: reads and writes at a fixed rate for a set time (5
 * minutes by default) against the real server process, on the bench tenant (200 services, the
 * 600-aspect service) and a few smaller tenants. Every few seconds it reads the server's own
 * figures (GET /api/metrics, super admins only, present with BENCH_METRICS=1): resident memory
 * (RSS), heap, and the event loop's longest delay since the previous read.
 *
 *   node --import tsx bench/memory.ts          BENCH_MEMORY_SECONDS (default 300), BENCH_MEMORY_RATE
 *                                              (operations started per second, default 20),
 *                                              BENCH_PORT, DATABASE_URL (a fresh database next to it)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { SCALES, buildTenant, catalogFile, type BenchScale } from './data';
import { Client, median, percentile } from './http';
import type { Figure } from './measure';
import { ADMIN, rssOf, startServer } from './server';

export interface MemoryOptions {
  scale: BenchScale;
  seconds: number;
  /** Operations started per second, whatever the answers' speed (at most MAX_IN_FLIGHT at once). */
  rate: number;
  /** Tenants besides the bench tenant, each with one imported service. */
  tenants: number;
  /** Seconds between two reads of the server's figures. */
  sampleSeconds: number;
  port: number;
  databaseUrl?: string;
  log: (line: string) => void;
}

export interface MemorySample {
  /** Seconds since the load started. */
  t: number;
  rssMb: number;
  heapMb: number;
  /** The event loop's longest delay since the previous sample. */
  stallMs: number;
}

const MB = 1024 * 1024;
const MAX_IN_FLIGHT = 64;

interface Target {
  slug?: string;
  serviceId: string;
  aspectIds: string[];
  categoryIds: string[];
  timeline: string[];
}

type Operation = { name: string; weight: number; write: boolean; run: (n: number) => Promise<number[]> };

/** Sends a request in a tenant (the caller's own when `slug` is unset) and answers its status. */
async function send(client: Client, method: string, path: string, slug: string | undefined, body?: unknown): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = slug ? { 'x-tenant-slug': slug } : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await client.fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null };
}

async function targetOf(client: Client, serviceId: string, slug?: string): Promise<Target> {
  const full = (await send(client, 'GET', `/api/services/${serviceId}/full`, slug)).body;
  return {
    slug,
    serviceId,
    aspectIds: full.resolved_data.aspects.map((a: { id: string }) => a.id),
    categoryIds: full.categories.map((c: { id: string }) => c.id),
    timeline: full.resolved_data.timeline,
  };
}

/** A tenant with one imported service of `aspects` aspects. */
async function smallTenant(client: Client, i: number, stamp: string, aspects: number): Promise<{ slug: string; serviceId: string }> {
  const slug = `memory-${stamp}-${i}`;
  const tenant = await send(client, 'POST', '/api/tenants', undefined, { name: `Memory ${i}`, slug });
  if (tenant.status !== 201) throw new Error(`creating a tenant answered ${tenant.status}`);
  const form = new FormData();
  form.append(
    'file',
    new Blob([new Uint8Array(catalogFile({ name: `Tenant ${i} service`, categories: Math.max(1, aspects / 20), aspects, quarters: 12 }))]),
    'memory.catalog',
  );
  const res = await client.fetch('/api/services/import', { method: 'POST', headers: { 'x-tenant-slug': slug }, body: form });
  if (res.status !== 201) throw new Error(`import answered ${res.status}: ${await res.text()}`);
  const { service } = (await res.json()) as { service: { id: string } };
  return { slug, serviceId: service.id };
}

/** CPU time (user and system) a process has used, in seconds (Linux). */
function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const pick = <T>(list: T[], n: number): T => list[n % list.length]!;

/** The mix: mostly reads of the large service and the service list, with every kind of catalog write. */
function operations(client: Client, large: Target, others: Target[]): Operation[] {
  const other = (n: number) => pick(others, n);
  const status = async (p: Promise<{ status: number }>) => [(await p).status];
  return [
    { name: 'GET /full, large service', weight: 20, write: false, run: () => status(send(client, 'GET', `/api/services/${large.serviceId}/full`, large.slug)) },
    { name: 'GET /services, bench tenant', weight: 12, write: false, run: () => status(send(client, 'GET', '/api/services', large.slug)) },
    {
      name: 'GET /full, other tenants',
      weight: 10,
      write: false,
      run: (n) => status(send(client, 'GET', `/api/services/${other(n).serviceId}/full`, other(n).slug)),
    },
    { name: 'GET /services, other tenants', weight: 5, write: false, run: (n) => status(send(client, 'GET', '/api/services', other(n).slug)) },
    {
      name: 'set availability, large service',
      weight: 22,
      write: true,
      run: (n) =>
        status(
          send(client, 'POST', '/api/availabilities', large.slug, {
            aspectId: pick(large.aspectIds, n * 7),
            timeBucket: pick(large.timeline, n),
            value: `Load ${n}`,
          }),
        ),
    },
    {
      name: 'set availability, other tenants',
      weight: 10,
      write: true,
      run: (n) => {
        const t = other(n);
        return status(
          send(client, 'POST', '/api/availabilities', t.slug, { aspectId: pick(t.aspectIds, n * 3), timeBucket: pick(t.timeline, n), value: `Load ${n}` }),
        );
      },
    },
    {
      name: 'edit aspect, large service',
      weight: 12,
      write: true,
      run: (n) =>
        status(
          send(client, 'PUT', `/api/aspects/${pick(large.aspectIds, n * 11)}`, large.slug, {
            title: `Aspect edited ${n % 97}`,
            description: `<p>Edited <strong>${n}</strong> times</p>`,
          }),
        ),
    },
    {
      name: 'create and delete aspect, other tenants',
      weight: 6,
      write: true,
      run: async (n) => {
        const t = other(n);
        const created = await send(client, 'POST', '/api/aspects', t.slug, {
          serviceId: t.serviceId,
          categoryId: pick(t.categoryIds, n),
          title: `Short-lived ${n}`,
          description: '<p>x</p>',
        });
        if (created.status !== 201) return [created.status];
        return [created.status, (await send(client, 'DELETE', `/api/aspects/${created.body.aspect.id}`, t.slug)).status];
      },
    },
  ];
}

/** Runs the mixed load on a running server and samples its figures; answers the samples and the request statistics. */
async function load(client: Client, pid: number, ops: Operation[], o: MemoryOptions) {
  const totalWeight = ops.reduce((s, op) => s + op.weight, 0);
  const chooser = (n: number) => {
    let x = (n * 7919) % totalWeight;
    for (const op of ops) {
      if (x < op.weight) return op;
      x -= op.weight;
    }
    return ops[0]!;
  };
  const readMetrics = async () => {
    const res = await send(client, 'GET', '/api/metrics', undefined);
    if (res.status !== 200) throw new Error(`GET /api/metrics answered ${res.status}: is BENCH_METRICS=1 set?`);
    return res.body as { rss_bytes: number; heap_used_bytes: number; event_loop: { max_ms: number } };
  };
  const latencies = { read: [] as number[], write: [] as number[] };
  const errors: string[] = [];
  let requests = 0;
  let skipped = 0;
  const samples: MemorySample[] = [];
  const pending = new Set<Promise<void>>();
  await readMetrics(); // restarts the event-loop histogram: the samples cover the load only
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  let n = 0;
  let nextSample = o.sampleSeconds;
  while (elapsed() < o.seconds) {
    const wait = started + (n * 1000) / o.rate - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (elapsed() >= nextSample) {
      const m = await readMetrics();
      const procRss = rssOf(pid) / MB;
      samples.push({ t: elapsed(), rssMb: procRss || m.rss_bytes / MB, heapMb: m.heap_used_bytes / MB, stallMs: m.event_loop.max_ms });
      nextSample += o.sampleSeconds;
      if (samples.length % Math.max(1, Math.round(30 / o.sampleSeconds)) === 0) {
        o.log(
          `  ${elapsed().toFixed(0)} s: RSS ${procRss.toFixed(0)} MB, heap ${(m.heap_used_bytes / MB).toFixed(0)} MB, ${requests} requests, ${errors.length} errors, ${pending.size} in flight`,
        );
      }
    }
    const number = n++;
    if (pending.size >= MAX_IN_FLIGHT) {
      skipped++;
      continue;
    }
    const op = chooser(number);
    const t0 = performance.now();
    const p: Promise<void> = op
      .run(number)
      .then((statuses) => {
        requests += statuses.length;
        for (const s of statuses) if (s < 200 || s >= 300) errors.push(`${op.name}: ${s}`);
      })
      .catch((err: unknown) => {
        requests++;
        errors.push(`${op.name}: ${String(err)}`);
      })
      .finally(() => {
        (op.write ? latencies.write : latencies.read).push(performance.now() - t0);
        pending.delete(p);
      });
    pending.add(p);
  }
  await Promise.all(pending);
  const m = await readMetrics();
  samples.push({ t: elapsed(), rssMb: rssOf(pid) / MB || m.rss_bytes / MB, heapMb: m.heap_used_bytes / MB, stallMs: m.event_loop.max_ms });
  return { samples, latencies, errors, requests, skipped };
}

/** The summary figures of a run's samples: RSS over the first and the last window, and the longest stall. */
export function summarise(samples: MemorySample[], seconds: number) {
  const window = Math.min(60, seconds / 5);
  const mean = (list: MemorySample[]) => list.reduce((s, x) => s + x.rssMb, 0) / Math.max(1, list.length);
  const first = samples.filter((s) => s.t <= window);
  const last = samples.filter((s) => s.t > seconds - window);
  const firstMb = mean(first);
  const lastMb = mean(last);
  return {
    window,
    firstMb,
    lastMb,
    changePercent: (lastMb / firstMb - 1) * 100,
    maxMb: Math.max(...samples.map((s) => s.rssMb)),
    longestStallMs: Math.max(...samples.map((s) => s.stallMs)),
    medianStallMs: median(samples.map((s) => s.stallMs)),
  };
}

/** Starts the server on a fresh data directory (and the given database), builds the data, runs the load. */
export async function measureMemory(o: MemoryOptions): Promise<{ figures: Figure[]; notes: string[]; samples: MemorySample[] }> {
  const work = mkdtempSync(join(tmpdir(), 'catalog-memory-'));
  const settings = { port: o.port, dataDir: join(work, 'data'), webRoot: join(work, 'no-web'), databaseUrl: o.databaseUrl };
  let server = await startServer(settings);
  try {
    let client = new Client(server.url);
    await client.signIn(ADMIN.email, ADMIN.password);
    o.log('building the bench tenant and the other tenants through the API');
    const tenant = await buildTenant(client, o.scale);
    const stamp = randomBytes(3).toString('hex');
    const otherIds: { slug: string; serviceId: string }[] = [];
    for (let i = 0; i < o.tenants; i++) otherIds.push(await smallTenant(client, i, stamp, o.scale.large.aspects / 10));
    // A new process on the data just built: the load starts from a server as it runs, not from
    // one still holding the garbage of building a 6,000-aspect service.
    await server.stop();
    server = await startServer(settings);
    client = new Client(server.url);
    await client.signIn(ADMIN.email, ADMIN.password);
    const large = await targetOf(client, tenant.largeId);
    const others: Target[] = [];
    for (const t of otherIds) others.push(await targetOf(client, t.serviceId, t.slug));
    const startMb = rssOf(server.pid) / MB;
    const cpuBefore = cpuSecondsOf(server.pid);
    o.log(`mixed load: ${o.seconds} s at ${o.rate} operations/s, RSS and event loop every ${o.sampleSeconds} s`);
    const ops = operations(client, large, others);
    const run = await load(client, server.pid, ops, o);
    const cpuShare = (cpuSecondsOf(server.pid) - cpuBefore) / o.seconds;
    const loadAfter = loadavg()[0]!.toFixed(1);
    const s = summarise(run.samples, o.seconds);
    const w = s.window >= 60 ? 'minute' : `${s.window.toFixed(0)} s`;
    const figures: Figure[] = [
      { name: `RSS, mean over the first ${w} (MB)`, value: s.firstMb, unit: 'MB' },
      { name: `RSS, mean over the last ${w} (MB)`, value: s.lastMb, unit: 'MB' },
      { name: `RSS change, first to last ${w} (%)`, value: s.changePercent, unit: '%', target: { value: 10, atMost: true, within: true } },
      { name: 'RSS, highest sample (MB)', value: s.maxMb, unit: 'MB' },
      { name: 'Longest event-loop delay under the mixed load (ms)', value: s.longestStallMs, unit: 'ms' },
      { name: `Event-loop delay, median of the ${o.sampleSeconds}-second maxima (ms)`, value: s.medianStallMs, unit: 'ms' },
    ];
    const p = (list: number[], q: number) => (list.length ? percentile(list, q).toFixed(0) : '-');
    const share = (write: boolean) =>
      Math.round((100 * ops.filter((op) => op.write === write).reduce((a, op) => a + op.weight, 0)) / ops.reduce((a, op) => a + op.weight, 0));
    const notes = [
      `RSS ${startMb.toFixed(0)} MB when the load started (a new server process on the data built for it); the server used ${(cpuShare * 100).toFixed(0)}% of one core on average; load average ${loadAfter} at the end.`,
      `${o.seconds} s at ${o.rate} operations/s (${share(false)}% reads of /full and /services, ${share(true)}% writes: availabilities, aspect edits, aspects created and deleted) ` +
        `in the bench tenant and ${o.tenants} other tenants; ${run.requests} requests, ${run.errors.length} errors${run.skipped ? `, ${run.skipped} operations skipped with ${MAX_IN_FLIGHT} in flight` : ''}.`,
      `Latency: reads p50 ${p(run.latencies.read, 50)} ms, p99 ${p(run.latencies.read, 99)} ms; writes p50 ${p(run.latencies.write, 50)} ms, p99 ${p(run.latencies.write, 99)} ms.`,
      `RSS (MB) every ${o.sampleSeconds * Math.max(1, Math.round(30 / o.sampleSeconds))} s: ${run.samples
        .filter((_, i) => (i + 1) % Math.max(1, Math.round(30 / o.sampleSeconds)) === 0)
        .map((x) => x.rssMb.toFixed(0))
        .join(', ')}.`,
    ];
    if (run.errors.length) notes.push(`First errors: ${[...new Set(run.errors)].slice(0, 5).join('; ')}.`);
    return { figures, notes, samples: run.samples };
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** A fresh PostgreSQL database next to `base`, named for this step, dropped by the returned function. */
export async function benchDatabase(base: string, prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = async (text: string) => {
    const c = new pg.Client({ connectionString: base });
    await c.connect();
    try {
      await c.query(text);
    } finally {
      await c.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

export function memoryOptionsFromEnv(log: (line: string) => void): Omit<MemoryOptions, 'databaseUrl'> {
  return {
    scale: SCALES[process.env.BENCH_SCALE === 'small' ? 'small' : 'full'],
    seconds: Number(process.env.BENCH_MEMORY_SECONDS ?? 300),
    rate: Number(process.env.BENCH_MEMORY_RATE ?? 20),
    tenants: 3,
    sampleSeconds: 5,
    port: Number(process.env.BENCH_PORT ?? 3190),
    log,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const log = (line: string) => console.log(`[bench] ${line}`);
  const options = memoryOptionsFromEnv(log);
  const database = process.env.DATABASE_URL ? await benchDatabase(process.env.DATABASE_URL, 'catalog_bench_memory') : null;
  try {
    const result = await measureMemory({ ...options, databaseUrl: database?.url });
    for (const f of result.figures) console.log(`${f.name}: ${f.value.toFixed(1)}`);
    for (const n of result.notes) console.log(`- ${n}`);
  } finally {
    await database?.drop();
  }
}

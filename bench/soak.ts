/**
 * Soak: a fixed-rate mixed load (reads and writes of every kind, in several tenants) against the
 * real server process for a set time. Reports errors (any answer other than the expected 2xx, or a
 * failed connection), latency, and the server's resident memory (RSS) at minute 1 and at the end.
 *
 *   node --import tsx bench/soak.ts                  10 minutes at 20 operations/s, embedded database
 *   node --import tsx bench/soak.ts --seconds 60 --rate 20
 *   SOAK_DATABASE_URL=postgres://… node --import tsx bench/soak.ts   on a fresh PostgreSQL database
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { defaultTimeline } from '../common/quarters';
import { ApiClient, createPostgresDatabase, startServer, stopServer } from '../server/test/reliability/server';

export interface SoakOptions {
  seconds: number;
  /** Requests started per second, whatever the answers' speed. */
  rate: number;
  tenants: number;
  port: number;
  /** Base PostgreSQL URL: a fresh database is created next to it; unset uses the embedded database. */
  databaseUrl?: string;
  /** When RSS is first reported (seconds); the 10-minute run reports minute 1. */
  warmSeconds?: number;
  log?: (line: string) => void;
}

export interface SoakResult {
  requests: number;
  errors: number;
  errorSamples: string[];
  byOperation: Record<string, { count: number; errors: number; p50: number; p95: number; max: number }>;
  rssWarmMb: number;
  rssEndMb: number;
  rssMaxMb: number;
  warmSeconds: number;
  seconds: number;
}

interface TenantData {
  slug: string;
  serviceId: string;
  categoryIds: string[];
  aspects: Array<{ id: string; version: number }>;
}

type Op = { name: string; weight: number; run: (api: ApiClient, t: TenantData, n: number) => Promise<number[]> };

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}

/** Quarters of the soak services' default timeline: a write outside a service's timeline is refused. */
const QUARTERS = defaultTimeline().slice(0, 4);
const pick = <T>(list: T[], n: number) => list[n % list.length];

/** The mix: mostly reads, as people use the catalog, with every kind of write. */
const OPERATIONS: Op[] = [
  { name: 'list services', weight: 10, run: async (api, t) => [(await api.request('GET', '/api/services', undefined, h(t))).status] },
  { name: 'catalog (full)', weight: 15, run: async (api, t) => [(await api.request('GET', `/api/services/${t.serviceId}/full`, undefined, h(t))).status] },
  {
    name: 'aspects of service',
    weight: 5,
    run: async (api, t) => [(await api.request('GET', `/api/aspects/service/${t.serviceId}?showPrivate=true`, undefined, h(t))).status],
  },
  {
    name: 'availability history',
    weight: 5,
    run: async (api, t, n) => [(await api.request('GET', `/api/availabilities/aspect/${pick(t.aspects, n).id}/history`, undefined, h(t))).status],
  },
  { name: 'session', weight: 5, run: async (api, t) => [(await api.request('GET', '/api/auth/me', undefined, h(t))).status] },
  { name: 'csv export', weight: 2, run: async (api, t) => [(await api.request('GET', `/api/export/service/${t.serviceId}/csv`, undefined, h(t))).status] },
  {
    name: 'set availability',
    weight: 20,
    run: async (api, t, n) => [
      (await api.request('POST', '/api/availabilities', { aspectId: pick(t.aspects, n).id, timeBucket: pick(QUARTERS, n), value: `Soak ${n}` }, h(t))).status,
    ],
  },
  {
    name: 'edit aspect',
    weight: 8,
    run: async (api, t, n) => {
      const aspect = pick(t.aspects, n);
      const res = await api.request(
        'PUT',
        `/api/aspects/${aspect.id}`,
        { title: `Soak aspect ${aspect.id.slice(0, 8)}`, description: `<p>Edited <strong>${n}</strong></p>` },
        h(t),
      );
      if (res.status === 200) aspect.version = res.body.aspect.version;
      return [res.status];
    },
  },
  {
    name: 'create and delete aspect',
    weight: 4,
    run: async (api, t, n) => {
      const created = await api.request(
        'POST',
        '/api/aspects',
        { serviceId: t.serviceId, categoryId: pick(t.categoryIds, n), title: `Short-lived ${n}`, description: '<p>x</p>' },
        h(t),
      );
      if (created.status !== 201) return [created.status];
      return [created.status, (await api.request('DELETE', `/api/aspects/${created.body.aspect.id}`, undefined, h(t))).status];
    },
  },
  {
    name: 'create, rename and delete category',
    weight: 2,
    run: async (api, t, n) => {
      const created = await api.request('POST', '/api/categories', { serviceId: t.serviceId, name: `Soak category ${n}` }, h(t));
      if (created.status !== 201) return [created.status];
      const id = created.body.category.id;
      const renamed = await api.request('PUT', `/api/categories/${id}`, { name: `Renamed ${n}` }, h(t));
      return [created.status, renamed.status, (await api.request('DELETE', `/api/categories/${id}`, undefined, h(t))).status];
    },
  },
  {
    name: 'edit service',
    weight: 3,
    run: async (api, t, n) => [
      (await api.request('PUT', `/api/services/${t.serviceId}`, { name: `Soak service ${t.slug}`, description: `<p>Revision ${n}</p>` }, h(t))).status,
    ],
  },
];

const h = (t: TenantData) => ({ 'x-tenant-slug': t.slug });

async function setUp(api: ApiClient, count: number, stamp: string): Promise<TenantData[]> {
  const out: TenantData[] = [];
  for (let i = 0; i < count; i++) {
    const slug = `soak-${stamp}-${i}`;
    const tenant = await api.request('POST', '/api/tenants', { name: `Soak ${i}`, slug });
    if (tenant.status !== 201) throw new Error(`creating a tenant failed: ${tenant.status} ${JSON.stringify(tenant.body)}`);
    const service = await api.request('POST', '/api/services', { name: `Soak service ${slug}`, slug: 'soak-service' }, { 'x-tenant-slug': slug });
    if (service.status !== 201) throw new Error(`creating a service failed: ${service.status} ${JSON.stringify(service.body)}`);
    const serviceId = service.body.service.id as string;
    const categoryIds: string[] = [];
    const aspects: TenantData['aspects'] = [];
    for (let c = 0; c < 3; c++) {
      const category = await api.request('POST', '/api/categories', { serviceId, name: `Category ${c}` }, { 'x-tenant-slug': slug });
      categoryIds.push(category.body.category.id);
      for (let a = 0; a < 5; a++) {
        const aspect = await api.request(
          'POST',
          '/api/aspects',
          { serviceId, categoryId: category.body.category.id, title: `Aspect ${c}.${a}`, isPublic: a % 2 === 0 },
          { 'x-tenant-slug': slug },
        );
        aspects.push({ id: aspect.body.aspect.id, version: aspect.body.aspect.version });
      }
    }
    out.push({ slug, serviceId, categoryIds, aspects });
  }
  return out;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const dataDir = mkdtempSync(join(tmpdir(), 'catalog-soak-'));
  const database = options.databaseUrl ? await createPostgresDatabase(options.databaseUrl, 'catalog_soak') : null;
  const server = await startServer({ port: options.port, dataDir, databaseUrl: database?.url });
  // Interrupting the soak stops its server too.
  const interrupt = () => {
    server.child.kill('SIGTERM');
    process.exit(130);
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  const warmSeconds = options.warmSeconds ?? Math.min(60, Math.max(1, Math.round(options.seconds / 4)));
  try {
    const api = new ApiClient(server.base);
    await api.signIn();
    const tenants = await setUp(api, options.tenants, Date.now().toString(36));
    const totalWeight = OPERATIONS.reduce((s, o) => s + o.weight, 0);
    const chooser = (n: number) => {
      let x = (n * 7919) % totalWeight;
      for (const op of OPERATIONS) {
        if (x < op.weight) return op;
        x -= op.weight;
      }
      return OPERATIONS[0];
    };
    const stats = new Map<string, { latencies: number[]; errors: number }>(OPERATIONS.map((o) => [o.name, { latencies: [], errors: 0 }]));
    const errorSamples: string[] = [];
    let requests = 0;
    let errors = 0;
    let rssWarmMb = 0;
    let rssMaxMb = 0;
    const pending = new Set<Promise<void>>();
    const started = Date.now();
    const interval = 1000 / options.rate;
    log(`soak: ${options.seconds} s at ${options.rate} operations/s over ${options.tenants} tenants (${database ? 'PostgreSQL' : 'embedded database'})`);
    let n = 0;
    let nextReport = 10;
    while (Date.now() - started < options.seconds * 1000) {
      const due = started + n * interval;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const op = chooser(n);
      const tenant = pick(tenants, n);
      const number = n++;
      const t0 = performance.now();
      const p = op
        .run(api, tenant, number)
        .then((statuses) => {
          requests += statuses.length;
          const bad = statuses.filter((s) => s < 200 || s >= 300);
          if (bad.length) {
            errors += bad.length;
            stats.get(op.name)!.errors += bad.length;
            if (errorSamples.length < 20) errorSamples.push(`${op.name}: ${bad.join(',')}`);
          }
        })
        .catch((err: unknown) => {
          requests++;
          errors++;
          stats.get(op.name)!.errors++;
          if (errorSamples.length < 20) errorSamples.push(`${op.name}: ${String(err)}`);
        })
        .finally(() => {
          stats.get(op.name)!.latencies.push(performance.now() - t0);
          pending.delete(p);
        });
      pending.add(p);
      const elapsed = (Date.now() - started) / 1000;
      if (elapsed >= nextReport) {
        const rss = rssMb(server.child.pid!);
        rssMaxMb = Math.max(rssMaxMb, rss);
        log(`  ${Math.round(elapsed)} s: ${requests} requests, ${errors} errors, RSS ${rss} MB, ${pending.size} in flight`);
        nextReport += 10;
      }
      if (!rssWarmMb && elapsed >= warmSeconds) rssWarmMb = rssMb(server.child.pid!);
    }
    await Promise.all(pending);
    const rssEndMb = rssMb(server.child.pid!);
    rssMaxMb = Math.max(rssMaxMb, rssEndMb);
    const byOperation: SoakResult['byOperation'] = {};
    for (const [name, s] of stats) {
      const sorted = [...s.latencies].sort((a, b) => a - b);
      byOperation[name] = {
        count: sorted.length,
        errors: s.errors,
        p50: Math.round(percentile(sorted, 50)),
        p95: Math.round(percentile(sorted, 95)),
        max: Math.round(sorted.at(-1) ?? 0),
      };
    }
    return { requests, errors, errorSamples, byOperation, rssWarmMb, rssEndMb, rssMaxMb, warmSeconds, seconds: options.seconds };
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
    await stopServer(server);
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const seconds = arg('seconds', 600);
  const result = await runSoak({
    seconds,
    rate: arg('rate', 20),
    tenants: arg('tenants', 4),
    port: arg('port', 3190),
    databaseUrl: process.env.SOAK_DATABASE_URL || undefined,
  });
  console.table(result.byOperation);
  console.log(
    `soak result: ${result.errors} errors in ${result.requests} requests over ${seconds} s; ` +
      `RSS ${result.rssWarmMb} MB at ${result.warmSeconds} s, ${result.rssEndMb} MB at the end (max ${result.rssMaxMb} MB)`,
  );
  if (result.errorSamples.length) console.log(result.errorSamples.join('\n'));
  process.exit(result.errors === 0 ? 0 : 1);
}

/**
 * npx tsx bench/grid.ts: the roadmap grid's server figures (docs/performance.md, "The roadmap grid"),
 * on the embedded database, or on PostgreSQL with TEST_DATABASE_URL set:
 *
 * - a 600-aspect by 12-quarter paste committed in one batch call, against one cell's write measured
 *   in the same run;
 * - other tenants' simple reads (p50, p99, max) while the largest CSV apply the limits allow runs
 *   (1,000 aspects by 40 quarters: 40,000 cells), against the same reads with nothing else running.
 *
 * The app runs in this process through app.inject, as the API tests do: a read waits for whatever
 * holds the event loop or the database, which is what the figure is about.
 */
import { performance } from 'node:perf_hooks';
import { MAX_BATCH_ASPECTS, MAX_TIMELINE_QUARTERS } from '../common/limits';
import { aspects as aspectsTable } from '../server/db/schema';
import { buildTestApp, call, type TestApp } from '../server/test/app';
import { createCategory, createService, createWorld } from '../server/test/factories';
import { multipartFile } from '../server/routes/servicePortability/multipart';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const log = (line: string) => console.log(`[grid] ${line}`);

function quartersFrom(year: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${year + Math.floor(i / 4)}-Q${(i % 4) + 1}`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;

async function seedAspects(t: TestApp, tenantId: string, serviceId: string, count: number, perCategory: number): Promise<string[]> {
  const ids: string[] = [];
  for (let c = 0; c * perCategory < count; c++) {
    const category = await createCategory(t.db, tenantId, serviceId, `Category ${c}`, c);
    const rows = Array.from({ length: Math.min(perCategory, count - c * perCategory) }, (_, i) => ({
      tenantId,
      serviceId,
      categoryId: category.id,
      title: `Aspect ${c}-${i}`,
      description: '',
      isPublic: true,
      position: i,
    }));
    const inserted = await t.db.insert(aspectsTable).values(rows).returning({ id: aspectsTable.id });
    ids.push(...inserted.map((r) => r.id));
  }
  return ids;
}

async function main() {
  const database = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'Embedded (PGlite)';
  const t = await buildTestApp();
  try {
    const world = await createWorld(t.app, t.db);
    const tenantId = world.tenant.id;
    const editor = world.tokens.editor;

    // The paste: 600 aspects by 12 quarters.
    const timeline = quartersFrom(2026, 12);
    const service = await createService(t.db, tenantId, { timeline });
    const ids = await seedAspects(t, tenantId, service.id, 600, 30);
    const one: number[] = [];
    for (let i = 0; i < 21; i++) {
      const start = performance.now();
      const res = await call(t.app, 'POST', '/api/availabilities', {
        token: editor,
        body: { aspectId: ids[i % ids.length], timeBucket: timeline[0], value: `One ${i}` },
      });
      one.push(performance.now() - start);
      if (res.statusCode !== 200) throw new Error(`one cell: ${res.statusCode} ${res.body}`);
    }
    const paste: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const cells = ids.flatMap((aspectId, r) => timeline.map((timeBucket, c) => ({ aspectId, timeBucket, value: `Run ${run} R${r}C${c}` })));
      const start = performance.now();
      const res = await call(t.app, 'POST', '/api/availabilities/batch', { token: editor, body: { serviceId: service.id, cells } });
      paste.push(performance.now() - start);
      if (res.statusCode !== 200 || res.json().changed !== 7_200) throw new Error(`paste: ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
    log(
      `${database}: one cell ${median(one).toFixed(1)} ms; 600 x 12 paste (7,200 cells) ${median(paste).toFixed(0)} ms (${(median(paste) / median(one)).toFixed(0)} x one cell)`,
    );

    // Other tenants' reads while the largest CSV apply runs.
    const other = world.tokens.otherAdmin;
    const otherService = await createService(t.db, world.other.id);
    const read = async () => {
      const start = performance.now();
      const res = await call(t.app, 'GET', `/api/services/${otherService.id}`, { token: other });
      if (res.statusCode !== 200) throw new Error(`read: ${res.statusCode}`);
      return performance.now() - start;
    };
    const idle: number[] = [];
    for (let i = 0; i < 300; i++) idle.push(await read());
    const quarters = quartersFrom(2026, MAX_TIMELINE_QUARTERS);
    const big = await createService(t.db, tenantId, { timeline: quarters });
    const lines = [['Category', 'Aspect', 'Description', 'Public', ...quarters].join(',')];
    for (let r = 0; r < MAX_BATCH_ASPECTS; r++)
      lines.push([`Group ${Math.floor(r / 50)}`, `Item ${r}`, 'Imported', 'Yes', ...quarters.map((q) => `V${r} ${q}`)].join(','));
    const { body, headers } = multipartFile(Buffer.from(lines.join('\r\n') + '\r\n'), 'big.csv');
    // Open loop: a read is sent every 20 ms whatever the earlier ones do, so a stall shows in every
    // read it holds up, not in one read alone.
    const during: Promise<number>[] = [];
    const timer = setInterval(() => during.push(read()), 20);
    const start = performance.now();
    const applied = await call(t.app, 'POST', `/api/services/${big.id}/csv-import?apply=true`, { token: editor, body, headers });
    const applyMs = performance.now() - start;
    clearInterval(timer);
    const latencies = await Promise.all(during);
    if (applied.statusCode !== 200) throw new Error(`apply: ${applied.statusCode} ${applied.body.slice(0, 300)}`);
    log(
      `${database}: CSV apply of ${MAX_BATCH_ASPECTS} aspects x ${MAX_TIMELINE_QUARTERS} quarters (${applied.json().preview.cells_changed.length} cells) ${applyMs.toFixed(0)} ms; ` +
        `other tenant's reads alone p50 ${median(idle).toFixed(1)} / p99 ${pct(idle, 99).toFixed(1)} ms; ` +
        `during the apply (${latencies.length} reads, one every 20 ms) p50 ${median(latencies).toFixed(1)} / p99 ${pct(latencies, 99).toFixed(1)} / max ${Math.max(...latencies).toFixed(1)} ms`,
    );
  } finally {
    await t.close();
  }
}

await main();

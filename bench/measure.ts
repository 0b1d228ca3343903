/** The figures of one database configuration, each a median of several runs. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { buildTenant, catalogFile, importCatalog, type BenchScale } from './data';
import { ISSUE_IMPORT_COMMIT } from './importAgainst';
import { Client, median, percentile, timedGet, wrk } from './http';
import { ADMIN, rawGet, rssOf, startBaseline, startServer } from './server';

export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** Same figure of the bare node:http server, same bytes, tool and concurrency. */
  baseline?: number;
  /** The issue's target, with the direction that meets it; `within`: the value's size (either sign) is at most `value`. */
  target?: { value: number; atMost: boolean; within?: boolean };
}

/** A wrk script that posts availability writes, each to the next aspect and quarter, each text its own. */
function writeScript(aspectIds: string[], timeline: string[], prefix: string): string {
  const list = (values: string[]) => `{${values.map((v) => JSON.stringify(v)).join(',')}}`;
  return [
    `local aspects = ${list(aspectIds)}`,
    `local quarters = ${list(timeline)}`,
    'local n = 0',
    'request = function()',
    '  n = n + 1',
    `  local body = '{"aspectId":"' .. aspects[n % #aspects + 1] .. '","timeBucket":"' .. quarters[n % #quarters + 1] .. '","value":"${prefix}' .. n .. '"}'`,
    '  return wrk.format("POST", nil, nil, body)',
    'end',
    '',
  ].join('\n');
}

/** The product's response headers as the bare server should send them: all but the per-connection ones. */
function productHeaders(headers: Record<string, unknown>): Record<string, string> {
  const skip = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([k]) => !skip.has(k))
      .map(([k, v]) => [k, String(v)]),
  );
}

export interface BenchOptions {
  scale: BenchScale;
  runs: number;
  seconds: number;
  port: number;
  databaseUrl?: string;
  log: (line: string) => void;
}

const MB = 1024 * 1024;

export async function measure(o: BenchOptions): Promise<{ figures: Figure[]; notes: string[] }> {
  const figures: Figure[] = [];
  const notes: string[] = [];
  const work = mkdtempSync(join(tmpdir(), 'catalog-bench-'));
  const server = { port: o.port, dataDir: join(work, 'data'), webRoot: join(work, 'no-web'), databaseUrl: o.databaseUrl };
  // The page the server answers at / (the built app's index.html is about this size).
  mkdirSync(server.webRoot, { recursive: true });
  writeFileSync(
    join(server.webRoot, 'index.html'),
    `<!doctype html><html lang="en"><head><meta charset="UTF-8"><title>Service Catalog</title></head><body><div id="root"></div>${' '.repeat(800)}</body></html>`,
  );
  let running = await startServer(server);
  try {
    const client = new Client(running.url);
    await client.signIn(ADMIN.email, ADMIN.password);
    const auth = { authorization: `Bearer ${client.token}` };
    o.log('building the bench tenant through the API');
    const started = performance.now();
    const tenant = await buildTenant(client, o.scale);
    notes.push(`Tenant built through the API in ${((performance.now() - started) / 1000).toFixed(1)} s.`);

    const fullPath = `/api/services/${tenant.largeId}/full`;
    const plain = await rawGet(running.url + fullPath, auth);
    // The first gzip form of a new body is the fastest to make; the smaller one that replaces it a
    // moment later is what warm requests get, and what the bare server must send too.
    await rawGet(running.url + fullPath, { ...auth, 'accept-encoding': 'gzip' });
    await new Promise((r) => setTimeout(r, 1000));
    const zipped = await rawGet(running.url + fullPath, { ...auth, 'accept-encoding': 'gzip' });
    const list = await rawGet(running.url + '/api/services', auth);
    if (zipped.headers['content-encoding'] !== 'gzip') throw new Error('/full did not answer gzip');
    const full = JSON.parse(plain.body.toString());
    notes.push(
      `Large service: ${full.categories.length} categories, ${full.resolved_data.aspects.length} aspects, ${full.resolved_data.timeline.length} quarters; ` +
        `/full is ${(plain.body.length / 1024).toFixed(0)} KB (${(zipped.body.length / 1024).toFixed(0)} KB gzip); /services lists ${JSON.parse(list.body.toString()).services.length} services in ${(list.body.length / 1024).toFixed(0)} KB.`,
    );
    const files = [plain, zipped, list].map((res, i) => {
      const path = join(work, i === 1 ? 'body1.json.gz' : `body${i}.json`);
      writeFileSync(path, res.body);
      writeFileSync(`${path}.headers.json`, JSON.stringify(productHeaders(res.headers)));
      return path;
    });
    const baseline = await startBaseline(o.port + 1, files);
    try {
      const pairs = [
        { name: 'GET /full, large service, warm (req/s)', product: [fullPath, {}], bare: '/0' },
        { name: 'GET /full, large service, warm, gzip (req/s)', product: [fullPath, { 'accept-encoding': 'gzip' }], bare: '/1' },
        { name: `GET /services, ${o.scale.services} services (req/s)`, product: ['/api/services', {}], bare: '/2' },
      ] as const;
      for (const pair of pairs) {
        const ours: number[] = [];
        const bare: number[] = [];
        const bareSame: number[] = [];
        // A first round, not counted, warms both servers: the product's throughput measured here
        // still rose over the first 10 to 15 s after the tenant was built.
        for (let r = -1; r < o.runs; r++) {
          const headers = { ...auth, ...pair.product[1] };
          const result = wrk(running.url + pair.product[0], headers, o.seconds);
          if (result.non2xx) throw new Error(`${pair.name}: ${result.non2xx} failed responses`);
          // The bare server gets the same requests, the bearer token included, so that both parse as much.
          const bareResult = wrk(baseline.url + pair.bare, headers, o.seconds);
          const bareSameResult = wrk(`${baseline.url}/h${pair.bare.slice(1)}`, headers, o.seconds);
          if (r < 0) continue;
          ours.push(result.rps);
          bare.push(bareResult.rps);
          bareSame.push(bareSameResult.rps);
        }
        figures.push({ name: pair.name, value: median(ours), unit: 'req/s', baseline: median(bare) });
        figures.push({
          name: `${pair.name.replace(' (req/s)', '')}, against the bare server sending the same headers (req/s)`,
          value: median(ours),
          unit: 'req/s',
          baseline: median(bareSame),
        });
        o.log(`${pair.name}: ${median(ours).toFixed(0)} vs ${median(bare).toFixed(0)} (same headers: ${median(bareSame).toFixed(0)})`);
      }
    } finally {
      await baseline.stop();
    }

    // Mixed work from here on: the event loop's longest stall is read at the end.
    await client.json('GET', '/api/metrics');
    const aspectIds: string[] = full.resolved_data.aspects.map((a: { id: string }) => a.id);
    const timeline: string[] = full.resolved_data.timeline;
    // wrk sends the writes (each with its own aspect, quarter and text) as it sends the reads: a
    // load client in this process would take the server's CPU, on a machine of two cores.
    // A first run, not counted, warms the write path (the database compiles the write functions and
    // plans their statements on first use) as the reads before it warmed theirs.
    const p99s: number[] = [];
    const written: number[] = [];
    for (let r = -1; r < o.runs; r++) {
      const script = join(work, `writes${r + 1}.lua`);
      writeFileSync(script, writeScript(aspectIds, timeline, r < 0 ? 'Warm-up write ' : `Run ${r} write `));
      const result = wrk(running.url + '/api/availabilities', { ...auth, 'content-type': 'application/json' }, o.seconds, 10, script);
      if (result.non2xx) throw new Error(`availability writes: ${result.non2xx} failed responses`);
      if (r < 0) continue;
      p99s.push(result.p99Ms);
      written.push(result.rps);
    }
    notes.push(
      `Availability writes: wrk at 10 connections for ${o.seconds} s a run, each write to one of the large service's aspects and quarters in turn, after a run not counted that warms the write path; ${median(written).toFixed(0)} writes/s (median).`,
    );
    figures.push({ name: 'Availability write p99 at 10 in flight (ms)', value: median(p99s), unit: 'ms', target: { value: 15, atMost: true } });
    const check = await client.json('POST', '/api/availabilities', { aspectId: aspectIds[0], timeBucket: timeline[0], value: 'Read back' });
    const after = (await client.json('GET', fullPath)).body;
    if (check.status !== 200 || after.resolved_data.aspects[0].availabilities[timeline[0]!] !== 'Read back') {
      throw new Error('the next /full did not show the written value');
    }
    notes.push('After the writes, the next /full showed the value last written (checked).');

    const curve: { aspects: number; ms: number }[] = [];
    const wholeCurve: { aspects: number; ms: number }[] = [];
    for (const { aspects, id } of tenant.curve) {
      const aspect = (await client.json('GET', `/api/services/${id}/full`)).body.resolved_data.aspects[0];
      const server: number[] = [];
      const client_: number[] = [];
      for (let r = 0; r < Math.max(5, o.runs); r++) {
        await client.json('POST', '/api/availabilities', { aspectId: aspect.id, timeBucket: timeline[1], value: `Cold ${r}` });
        // As the web app asks: gzip accepted, so the server time includes compressing the new body.
        const timed = await timedGet(client, `/api/services/${id}/full`);
        server.push(timed.serverMs);
        client_.push(timed.ms);
      }
      // The 20 ms target is the large service's (600 aspects); the others draw the scale curve.
      const target = aspects === o.scale.large.aspects ? { target: { value: 20, atMost: true } } : {};
      figures.push({ name: `Cold /full after a write, ${aspects} aspects, server time (ms)`, value: median(server), unit: 'ms', ...target });
      curve.push({ aspects, ms: median(server) });
      figures.push({ name: `Cold /full after a write, ${aspects} aspects, seen by the client (ms)`, value: median(client_), unit: 'ms' });
      // After a write of another kind (an aspect's title), the body is built whole by one statement
      // (decision 0107 makes the read after an availability write from the body before it).
      const whole: number[] = [];
      for (let r = 0; r < Math.max(5, o.runs); r++) {
        const edit = await client.json('PUT', `/api/aspects/${aspect.id}`, { title: `Cold title ${r}` });
        if (edit.status !== 200) throw new Error(`editing an aspect answered ${edit.status}`);
        whole.push((await timedGet(client, `/api/services/${id}/full`)).serverMs);
      }
      figures.push({ name: `Cold /full built whole (after an aspect edit), ${aspects} aspects, server time (ms)`, value: median(whole), unit: 'ms' });
      wholeCurve.push({ aspects, ms: median(whole) });
      o.log(
        `cold /full ${aspects}: ${median(server).toFixed(1)} ms server, ${median(client_).toFixed(1)} ms client; built whole ${median(whole).toFixed(1)} ms`,
      );
    }

    // Linear growth: ten times the aspects take at most ten times as long, after either kind of write.
    for (const [label, points] of [
      ['cold /full', curve],
      ['cold /full built whole', wholeCurve],
    ] as const) {
      for (let i = 1; i < points.length; i++) {
        const [small, large] = [points[i - 1]!, points[i]!];
        const size = large.aspects / small.aspects;
        figures.push({
          name: `Scale curve: ${label} of ${large.aspects} aspects against ${small.aspects} (× time, ${size}× the aspects)`,
          value: large.ms / small.ms,
          unit: '×',
          target: { value: size, atMost: true },
        });
      }
    }

    const readStall = async () => (await client.json('GET', '/api/metrics')).body.event_loop.max_ms as number;
    figures.push({ name: 'Longest event-loop stall during writes and cold reads (ms)', value: await readStall(), unit: 'ms' });

    const file = catalogFile({ name: 'Import', categories: Math.round(o.scale.importAspects / 20), aspects: o.scale.importAspects, quarters: 12 });
    notes.push(`Import file: ${o.scale.importAspects} aspects, ${(file.length / MB).toFixed(1)} MB gzip.`);
    const imports: number[] = [];
    const duringImport: number[] = [];
    const healthDuringImport: number[] = [];
    const rssGrowth: number[] = [];
    let imported = '';
    for (let r = 0; r < o.runs; r++) {
      let done = false;
      // The server's resident memory through the import, against what it was just before.
      const rssBefore = rssOf(running.pid);
      let rssPeak = rssBefore;
      const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssOf(running.pid))), 20);
      // A small page of the product (the app's page), and a call that must reach the database.
      const probe = (async () => {
        while (!done) duringImport.push((await timedGet(client, '/')).ms);
      })();
      const health = (async () => {
        while (!done) healthDuringImport.push((await timedGet(client, '/api/health')).ms);
      })();
      const result = await importCatalog(client, file, `import-${r}.catalog`);
      imports.push(result.ms);
      imported = result.id;
      done = true;
      clearInterval(sampler);
      rssGrowth.push((rssPeak - rssBefore) / MB);
      await Promise.all([probe, health]);
    }
    figures.push({
      name: `Import of the ${o.scale.importAspects}-aspect .catalog, with the two requests below sent all through it (ms)`,
      value: median(imports),
      unit: 'ms',
    });
    // The issue's bound is a share of the import it measured, checked in the same run (bench/importAgainst.ts).
    notes.push(
      `The import's bound (issue 28: ${o.databaseUrl ? '2 s on PostgreSQL' : '3 s embedded'}, against ${o.databaseUrl ? '3.4' : '5.4'} s then) is checked against the product at ${ISSUE_IMPORT_COMMIT} in the same run: "The roadmap grid" below.`,
    );
    const documentMb = gunzipSync(file).length / MB;
    figures.push({
      name: `Server RSS growth during the import (MB; the file is ${documentMb.toFixed(1)} MB of JSON)`,
      value: median(rssGrowth),
      unit: 'MB',
      target: { value: 10 * documentMb, atMost: true },
    });
    const exportsMs: number[] = [];
    for (let r = 0; r < o.runs; r++) exportsMs.push((await timedGet(client, `/api/services/${imported}/export`)).ms);
    figures.push({
      name: `Export of the ${o.scale.importAspects}-aspect service (ms)`,
      value: median(exportsMs),
      unit: 'ms',
      target: { value: 1000, atMost: true },
    });
    figures.push({ name: 'Small page p99 while an import runs (ms)', value: percentile(duringImport, 99), unit: 'ms', target: { value: 20, atMost: true } });
    // Other requests answer within 200 ms p99 while the largest import the limits allow runs
    // (IMPORT_MAX_ASPECTS, 10,000 by default: the full scale's file; docs/decisions/0136-imports-in-steps.md).
    figures.push({
      name: 'Database health check p99 while an import runs (ms)',
      value: percentile(healthDuringImport, 99),
      unit: 'ms',
      target: { value: 200, atMost: true },
    });
    if (!o.databaseUrl) {
      notes.push(
        'The embedded database serves one session: an import writes in short steps, each its own transaction, so a call that needs the database (the health check above) waits at most one step.',
      );
    }
    figures.push({ name: 'Longest event-loop stall during imports (ms)', value: await readStall(), unit: 'ms' });
    figures.push({ name: 'RSS after the load (MB)', value: rssOf(running.pid) / MB, unit: 'MB' });

    await running.stop();
    const starts: number[] = [];
    const rss: number[] = [];
    for (let r = 0; r < o.runs; r++) {
      running = await startServer(server);
      starts.push(running.startMs);
      rss.push(rssOf(running.pid) / MB);
      await running.stop();
    }
    figures.push({ name: 'Start-up on an existing database to first request (ms)', value: median(starts), unit: 'ms', target: { value: 3000, atMost: true } });
    figures.push({ name: 'RSS at start (MB)', value: median(rss), unit: 'MB' });
  } finally {
    await running.stop();
    rmSync(work, { recursive: true, force: true });
  }
  return { figures, notes };
}

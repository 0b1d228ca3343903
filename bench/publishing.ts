/**
 * BENCH_STEPS=publishing npm run bench: the publishing figures (docs/decisions/0124-publishing-figures.md),
 * each against a baseline measured in the same run:
 *
 * - warm public page throughput: wrk on GET /p/{tenant}/{service} (a 100-aspect edition) against
 *   bench/baseline.mjs answering the same bytes with the same headers (the bare server);
 * - the time to compare two frozen catalogs of 600 aspects (common/catalogDiff.ts), against the time
 *   to JSON.parse one of them.
 *
 * BENCH_PORT (the baseline uses the next port), BENCH_SECONDS (per wrk run), BENCH_RUNS (median
 * taken), as for the other steps.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareCatalogs, type FrozenCatalog } from '../common/catalogDiff';
import { defaultTimeline } from '../common/quarters';
import { Client, median, wrk } from './http';
import { ADMIN, rawGet, startBaseline, startServer } from './server';

export interface PublishingOptions {
  port: number;
  seconds: number;
  runs: number;
  log: (line: string) => void;
}

export interface PublishingFigures {
  compare: { compareMs: number; parseMs: number; changes: number };
  page: { rps: number; bareRps: number; bytes: number };
}

/** A frozen catalog of `count` aspects in 12 categories over 8 quarters. */
function frozen(count: number, seed: number): FrozenCatalog {
  const timeline = defaultTimeline(new Date('2026-01-15'));
  const categories = Array.from({ length: 12 }, (_, i) => ({ id: `c${i}`, name: `Category ${i}`, position: i }));
  const aspects = Array.from({ length: count }, (_, i) => ({
    id: `a${i + seed * 37}`,
    title: i % 50 === seed ? `Aspect ${i} renamed` : `Aspect ${i}`,
    description: `<p>What aspect ${i} offers${i % 40 === seed ? ', updated' : ''}.</p>`,
    is_public: true,
    category_id: `c${(i + (i % 60 === seed ? 1 : 0)) % 12}`,
    position: i,
    availabilities: Object.fromEntries(timeline.map((q, j) => [q, (i + j) % 10 === seed ? `Changed ${q}` : `Ready ${q}`])),
  }));
  return { categories, resolved_data: { aspects, timeline } };
}

function compareFigure(log: PublishingOptions['log']) {
  const a = frozen(600, 0);
  const b = frozen(600, 1);
  // Most aspects are the same ones; seed 1 shifts a few ids (added and removed).
  b.resolved_data.aspects = b.resolved_data.aspects.map((x, i) => (i % 100 === 0 ? x : { ...x, id: `a${i}` }));
  const text = JSON.stringify(a);
  const time = (fn: () => unknown, n: number) => {
    const samples: number[] = [];
    for (let r = 0; r < n; r++) {
      const start = performance.now();
      fn();
      samples.push(performance.now() - start);
    }
    return median(samples);
  };
  time(() => compareCatalogs(a, b), 20);
  const compareMs = time(() => compareCatalogs(a, b), 101);
  const parseMs = time(() => JSON.parse(text), 101);
  const diff = compareCatalogs(a, b);
  log(
    `compare 600 aspects: ${compareMs.toFixed(2)} ms (JSON.parse of one: ${parseMs.toFixed(2)} ms, ratio ${(compareMs / parseMs).toFixed(1)}); ${diff.counts.total} changes`,
  );
  return { compareMs, parseMs, changes: diff.counts.total };
}

async function pageFigure({ port, seconds, runs, log }: PublishingOptions) {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-publishing-'));
  const server = await startServer({
    port,
    dataDir,
    webRoot: fileURLToPath(new URL('../dist/web', import.meta.url)),
    // The public limit counts every request, as in production; high enough not to refuse wrk's.
    env: { PUBLIC_RATE_LIMIT: '100000000' },
  });
  let baseline: Awaited<ReturnType<typeof startBaseline>> | undefined;
  try {
    const client = new Client(server.url);
    await client.signIn(ADMIN.email, ADMIN.password);
    const send = async (method: string, path: string, body?: unknown) => {
      const res = await client.json(method, `/api${path}`, body);
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const { service } = await send('POST', '/services', { name: 'Bench public', slug: 'bench-public', description: 'A service published for the bench' });
    for (let c = 0; c < 5; c++) {
      const { category } = await send('POST', '/categories', { serviceId: service.id, name: `Category ${c}`, position: c });
      for (let i = 0; i < 20; i++) {
        const { aspect } = await send('POST', '/aspects', {
          serviceId: service.id,
          categoryId: category.id,
          title: `Aspect ${c}-${i}`,
          description: '<p>A short description.</p>',
          isPublic: true,
        });
        for (const q of service.timeline.slice(0, 4)) await send('POST', '/availabilities', { aspectId: aspect.id, timeBucket: q, value: `Ready ${q}` });
      }
    }
    await send('POST', '/snapshots', { serviceId: service.id, label: 'First', visibility: 'public', note: '' });
    await send('PATCH', `/services/${service.id}/publish`);
    const me = await send('GET', '/auth/me');
    const path = `/p/${me.tenant.slug}/bench-public`;
    const page = await rawGet(server.url + path, {});
    if (page.status !== 200) throw new Error(`the public page answered ${page.status}`);
    const file = join(dataDir, 'page.html');
    writeFileSync(file, page.body);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(page.headers))
      if (!['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(k)) headers[k] = String(v);
    writeFileSync(`${file}.headers.json`, JSON.stringify(headers));
    baseline = await startBaseline(port + 1, [file]);
    const product: number[] = [];
    const bare: number[] = [];
    wrk(server.url + path, {}, 2);
    for (let r = 0; r < runs; r++) {
      const p = wrk(server.url + path, {}, seconds);
      if (p.non2xx) throw new Error(`${p.non2xx} answers were not 200`);
      product.push(p.rps);
      bare.push(wrk(`${baseline.url}/h0`, {}, seconds).rps);
    }
    const rps = median(product);
    const bareRps = median(bare);
    log(`warm public page (${page.body.length} bytes): ${rps.toFixed(0)} req/s, bare server ${bareRps.toFixed(0)} req/s, ratio ${(rps / bareRps).toFixed(2)}`);
    return { rps, bareRps, bytes: page.body.length };
  } finally {
    await baseline?.stop();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function measurePublishing(options: PublishingOptions): Promise<PublishingFigures> {
  const compare = compareFigure(options.log);
  const page = await pageFigure(options);
  return { compare, page };
}

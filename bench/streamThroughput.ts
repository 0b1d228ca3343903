/**
 * Section 2 of the change-stream step (bench/stream.ts), warm read throughput: GET /full of the
 * large service warm, wrk at 10 connections, against one process, against the three at once
 * (summed), against a bare node:http server answering the same bytes, and next to the figure of
 * docs/performance.json from before the change stream; and, in the same run, against the product
 * at that figure's commit (or BENCH_STREAM_BEFORE's) on a database of its own, when it can be run.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { catalogFile } from './data';
import { Client, median } from './http';
import type { Figure } from './measure';
import { benchDatabase } from './memory';
import { ADMIN, checkoutAt, rawGet, startBaseline, startServer, type RunningServer } from './server';
import type { StreamOptions, StreamRun } from './stream';
import { fmt, PROCESSES, wrkAsync } from './streamClient';

const RESULTS = fileURLToPath(new URL('../docs/performance.json', import.meta.url));
const FULL_WARM = 'GET /full, large service, warm (req/s)';

/** The api step's warm /full figure as docs/performance.json holds it, with the commit, date and scale it was measured at. */
export type StoredWarmFull = { value: number; baseline?: number; commit: string; date: string; scale: string };

/** The warm /full figure on PostgreSQL recorded by the api step of docs/performance.json, with its commit. */
export function storedWarmFull(): StoredWarmFull | undefined {
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

/**
 * Measures the warm read throughput and adds its figures and notes to the run. `stored` is the api
 * step's figure, read before the step wrote anything. The bare server and the older commit's server
 * it starts are stopped before it returns, whether it succeeds or fails.
 */
export async function measureThroughput(run: StreamRun, stored: StoredWarmFull | undefined): Promise<void> {
  const { o, urls, admin, slug, fullPath, work, figures, notes } = run;
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
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { recordFigure } from '../security/figures';
import { ApiClient, createPostgresDatabase, freePort, killHard, startServer, stopServer, type RunningServer } from './server';

/**
 * Suite 8, crash safety: the real server process is killed with SIGKILL in the middle of a burst
 * of availability writes and a .catalog import, then restarted on the same data. After every
 * restart, every write the server acknowledged (2xx) is there, every acknowledged import exists in
 * full, and no import exists in part. Runs on the embedded database, and on PostgreSQL (a fresh
 * database) when TEST_DATABASE_URL is set (instead of the embedded one). CRASH_CYCLES sets the number of kills per database.
 */
const CYCLES = Number(process.env.CRASH_CYCLES ?? 30);
const WRITERS = 6;
const ASPECTS = 4;
const IMPORT_CATEGORIES = 5;
const IMPORT_ASPECTS = 150;
const QUARTERS = ['2030-Q1', '2030-Q2', '2030-Q3', '2030-Q4'];
const port = await freePort();
const cleanups: Array<() => Promise<void> | void> = [];
let running: RunningServer | null = null;

afterAll(async () => {
  if (running) await killHard(running);
  for (const c of cleanups.reverse()) await c();
});

/** A .catalog file of one service with IMPORT_ASPECTS aspects and an availability on each. */
function catalogFile(cycle: number): Buffer {
  const categories = Array.from({ length: IMPORT_CATEGORIES }, (_, i) => ({ id: `c${i}`, name: `Category ${i}`, position: i }));
  const aspects = Array.from({ length: IMPORT_ASPECTS }, (_, i) => ({
    id: `a${i}`,
    category_id: `c${i % IMPORT_CATEGORIES}`,
    title: `Aspect ${i}`,
    description: `<p>Imported aspect ${i}</p>`,
    is_public: i % 2 === 0,
    position: i,
  }));
  const doc = {
    format: 'service-catalog',
    version: 1,
    service: {
      name: `Crash import ${cycle}`,
      slug: `crash-import-${cycle}`,
      description: '',
      service_owner: '',
      subscription_model: '',
      icon_url: null,
      timeline: QUARTERS,
    },
    categories,
    aspects,
    availabilities: aspects.map((a) => ({ aspect_id: a.id, time_bucket: QUARTERS[0], value: `Imported ${a.id}` })),
    roles: [{ role_name: 'Operator', position: 0 }],
    templates: [{ template_text: 'Planned', position: 0 }],
  };
  return gzipSync(Buffer.from(JSON.stringify(doc)));
}

function multipart(content: Buffer): { body: Buffer; headers: Record<string, string> } {
  const boundary = `----crash${Math.random().toString(16).slice(2)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="service.catalog"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  return {
    body: Buffer.concat([head, content, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

interface Tally {
  kills: number;
  acknowledgedWrites: number;
  lostWrites: number;
  imports: number;
  acknowledgedImports: number;
  partialImports: number;
  lostImports: number;
  restartMs: number[];
}

async function crashCycles(database: 'embedded' | 'postgres', databaseUrl?: string): Promise<Tally> {
  const dataDir = mkdtempSync(join(tmpdir(), 'catalog-crash-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const tally: Tally = { kills: 0, acknowledgedWrites: 0, lostWrites: 0, imports: 0, acknowledgedImports: 0, partialImports: 0, lostImports: 0, restartMs: [] };
  const acknowledged = new Map<string, Set<string>>();
  const importedIds = new Set<string>();
  const aspectIds: string[] = [];
  let seq = 0;

  for (let cycle = 0; cycle <= CYCLES; cycle++) {
    running = await startServer({ port, dataDir, databaseUrl });
    if (cycle > 0) tally.restartMs.push(running.startMs);
    const api = new ApiClient(running.base);
    await api.signIn();

    if (cycle === 0) {
      // Its timeline holds the quarters written below: a write outside a service's timeline is refused.
      const service = await api.request('POST', '/api/services', {
        name: 'Crash target',
        slug: 'crash-target',
        timeline: { first: QUARTERS[0], last: QUARTERS[QUARTERS.length - 1] },
      });
      expect(service.status).toBe(201);
      const category = await api.request('POST', '/api/categories', { serviceId: service.body.service.id, name: 'Writes' });
      for (let i = 0; i < ASPECTS; i++) {
        const aspect = await api.request('POST', '/api/aspects', {
          serviceId: service.body.service.id,
          categoryId: category.body.category.id,
          title: `Target ${i}`,
        });
        expect(aspect.status).toBe(201);
        aspectIds.push(aspect.body.aspect.id);
        acknowledged.set(aspect.body.aspect.id, new Set());
      }
    } else {
      // Every acknowledged write is in the history of its aspect.
      for (const id of aspectIds) {
        // The history is paged, newest first: read every page.
        const stored = new Set<string>();
        let before: string | null = null;
        do {
          const page = `/api/availabilities/aspect/${id}/history?limit=1000${before ? `&before=${before}` : ''}`;
          const history = await api.request('GET', page);
          expect(history.status, `cycle ${cycle}: ${JSON.stringify(history.body)}\n${running.output().slice(-3000)}`).toBe(200);
          for (const h of history.body.history as Array<{ value: string }>) stored.add(h.value);
          before = history.body.next_before;
        } while (before);
        const lost = [...acknowledged.get(id)!].filter((v) => !stored.has(v));
        tally.lostWrites += lost.length;
        expect(lost, `cycle ${cycle}: acknowledged writes lost`).toEqual([]);
      }
      // Every import exists in full or not at all; every acknowledged one exists.
      const list = await api.request('GET', '/api/services');
      expect(list.status, `cycle ${cycle}: ${JSON.stringify(list.body)}\n${running.output().slice(-3000)}`).toBe(200);
      const imported = (list.body.services as Array<{ id: string; name: string }>).filter((s) => s.name.startsWith('Crash import'));
      for (const id of importedIds) {
        if (!imported.some((s) => s.id === id)) tally.lostImports++;
      }
      expect(tally.lostImports, 'acknowledged imports lost').toBe(0);
      for (const s of imported) {
        const full = await api.request('GET', `/api/services/${s.id}/full`);
        expect(full.status, `cycle ${cycle}: ${JSON.stringify(full.body)}\n${running.output().slice(-3000)}`).toBe(200);
        const aspects = full.body.resolved_data.aspects as Array<{ availabilities: Record<string, string> }>;
        const complete =
          full.body.categories.length === IMPORT_CATEGORIES &&
          aspects.length === IMPORT_ASPECTS &&
          aspects.every((a) => Object.keys(a.availabilities).length === 1) &&
          full.body.roles.length === 1 &&
          full.body.templates.length === 1;
        if (!complete) tally.partialImports++;
        expect(complete, `import ${s.name} is partial`).toBe(true);
      }
    }
    if (cycle === CYCLES) break;

    // The burst: writers and one import in flight, then kill -9 at a random moment inside it.
    let stop = false;
    let cycleAcks = 0;
    const writer = async () => {
      while (!stop) {
        const aspectId = aspectIds[seq % ASPECTS];
        const value = `${database} write ${seq++}`;
        try {
          const res = await api.request('POST', '/api/availabilities', { aspectId, timeBucket: QUARTERS[seq % QUARTERS.length], value });
          if (res.status >= 200 && res.status < 300) {
            acknowledged.get(aspectId)!.add(value);
            tally.acknowledgedWrites++;
            cycleAcks++;
          }
        } catch {
          return; // the connection died with the process
        }
      }
    };
    const importer = async () => {
      tally.imports++;
      const { body, headers } = multipart(catalogFile(cycle));
      try {
        const res = await api.request('POST', '/api/services/import', body, headers);
        if (res.status === 201) {
          importedIds.add(res.body.service.id);
          tally.acknowledgedImports++;
        }
      } catch {
        // killed while importing
      }
    };
    const work = [...Array.from({ length: WRITERS }, writer), importer()];
    // Once writes flow, kill at a random moment of the next 1.5 s: inside or after the import.
    const flowing = Date.now() + 20_000;
    while (cycleAcks < 3 && Date.now() < flowing) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, Math.random() * 1500));
    await killHard(running);
    tally.kills++;
    stop = true;
    await Promise.all(work);
    running = null;
  }
  if (running) await stopServer(running);
  running = null;
  return tally;
}

function report(database: string, t: Tally) {
  const restart = t.restartMs.length ? Math.round(t.restartMs.reduce((a, b) => a + b, 0) / t.restartMs.length) : 0;
  recordFigure(
    `crash-safety-${database}`,
    `${t.kills} kill -9 during availability bursts and imports: ${t.lostWrites} of ${t.acknowledgedWrites} acknowledged writes lost, ` +
      `${t.lostImports} of ${t.acknowledgedImports} acknowledged imports lost, ${t.partialImports} partial imports (${t.imports} started); mean restart ${restart} ms`,
    { ...t },
  );
}

describe('crash safety', () => {
  // The PostgreSQL run of the suite (TEST_DATABASE_URL) covers PostgreSQL; the embedded run, the embedded database.
  if (!process.env.TEST_DATABASE_URL)
    it(
      `keeps every acknowledged write and import across ${CYCLES} kill -9 on the embedded database`,
      async () => {
        const tally = await crashCycles('embedded');
        report('embedded', tally);
        expect(tally.kills).toBe(CYCLES);
        expect(tally.acknowledgedWrites).toBeGreaterThan(0);
        // Imports must be acknowledged inside the kill window too, or the figure would say nothing of them.
        if (CYCLES >= 10) expect(tally.acknowledgedImports).toBeGreaterThan(0);
      },
      60_000 + CYCLES * 30_000,
    );

  if (process.env.TEST_DATABASE_URL)
    it(
      `keeps every acknowledged write and import across ${CYCLES} kill -9 on PostgreSQL`,
      async () => {
        const db = await createPostgresDatabase(process.env.TEST_DATABASE_URL!, 'catalog_crash');
        cleanups.push(db.drop);
        const tally = await crashCycles('postgres', db.url);
        report('postgres', tally);
        expect(tally.kills).toBe(CYCLES);
        expect(tally.acknowledgedWrites).toBeGreaterThan(0);
        // Imports must be acknowledged inside the kill window too, or the figure would say nothing of them.
        if (CYCLES >= 10) expect(tally.acknowledgedImports).toBeGreaterThan(0);
      },
      60_000 + CYCLES * 30_000,
    );
});

import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogDocument } from '../../../bench/data';
import { CSV_IMPORT_MESSAGES } from '../../commands/csvImport';
import { IMPORT_MESSAGES, prepareImport, readCatalogFile, removeLeftBehindImports, writeImport, type PreparedImport } from '../../commands/importService';
import type { ImportPiece } from '../../commands/catalogFile';
import type { Change } from '../../db/changes';
import type { Actor } from '../../plugins/context';
import { asSystem, tenantScope, withScope } from '../../db/scope';
import { services } from '../../db/schema';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createAspect, createCategory, createService, createWorld, setAvailability, type World } from '../../test/factories';
import { multipartFile } from './multipart';
import { quarterOf } from '../../../common/quarters';

/**
 * Imports write in steps into a hidden service (docs/decisions/0136-imports-in-steps.md): the limits
 * on a file's aspects, a hidden service no reader sees, a failed import leaving nothing behind, and
 * other tenants' reads answered while the largest allowed import runs.
 */
const MAX_ASPECTS = 5;
const CSV_MAX_ASPECTS = 3;

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await buildTestApp({ IMPORT_MAX_ASPECTS: String(MAX_ASPECTS), CSV_IMPORT_MAX_ASPECTS: String(CSV_MAX_ASPECTS) });
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

const as = (token: string, tenant = w.tenant.slug) => ({ token, tenant });
const rows = <T>(res: unknown) => (res as { rows: T[] }).rows;

function upload(file: Buffer, url = '/api/services/import', token = w.tokens.admin, filename?: string) {
  const { body, headers } = multipartFile(file, filename);
  return call(t.app, 'POST', url, { ...as(token), body, headers });
}

const TABLES = ['services', 'categories', 'aspects', 'availabilities', 'availability_history', 'actor_roles', 'quick_templates', 'audit_log', 'webhook_events'];
async function counts() {
  const out: Record<string, number> = {};
  for (const table of TABLES) out[table] = rows<{ n: number }>(await t.db.execute(sql.raw(`select count(*)::int as n from ${table}`)))[0]!.n;
  return out;
}

const file = (aspects: number, quarters = 2) => gzipSync(JSON.stringify(catalogDocument({ name: 'Stepped', categories: 2, aspects, quarters })));

describe('the limit on aspects per file', () => {
  it('refuses a .catalog file over IMPORT_MAX_ASPECTS, naming the limit, in the import and its preview, writing nothing', async () => {
    const before = await counts();
    for (const url of ['/api/services/import', '/api/services/import/preview']) {
      const res = await upload(file(MAX_ASPECTS + 1), url);
      expect(res.statusCode).toBe(413);
      expect(res.json().error).toBe(IMPORT_MESSAGES.tooManyAspects(MAX_ASPECTS + 1, MAX_ASPECTS));
      expect(res.json().error).toContain(`at most ${MAX_ASPECTS}`);
    }
    expect(await counts()).toEqual(before);
    // A file at the limit is imported.
    const res = await upload(file(MAX_ASPECTS));
    expect(res.statusCode).toBe(201);
    expect(rows<{ n: number }>(await t.db.execute(sql`select count(*)::int as n from aspects where service_id = ${res.json().service.id}`))[0]!.n).toBe(
      MAX_ASPECTS,
    );
  });

  it('refuses a CSV of more rows than CSV_IMPORT_MAX_ASPECTS, naming the limit, in the preview and the apply, writing nothing', async () => {
    const s = await createService(t.db, w.tenant.id, { timeline: ['2025-Q1'] });
    const csv = (n: number) =>
      Buffer.from(['Category,Aspect,Description,Public,2025-Q1', ...Array.from({ length: n }, (_, i) => `Core,Row ${i},,Yes,GA`)].join('\n'));
    const before = await counts();
    for (const apply of ['false', 'true']) {
      const res = await upload(csv(CSV_MAX_ASPECTS + 1), `/api/services/${s.id}/csv-import?apply=${apply}`, w.tokens.admin, 'roadmap.csv');
      expect(res.statusCode).toBe(413);
      expect(res.json().error).toBe(CSV_IMPORT_MESSAGES.tooManyRows(CSV_MAX_ASPECTS));
    }
    expect(await counts()).toEqual(before);
    const ok = await upload(csv(CSV_MAX_ASPECTS), `/api/services/${s.id}/csv-import?apply=true`, w.tokens.admin, 'roadmap.csv');
    expect(ok.statusCode).toBe(200);
    expect(ok.json().preview.aspects_added).toHaveLength(CSV_MAX_ASPECTS);
  });
});

describe('a service an import is still writing', () => {
  it('exists for no reader: lists, search, the service and its parts, export, webhooks, public pages', async () => {
    const s = await createService(t.db, w.tenant.id, { name: 'Half Written', slug: 'half-written' });
    const c = await createCategory(t.db, w.tenant.id, s.id, 'Core');
    const a = await createAspect(t.db, w.tenant.id, s.id, c.id, { title: 'Visible later', isPublic: true });
    await setAvailability(t.db, w.tenant.id, s.id, a.id, quarterOf(new Date()), 'GA');
    await t.db.update(services).set({ published: true }).where(eq(services.id, s.id));
    const snap = await call(t.app, 'POST', '/api/snapshots', {
      ...as(w.tokens.admin),
      body: { serviceId: s.id, label: 'First', visibility: 'public', note: '' },
    });
    expect(snap.statusCode).toBe(201);
    const publicPath = `/p/${w.tenant.slug}/${s.slug}`;
    expect((await call(t.app, 'GET', publicPath)).statusCode).toBe(200);

    await t.db.update(services).set({ importing: true }).where(eq(services.id, s.id));
    for (const token of [w.tokens.reader, w.tokens.admin, w.tokens.superAdmin]) {
      const list = await call(t.app, 'GET', '/api/services?includeArchived=true', as(token));
      expect(list.statusCode).toBe(200);
      expect(JSON.stringify(list.json())).not.toContain(s.id);
      const search = await call(t.app, 'GET', '/api/services?search=half&limit=10', as(token));
      expect(JSON.stringify(search.json())).not.toContain(s.id);
      for (const path of [`/api/services/${s.id}`, `/api/services/${s.id}/full`, `/api/services/${s.id}/export`, `/api/categories/service/${s.id}`]) {
        expect((await call(t.app, 'GET', path, as(token))).statusCode, path).toBe(404);
      }
    }
    // Writes find nothing to write to.
    expect((await call(t.app, 'PATCH', `/api/services/${s.id}`, { ...as(w.tokens.admin), body: { name: 'Renamed' } })).statusCode).toBe(404);
    // The public page and the tenant's public list do not show it.
    expect((await call(t.app, 'GET', publicPath)).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/p/${w.tenant.slug}`)).body).not.toContain('Half Written');

    // Made visible, it is there again.
    await t.db.update(services).set({ importing: false }).where(eq(services.id, s.id));
    expect((await call(t.app, 'GET', `/api/services/${s.id}`, as(w.tokens.reader))).statusCode).toBe(200);
    expect((await call(t.app, 'GET', publicPath)).statusCode).toBe(200);
  });

  it('is not in the list while a real import runs, and is there, complete, from the moment it is', async () => {
    const doc = file(MAX_ASPECTS, 12);
    const listed = async () =>
      ((await call(t.app, 'GET', '/api/services?search=stepped&limit=100', as(w.tokens.reader))).json().services as { id: string }[]).map((x) => x.id);
    const earlier = new Set(await listed());
    let done = false;
    let hiddenSeen = 0;
    const pending = upload(doc).finally(() => (done = true));
    while (!done) {
      const list = (await listed()).filter((id) => !earlier.has(id));
      // Read after the list: a service hidden now was hidden while the list was read.
      const hidden = rows<{ id: string }>(await t.db.execute(sql`select id from services where importing`)).map((r) => r.id);
      for (const id of list) {
        // A service in the list is complete: every text of the file is there.
        const n = rows<{ n: number }>(await t.db.execute(sql`select count(*)::int as n from availabilities where service_id = ${id}`))[0]!.n;
        expect(n).toBe(MAX_ASPECTS * 12);
        if (hidden.includes(id)) hiddenSeen = -1;
      }
      if (hidden.length && hiddenSeen >= 0) hiddenSeen++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    const res = await pending;
    expect(res.statusCode).toBe(201);
    // The import was caught while hidden at least once, and never listed then.
    expect(hiddenSeen).toBeGreaterThan(0);
    expect((await call(t.app, 'GET', `/api/services/${res.json().service.id}/full`, as(w.tokens.reader))).statusCode).toBe(200);
  });
});

describe('an import a stopped process left hidden', () => {
  it('is removed at start once it is older than an hour, with everything in it; a recent one is left to its import', async () => {
    const old = await createService(t.db, w.tenant.id, { name: 'Left behind', importing: true });
    const c = await createCategory(t.db, w.tenant.id, old.id, 'Core');
    const a = await createAspect(t.db, w.tenant.id, old.id, c.id, { title: 'Half' });
    await setAvailability(t.db, w.tenant.id, old.id, a.id, '2025-Q1', 'GA');
    await t.db.execute(sql`update services set created_at = now() - interval '2 hours' where id = ${old.id}`);
    const recent = await createService(t.db, w.tenant.id, { name: 'Being written', importing: true });
    expect(await asSystem(() => removeLeftBehindImports(t.db))).toBe(1);
    expect(rows(await t.db.execute(sql`select id from services where id = ${old.id}`))).toEqual([]);
    expect(rows(await t.db.execute(sql`select aspect_id from availabilities where service_id = ${old.id}`))).toEqual([]);
    expect(rows<{ id: string }>(await t.db.execute(sql`select id from services where id = ${recent.id}`))).toHaveLength(1);
    await t.db.delete(services).where(eq(services.id, recent.id));
  });
});

describe('an import that fails part-way', () => {
  it('leaves nothing behind: no service, rows, history, audit or webhook delivery', async () => {
    // A webhook endpoint of the tenant, so that any event an import queued would show.
    const hook = await call(t.app, 'POST', '/api/webhooks', {
      ...as(w.tokens.admin),
      body: { url: 'https://hooks.example.com/in', events: ['service.created', 'catalog.changed', 'availability.changed'], role: 'reader' },
    });
    expect(hook.statusCode).toBe(201);
    // The last text of the file is refused by the database, after every other step has been written
    // (a check constraint: it holds in steps written without their triggers too).
    const asOwner = (statement: string) => t.app.database.exclusive((owner) => owner.execute(sql.raw(statement)));
    await asOwner("alter table availabilities add constraint refuse_boom check (value <> 'boom') not valid");
    try {
      const doc = catalogDocument({ name: 'Failing', categories: 2, aspects: MAX_ASPECTS, quarters: 4 });
      doc.availabilities[doc.availabilities.length - 1]!.value = 'boom';
      const before = await counts();
      const res = await upload(gzipSync(JSON.stringify(doc)));
      expect(res.statusCode).toBe(500);
      expect(await counts()).toEqual(before);
      expect(rows(await t.db.execute(sql`select id from services where importing or name = 'Failing'`))).toEqual([]);
    } finally {
      await asOwner('alter table availabilities drop constraint refuse_boom');
    }
    // The same import, now accepted, is told to webhooks once, as a created service.
    const before = await counts();
    const ok = await upload(file(MAX_ASPECTS, 4));
    expect(ok.statusCode).toBe(201);
    const events = rows<{ event_type: string }>(
      await t.db.execute(sql`select event_type from webhook_events where data->>'service_id' = ${ok.json().service.id}`),
    );
    expect(events.map((d) => d.event_type)).toEqual(['service.created']);
    expect((await counts()).webhook_events).toBe(before.webhook_events + 1);
  });
});

describe('the rows of an import', () => {
  const actor = () => ({ user: w.users.admin, impersonator: null }) as unknown as Actor;
  const write = (prepared: PreparedImport, unchecked: boolean) =>
    withScope(tenantScope(w.tenant.id), () => writeImport(t.db, actor(), w.tenant.id, prepared, {}, { unchecked }));

  /** A prepared file with one more text, on an aspect the file does not hold. */
  /** A file as the import thread prepares it, after validating it. */
  const prepared = async (doc: ReturnType<typeof catalogDocument>) => prepareImport(await readCatalogFile(gzipSync(JSON.stringify(doc)), MAX_ASPECTS));

  async function strayText(name: string): Promise<PreparedImport> {
    const file = await prepared(catalogDocument({ name, categories: 2, aspects: 3, quarters: 2 }));
    const pieces = [...(file.pieces as Iterable<ImportPiece>)];
    const stray = { aspectIds: `{${randomUUID()}}`, quarters: '{"2030-Q1"}', aspectAt: '{1}', quarterAt: '{1}', values: '{"Stray"}' };
    return { ...file, pieces: [...pieces, { texts: stray }], counts: { ...file.counts, availabilities: file.counts.availabilities + 1 } };
  }

  it.each([
    ['written without their row-by-row checks, checked set by set', true],
    ['written with their foreign keys checked', false],
  ])('that do not hold together fail it, leaving nothing (%s)', async (_, unchecked) => {
    const before = await counts();
    await expect(write(await strayText(`Stray ${unchecked}`), unchecked)).rejects.toThrow();
    expect(await counts()).toEqual(before);
  });

  it.each([
    ['written without their row-by-row checks', true],
    ['written with their foreign keys checked', false],
  ])('are all there once the service is, and every process hears of them (%s)', async (_, unchecked) => {
    const heard: Change[] = [];
    const stop = t.database.changes.follow((change) => heard.push(change));
    try {
      const doc = catalogDocument({ name: `Whole ${unchecked}`, categories: 2, aspects: 4, quarters: 3 });
      const service = await write(await prepared(doc), unchecked);
      const of = async (table: string) =>
        rows<{ n: number }>(await t.db.execute(sql.raw(`select count(*)::int as n from ${table} where service_id = '${service.id}'`)))[0]!.n;
      expect(await of('categories')).toBe(2);
      expect(await of('aspects')).toBe(4);
      expect(await of('availabilities')).toBe(doc.availabilities.length);
      expect(await of('availability_history')).toBe(doc.availabilities.length);
      // The caches of every process learn that the service's rows changed (the change stream).
      for (const table of ['categories', 'aspects', 'availabilities']) {
        await expect.poll(() => heard.some((c) => c.table === table && c.services?.includes(service.id)), { timeout: 10_000 }).toBe(true);
      }
    } finally {
      stop();
    }
  });
});

describe('other tenants while the largest allowed import runs', () => {
  let big: TestApp;
  let bw: World;
  const LARGEST = 10_000;
  beforeAll(async () => {
    big = await buildTestApp({ IMPORT_MAX_ASPECTS: String(LARGEST) });
    bw = await createWorld(big.app, big.db);
  });
  afterAll(() => big.close());

  it('answers their simple reads all the while (p99 of many small requests made during the import)', async () => {
    const other = await createService(big.db, bw.other.id, { name: 'Other tenant service' });
    const doc = gzipSync(JSON.stringify(catalogDocument({ name: 'Largest', categories: 50, aspects: LARGEST, quarters: 12 })));
    const { body, headers } = multipartFile(doc);
    let done = false;
    const started = performance.now();
    const pending = call(big.app, 'POST', '/api/services/import', { token: bw.tokens.admin, tenant: bw.tenant.slug, body, headers }).finally(
      () => (done = true),
    );
    const waits: number[] = [];
    while (!done) {
      const at = performance.now();
      // A simple read of another tenant that reads the database each time (the categories are not cached).
      const res = await call(big.app, 'GET', `/api/categories/service/${other.id}`, { token: bw.tokens.otherAdmin, tenant: bw.other.slug });
      expect(res.statusCode).toBe(200);
      if (!done) waits.push(performance.now() - at);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const res = await pending;
    const importMs = performance.now() - started;
    expect(res.statusCode).toBe(201);
    waits.sort((a, b) => a - b);
    const p99 = waits[Math.min(waits.length - 1, Math.floor(waits.length * 0.99))]!;
    console.info(
      `import of ${LARGEST} aspects: ${Math.round(importMs)} ms; ${waits.length} reads meanwhile, p99 ${p99.toFixed(1)} ms, max ${waits.at(-1)!.toFixed(1)} ms`,
    );
    // Reads went on through the import rather than waiting for its end: many of them, each held
    // at most a step or two, not the import (as one transaction, the p99 was the import's whole
    // time). Relative to the import's own time, so that it holds on a loaded machine; the 200 ms
    // figure is measured by bench/, docs/performance.md.
    expect(waits.length).toBeGreaterThan(20);
    expect(p99).toBeLessThan(importMs / 4);
  }, 120_000);
});

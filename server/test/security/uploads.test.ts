import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_MESSAGES as I } from '../../commands/importService';
import { IMPORT_MAX_ASPECTS_CEILING } from '../../../common/limits';
import { validateIcon } from '../../content/icon';
import { buildTestApp, call, type TestApp } from '../app';
import { createWorld, type World } from '../factories';
import { CATALOG_TABLES } from '../tables';
import { recordFigure } from './figures';
import { refusedCatalogCases } from './catalogRefused';
import { ICON_CASES, PNG_16, svgText, svgUrl, unsafeSvg } from './iconCases';
import {
  catalogDocument,
  catalogState,
  dataUrl,
  deltas,
  gz,
  importDeltas,
  multipart,
  noDeltas,
  normalise,
  polluted,
  SVG_PLAIN,
  VALID,
  validJson,
  type CatalogDocument,
  type State,
} from './uploadFixtures';

/**
 * Suite 6, uploads and imports. Every icon of the matrix goes through the three ways an icon is
 * stored (POST /api/services, PUT /api/services/:id, a .catalog import); every .catalog of the
 * matrix goes through POST /api/services/import. Each case must be refused with a clear message
 * (the exact text, 400 or 413) or accepted cleanly (stored, and served back as a safe value). Each
 * refused case compares the count and a digest of the content of every catalog table before and
 * after: any difference is a partial write.
 */

let t: TestApp;
let w: World;
let target: { id: string; name: string };

const tally = { cases: 0, clean: 0, refused: 0, accepted: 0, partialWrites: 0, icon: 0, catalog: 0 };
const timings: Record<string, number> = {};

beforeAll(async () => {
  // The largest files a setting may allow (IMPORT_MAX_ASPECTS at its ceiling).
  t = await buildTestApp({ IMPORT_MAX_ASPECTS: String(IMPORT_MAX_ASPECTS_CEILING) });
  w = await createWorld(t.app, t.db);
  const res = await call(t.app, 'POST', '/api/services', { ...admin(), body: { name: 'Icon target', slug: 'icon-target' } });
  target = res.json().service;
});

afterAll(async () => {
  recordFigure(
    'uploads',
    `${tally.clean} of ${tally.cases} cases refused with a clear message or accepted cleanly (${tally.refused} refused, ${tally.accepted} accepted; ` +
      `${tally.icon} icon cases through create, edit and import, ${tally.catalog} .catalog cases), ${tally.partialWrites} partial writes`,
    { ...tally, timingsMs: timings },
  );
  await t?.close();
});

const admin = () => ({ token: w.tokens.admin, tenant: w.tenant.slug });

/** The row count and a digest of every row of every catalog table. */
const state = () => catalogState(t.db);

type Reply = Awaited<ReturnType<typeof call>>;

/**
 * Runs one case: the database state before and after, a partial write counted whenever a refused
 * case changed anything, and the case counted clean only once every assertion has passed.
 */
async function runCase(
  kind: 'icon' | 'catalog',
  outcome: 'refused' | 'accepted',
  send: () => Promise<Reply>,
  check: (res: Reply, before: State, after: State) => Promise<void> | void,
) {
  const before = await state();
  const res = await send();
  const after = await state();
  tally.cases++;
  tally[kind]++;
  tally[outcome]++;
  const changed = CATALOG_TABLES.some((table) => before[table].n !== after[table].n || before[table].digest !== after[table].digest);
  if (outcome === 'refused' && changed) tally.partialWrites++;
  expect(res.statusCode, `a server error: ${res.body.slice(0, 300)}`).toBeLessThan(500);
  await check(res, before, after);
  tally.clean++;
}

function expectRefused(res: Reply, status: number, message: string | RegExp, before: State, after: State) {
  expect(res.statusCode, res.body.slice(0, 300)).toBe(status);
  const error = res.json().error as string;
  if (typeof message === 'string') expect(error).toBe(message);
  else expect(error).toMatch(message);
  expect(after, 'a refused upload changed the database').toEqual(before);
}

// ---------------------------------------------------------------------------------------------
// Icons
// ---------------------------------------------------------------------------------------------

type IconRoute = 'create' | 'edit' | 'import';
const ICON_ROUTES: IconRoute[] = ['create', 'edit', 'import'];
let slugs = 0;

async function sendIcon(route: IconRoute, icon: unknown): Promise<Reply> {
  if (route === 'create')
    return call(t.app, 'POST', '/api/services', { ...admin(), body: { name: 'Icon case', slug: `icon-case-${++slugs}`, icon_url: icon } });
  if (route === 'edit') return call(t.app, 'PUT', `/api/services/${target.id}`, { ...admin(), body: { name: target.name, icon_url: icon } });
  const doc = catalogDocument(1);
  (doc.service as Record<string, unknown>).icon_url = icon;
  return upload(gz(doc));
}

describe('icon matrix: create, edit and import', () => {
  it('flags every hostile SVG in its raw form, and nothing in a plain icon', () => {
    for (const c of ICON_CASES.filter((c) => c.hostileSvg)) expect(unsafeSvg(c.hostileSvg!), c.name).not.toEqual([]);
    expect(unsafeSvg(svgText(validateIcon(svgUrl(SVG_PLAIN))))).toEqual([]);
  });

  for (const c of ICON_CASES) {
    for (const route of ICON_ROUTES) {
      it(`${c.refuse ? 'refuses' : 'accepts'} ${c.name} (${route})`, async () => {
        await runCase(
          'icon',
          c.refuse ? 'refused' : 'accepted',
          () => sendIcon(route, c.icon),
          async (res, before, after) => {
            if (c.refuse) {
              const wrapped = `${I.invalidContent}: ${c.refuse.message} (service.icon_url)`;
              if (route === 'import') expectRefused(res, 400, c.refuse.importMessage ?? wrapped, before, after);
              else expectRefused(res, c.refuse.status, c.refuse.message, before, after);
              return;
            }
            expect(res.statusCode, res.body.slice(0, 300)).toBe({ create: 201, edit: 200, import: 201 }[route]);
            const stored = res.json().service.icon_url as string;
            c.accept!(stored);
            const id = route === 'edit' ? target.id : (res.json().service.id as string);
            const served = await call(t.app, 'GET', `/api/services/${id}`, admin());
            expect(served.json().service.icon_url).toBe(stored);
            const expected = route === 'create' ? { ...noDeltas(), services: 1, audit_log: 1 } : route === 'edit' ? noDeltas() : importDeltas(1, 1);
            // An edit may or may not write an audit row; it adds no other row.
            const got = deltas(before, after);
            if (route === 'edit') got.audit_log = 0;
            expect(got).toEqual(expected);
          },
        );
      });
    }
  }
});

// ---------------------------------------------------------------------------------------------
// .catalog files
// ---------------------------------------------------------------------------------------------

function upload(file: Buffer, filename = 'service.catalog') {
  const { body, headers } = multipart([{ field: 'file', filename, content: file }]);
  return call(t.app, 'POST', '/api/services/import', { ...admin(), body, headers });
}

function uploadBody(parts: Parameters<typeof multipart>[0], end = true) {
  const { body, headers } = multipart(parts, end);
  return call(t.app, 'POST', '/api/services/import', { ...admin(), body, headers });
}

/** The imported service as its export gives it back, without ids, slug and export time. */
async function exportedContent(serviceId: string) {
  const res = await call(t.app, 'GET', `/api/services/${serviceId}/export`, admin());
  expect(res.statusCode).toBe(200);
  const doc = JSON.parse(gunzipSync(res.rawPayload).toString('utf8')) as CatalogDocument;
  return normalise(doc);
}

/** An accepted import: 201, exactly the rows of the document, and the document given back by export. */
async function expectImported(res: Reply, before: State, after: State, doc: CatalogDocument) {
  expect(res.statusCode, res.body.slice(0, 300)).toBe(201);
  expect(deltas(before, after)).toEqual(importDeltas(doc.aspects.length, doc.availabilities.length));
  const created = res.json().service;
  expect(created.tenant_id).toBe(w.tenant.id);
  expect(await exportedContent(created.id)).toEqual(normalise(doc));
  return created as { id: string; name: string; slug: string };
}

const CATALOG_REFUSED = refusedCatalogCases({
  upload,
  uploadBody,
  postJson: (body) => call(t.app, 'POST', '/api/services/import', { ...admin(), body }),
});

describe('.catalog matrix: refused files leave every catalog table unchanged', () => {
  for (const c of CATALOG_REFUSED) {
    it(`refuses ${c.name}`, async () => {
      const started = Date.now();
      await runCase('catalog', 'refused', c.send, (res, before, after) => expectRefused(res, c.status, c.message, before, after));
      expect(polluted(), 'Object.prototype was polluted').toBe(false);
      if (/bomb/.test(c.name)) timings[c.name] = Date.now() - started;
    });
  }

  it('refuses 100,001 aspects with the limit in the message', async () => {
    const doc = catalogDocument(100_001, 100);
    const started = Date.now();
    await runCase(
      'catalog',
      'refused',
      () => upload(gz(doc)),
      (res, before, after) => expectRefused(res, 413, I.tooManyAspects(100_001, IMPORT_MAX_ASPECTS_CEILING), before, after),
    );
    timings['100,001 aspects refused'] = Date.now() - started;
  });
});

describe('.catalog matrix: accepted files are imported whole', () => {
  it('imports a valid file: every row of it, given back by export', async () => {
    const doc = { ...VALID, service: { ...VALID.service, icon_url: dataUrl('image/png', PNG_16) } };
    await runCase(
      'catalog',
      'accepted',
      () => upload(gz(doc)),
      async (res, before, after) => {
        await expectImported(res, before, after, doc);
      },
    );
  });

  it('imports a file sent as several gzip members (valid gzip)', async () => {
    const text = Buffer.from(validJson);
    const f = Buffer.concat([gzipSync(text.subarray(0, 100)), gzipSync(text.subarray(100))]);
    await runCase(
      'catalog',
      'accepted',
      () => upload(f),
      (res, before, after) => expectImported(res, before, after, VALID).then(() => undefined),
    );
  });

  it('imports names that spell __proto__, constructor and prototype as plain text', async () => {
    const doc = catalogDocument(3);
    doc.service.name = '__proto__';
    doc.categories = [{ id: '__proto__', name: 'constructor', position: 0 }];
    doc.aspects = doc.aspects.map((a, i) => ({
      ...a,
      id: ['__proto__', 'constructor', 'prototype'][i]!,
      category_id: '__proto__',
      title: ['__proto__', 'constructor.prototype', 'prototype'][i]!,
    }));
    doc.availabilities = doc.aspects.map((a) => ({ aspect_id: a.id, time_bucket: '2025-Q1', value: '__proto__' }));
    await runCase(
      'catalog',
      'accepted',
      () => upload(gz(doc)),
      async (res, before, after) => {
        const created = await expectImported(res, before, after, doc);
        expect(created.name).toBe('__proto__');
        expect(polluted()).toBe(false);
      },
    );
  });

  it('imports the first of two files and nothing of the second', async () => {
    const first = { ...VALID, service: { ...VALID.service, name: 'First of two' } };
    const second = { ...VALID, service: { ...VALID.service, name: 'Second of two' } };
    const send = () =>
      uploadBody([
        { field: 'file', filename: 'first.catalog', content: gz(first) },
        { field: 'file', filename: 'second.catalog', content: gz(second) },
      ]);
    await runCase('catalog', 'accepted', send, async (res, before, after) => {
      await expectImported(res, before, after, first);
      const names = (await call(t.app, 'GET', '/api/services', admin())).json().services.map((s: { name: string }) => s.name);
      expect(names).not.toContain('Second of two');
    });
  });

  it('imports a file that follows a text field', async () => {
    const send = () =>
      uploadBody([
        { field: 'note', content: 'hello' },
        { field: 'file', filename: 'service.catalog', content: gz(VALID) },
      ]);
    await runCase('catalog', 'accepted', send, (res, before, after) => expectImported(res, before, after, VALID).then(() => undefined));
  });
});

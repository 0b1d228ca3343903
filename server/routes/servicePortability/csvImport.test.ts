import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { M } from '../../../common/messages';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { assignServiceRole, createAspect, createCategory, createService, createUser, setAvailability, signIn } from '../../test/factories';
import { auditLog, availabilities, availabilityHistory, aspects, categories } from '../../db/schema';
import { CSV_IMPORT_MESSAGES as CM } from '../../commands/csvImport';
import { as, createCatalogWorld, type CatalogWorld, type Who } from '../services/catalog.fixtures';
import { multipartFile } from './multipart';

let t: TestApp;
let w: CatalogWorld;

const api = (who: Who) => as(t, w, who);
const FIXTURES = join(import.meta.dirname, '../../test/fixtures/csv');
const fixture = (name: string) => readFileSync(join(FIXTURES, name));
const TIMELINE = ['2026-Q1', '2026-Q2', '2026-Q3', '2026-Q4'];

/** A category's aspects: title, description, public, and their cells by quarter. */
type Seed = Record<string, [title: string, description: string, isPublic: boolean, cells: Record<string, string>][]>;

/** A service of the tenant with the categories, aspects and cells of `seed`, in its order. */
async function seededService(seed: Seed) {
  const tenantId = w.tenant.id;
  const service = await createService(t.db, tenantId, { timeline: TIMELINE });
  for (const [c, [name, aspectsOf]] of Object.entries(seed).entries()) {
    const category = await createCategory(t.db, tenantId, service.id, name, c);
    for (const [position, [title, description, isPublic, cells]] of aspectsOf.entries()) {
      const aspect = await createAspect(t.db, tenantId, service.id, category.id, { title, description: `<p>${description}</p>`, isPublic, position });
      for (const [quarter, value] of Object.entries(cells)) await setAvailability(t.db, tenantId, service.id, aspect.id, quarter, value);
    }
  }
  return { service };
}

/** The service the fixtures were exported from and edited against. */
const exportedService = () =>
  seededService({
    'Core Features': [
      ['Single sign-on', 'Log in once', true, { '2026-Q1': 'Beta', '2026-Q2': 'Generally available' }],
      ['Audit log', 'Every change recorded', false, { '2026-Q1': 'Planned, "soon"', '2026-Q4': '- tbd' }],
    ],
    Reporting: [['Dashboards', 'Charts', true, { '2026-Q3': 'Line one\nLine two' }]],
  });

/** The service of the files saved in Windows-1252 and UTF-16: accented names, and texts with the characters Windows-1252 keeps where Latin-1 has none (– ’ €). */
const accentedService = () =>
  seededService({
    Sécurité: [
      ['Authentification unique', 'Connexion en une fois', true, { '2026-Q1': 'Bêta – à l’essai', '2026-Q2': 'Disponible' }],
      ['Journal d’audit', 'Chaque modification', false, { '2026-Q1': 'Prévu', '2026-Q4': 'Coût : 5 €' }],
    ],
  });

/** Every cell of a service as `category / aspect / quarter -> value`. */
async function cellsOf(serviceId: string): Promise<Record<string, string>> {
  const rows = await t.db
    .select({ category: categories.name, aspect: aspects.title, quarter: availabilities.timeBucket, value: availabilities.value })
    .from(availabilities)
    .innerJoin(aspects, eq(aspects.id, availabilities.aspectId))
    .innerJoin(categories, eq(categories.id, aspects.categoryId))
    .where(eq(availabilities.serviceId, serviceId));
  return Object.fromEntries(rows.map((r) => [`${r.category} / ${r.aspect} / ${r.quarter}`, r.value]));
}

function upload(who: Who | string, serviceId: string, content: Buffer, apply = false) {
  const { body, headers } = multipartFile(content, 'roadmap.csv');
  const token = who in w.tokens ? w.tokens[who as keyof typeof w.tokens] : who === 'nobody' ? null : who;
  return call(t.app, 'POST', `/api/services/${serviceId}/csv-import${apply ? '?apply=true' : ''}`, { token, body, headers });
}

/** What the edited fixtures change, whatever program wrote them. */
const EDITED_CHANGES = {
  'Core Features / Single sign-on / 2026-Q2': 'GA in EU',
  'Core Features / Audit log / 2026-Q1': undefined,
  'Reporting / Dashboards / 2026-Q1': 'Pilot',
  'Reporting / Exports / 2026-Q4': 'Planned',
  'Security / SCIM / 2026-Q1': 'Beta',
};

// Every file is applied both ways, with the same outcome: in one transaction, and in steps of one
// cell each (docs/decisions/0139-csv-apply-in-steps.md).
describe.each([
  ['in one transaction', '0'],
  ['in steps', '1'],
])('POST /api/services/{id}/csv-import, applied %s', (_, stepCells) => {
  beforeAll(async () => {
    t = await buildTestApp({ CSV_APPLY_STEP_CELLS: stepCells });
    w = await createCatalogWorld(t);
  });
  afterAll(() => t.close());

  it('imports its own export unchanged: every row unchanged, nothing to apply', async () => {
    const f = await exportedService();
    const csv = await api('editor')('GET', `/api/export/service/${f.service.id}/csv?showPrivate=true`);
    expect(csv.statusCode).toBe(200);
    const res = await upload('editor', f.service.id, Buffer.from(csv.body, 'utf8'));
    expect(res.statusCode).toBe(200);
    expect(res.json().preview).toEqual({
      categories_added: [],
      aspects_added: [],
      aspects_changed: [],
      cells_changed: [],
      rows_unchanged: 3,
      rows_in_error: [],
      quarters_outside_timeline: [],
      encoding: 'utf-8',
    });
  });

  it.each(['libreoffice-comma.csv', 'libreoffice-semicolon.csv', 'libreoffice-bom-crlf.csv'])(
    'previews, then applies exactly what was edited in %s, all at once',
    async (name) => {
      const f = await exportedService();
      const before = await cellsOf(f.service.id);
      const preview = await upload('editor', f.service.id, fixture(name));
      expect(preview.statusCode).toBe(200);
      expect(preview.json()).toMatchObject({
        applied: false,
        preview: {
          categories_added: ['Security'],
          aspects_added: [
            { category: 'Reporting', aspect: 'Exports', public: true },
            { category: 'Security', aspect: 'SCIM', public: false },
          ],
          aspects_changed: [],
          rows_unchanged: 0,
          rows_in_error: [],
          quarters_outside_timeline: ['2027-Q1'],
          encoding: 'utf-8',
        },
      });
      expect(preview.json().preview.cells_changed).toEqual([
        { category: 'Core Features', aspect: 'Single sign-on', quarter: '2026-Q2', old: 'Generally available', new: 'GA in EU' },
        { category: 'Core Features', aspect: 'Audit log', quarter: '2026-Q1', old: 'Planned, "soon"', new: '' },
        { category: 'Reporting', aspect: 'Dashboards', quarter: '2026-Q1', old: '', new: 'Pilot' },
        { category: 'Reporting', aspect: 'Exports', quarter: '2026-Q4', old: '', new: 'Planned' },
        { category: 'Security', aspect: 'SCIM', quarter: '2026-Q1', old: '', new: 'Beta' },
      ]);
      // The preview wrote nothing.
      expect(await cellsOf(f.service.id)).toEqual(before);

      const applied = await upload('editor', f.service.id, fixture(name), true);
      expect(applied.statusCode).toBe(200);
      expect(applied.json().applied).toBe(true);
      const expected: Record<string, string> = { ...before };
      for (const [key, value] of Object.entries(EDITED_CHANGES)) {
        if (value === undefined) delete expected[key];
        else expected[key] = value;
      }
      expect(await cellsOf(f.service.id)).toEqual(expected);
      const audit = await t.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.targetId, f.service.id), eq(auditLog.action, 'availability.csv_import')));
      expect(audit).toHaveLength(1);
      expect(audit[0]!.details).toMatchObject({ count: 5, categoriesAdded: 1, aspectsAdded: 2 });
      const history = await t.db.select().from(availabilityHistory).where(eq(availabilityHistory.serviceId, f.service.id));
      expect(history.filter((h) => h.changedBy === w.users.editor.email)).toHaveLength(5);
      // Imported again, the same file changes nothing more.
      expect((await upload('editor', f.service.id, fixture(name))).json().preview).toMatchObject({ cells_changed: [], rows_unchanged: 5 });
    },
  );

  it.each([
    ['libreoffice-windows-1252-semicolon.csv', 'windows-1252'],
    ['libreoffice-utf16-tab.csv', 'utf-16'],
  ])('reads accented names and texts from %s, as %s, and changes only what was edited', async (name, encoding) => {
    const f = await accentedService();
    const before = await cellsOf(f.service.id);
    const preview = await upload('editor', f.service.id, fixture(name));
    expect(preview.statusCode).toBe(200);
    const change = { category: 'Sécurité', aspect: 'Authentification unique', quarter: '2026-Q2', old: 'Disponible', new: 'Généralement disponible' };
    expect(preview.json().preview).toEqual({
      categories_added: [],
      aspects_added: [],
      aspects_changed: [],
      cells_changed: [change],
      rows_unchanged: 1,
      rows_in_error: [],
      quarters_outside_timeline: [],
      encoding,
    });
    expect((await upload('editor', f.service.id, fixture(name), true)).statusCode).toBe(200);
    expect(await cellsOf(f.service.id)).toEqual({ ...before, 'Sécurité / Authentification unique / 2026-Q2': 'Généralement disponible' });
  });

  it('previews a changed description as its old and new text', async () => {
    const f = await exportedService();
    const csv = (await api('editor')('GET', `/api/export/service/${f.service.id}/csv?showPrivate=true`)).body;
    expect(csv).toContain('Log in once');
    const res = await upload('editor', f.service.id, Buffer.from(csv.replace('Log in once', 'Log in once for all'), 'utf8'));
    expect(res.statusCode).toBe(200);
    expect(res.json().preview.aspects_changed).toEqual([
      {
        category: 'Core Features',
        aspect: 'Single sign-on',
        changes: ['description changed'],
        description: { old: 'Log in once', new: 'Log in once for all' },
      },
    ]);
  });

  it('lists rows in error with their line and reason, and refuses to apply any of the file', async () => {
    const f = await exportedService();
    const before = await cellsOf(f.service.id);
    const csv = [
      'Category,Aspect,Description,Public,2026-Q1',
      'Core Features,Single sign-on,Log in once,Yes,Changed',
      ',No category,,Yes,x',
      'Core Features,,,Yes,x',
      'Core Features,Odd,,Maybe,x',
      'Core Features,single sign-on,,Yes,again',
      '',
    ].join('\n');
    const res = await upload('editor', f.service.id, Buffer.from(csv));
    expect(res.json().preview.rows_in_error).toEqual([
      { line: 3, reason: CM.categoryRequired },
      { line: 4, reason: CM.aspectRequired },
      { line: 5, reason: CM.publicValue },
      { line: 6, reason: CM.duplicateRow(2) },
    ]);
    const applied = await upload('editor', f.service.id, Buffer.from(csv), true);
    expect(applied.statusCode).toBe(400);
    expect(applied.json().error).toBe(CM.hasErrors);
    expect(await cellsOf(f.service.id)).toEqual(before);
  });

  it.each([
    ['', CM.empty],
    ['Name,Title\nx,y\n', CM.heading],
    ['Category,Aspect,Description,Public,Next year\n', CM.quarterHeading('Next year')],
  ])('refuses a file that is not the export’s shape (%#)', async (content, message) => {
    const res = await upload('editor', w.service.id, Buffer.from(content));
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe(message);
  });

  it('answers 404 for another tenant’s service, 403 to a reader, 409 on an archived service, and lets a service role raise a reader', async () => {
    const csv = fixture('libreoffice-comma.csv');
    expect((await upload('otherAdmin', w.service.id, csv)).statusCode).toBe(404);
    expect((await upload('admin', w.foreign.id, csv)).statusCode).toBe(404);
    expect((await upload('reader', w.service.id, csv)).statusCode).toBe(403);
    const archived = await upload('admin', w.archived.id, csv, true);
    expect(archived.statusCode).toBe(409);
    expect(archived.json().error).toBe(M.serviceArchivedConflict);
    const f = await exportedService();
    const user = await createUser(t.db, w.tenant.id, { role: 'reader' });
    const token = await signIn(t.app, user.email);
    expect((await upload(token, f.service.id, csv)).statusCode).toBe(403);
    await assignServiceRole(t.db, w.tenant.id, f.service.id, user.id, 'editor');
    expect((await upload(token, f.service.id, csv, true)).statusCode).toBe(200);
    expect((await cellsOf(f.service.id))['Security / SCIM / 2026-Q1']).toBe('Beta');
  });
});

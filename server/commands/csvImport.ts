import { parse as parseCsv } from 'csv-parse/sync';
import { CSV_IMPORT_MAX_ASPECTS_DEFAULT, MAX_NAME_LENGTH, MAX_RICH_TEXT_LENGTH, MAX_TEXT_LENGTH } from '../../common/limits';
import { QUARTER_PATTERN } from '../../common/quarters';
import type { CsvEncoding, CsvImportPlan } from '../../common/schemas/settings';
import { htmlToText } from '../../common/richText';
import type { Executor } from '../db/client';
import { availabilitiesOfService, insertAspects, insertCategory, listAspects, listCategories, nextAspectPosition, updateAspect } from '../db/queries/catalog';
import type { ServiceRow } from '../db/queries/services';
import { lockService } from '../db/queries/services';
import { conflict, invalid, tooLarge } from '../errors';
import { M } from '../../common/messages';
import { sanitizeRichText } from '../content/sanitize';
import type { Actor } from '../plugins/context';
import { writeServiceCells } from './availabilityWrites';
import { writeAudit } from './audit';
import { decodeCsv, separatorOf } from './csvText';
import { applyInSteps, CSV_APPLY_BUSY, csvApplyUnderWay, mayNeedSteps, needsSteps, type CsvApplySteps, type CsvApplyWork } from './csvApplySteps';

/**
 * A CSV in the shape the CSV export writes (Category, Aspect, Description, Public, one column per
 * quarter), read into an existing service (docs/decisions/0127-csv-import.md): the preview says
 * what would change and writes nothing; the apply makes exactly that, all or nothing.
 */

export const CSV_IMPORT_MESSAGES = {
  empty: 'The file is empty: it needs the heading row of the CSV export (Category, Aspect, Description, Public, then the quarters).',
  unreadable: 'The file could not be read as CSV',
  heading: 'The first row must be the heading of the CSV export: Category, Aspect, Description, Public, then one column per quarter.',
  quarterHeading: (name: string) => `The column “${name}” is not a quarter (quarters look like 2025-Q1)`,
  duplicateQuarter: (name: string) => `The quarter ${name} has more than one column`,
  tooManyRows: (max: number) => `A CSV import may hold at most ${max} aspects (rows); this file has more. Split it and import each part.`,
  categoryRequired: 'Category is empty',
  aspectRequired: 'Aspect is empty',
  nameTooLong: `Category and aspect names may be at most ${MAX_NAME_LENGTH} characters`,
  valueTooLong: (quarter: string) => `The value for ${quarter} is longer than ${MAX_TEXT_LENGTH} characters`,
  descriptionTooLong: `The description is longer than ${MAX_RICH_TEXT_LENGTH} characters`,
  publicValue: 'Public must be Yes or No',
  duplicateRow: (line: number) => `The same category and aspect as line ${line}`,
  hasErrors: 'The file has rows in error: fix them (the preview lists them) and import again. Nothing was changed.',
} as const;

const CM = CSV_IMPORT_MESSAGES;
const HEADING = ['category', 'aspect', 'description', 'public'];
/** The most bytes a CSV import reads. */
export const CSV_IMPORT_MAX_BYTES = 5 * 1024 * 1024;

/** What a file would change, or changed: the answer's `preview`. */
export type CsvPlan = CsvImportPlan;

interface CsvRow {
  line: number;
  category: string;
  aspect: string;
  description: string;
  isPublic: boolean | null;
  values: Map<string, string>;
}

/** The export puts a quote before a cell a spreadsheet would read as a formula; the import takes it off. */
function restoreCell(value: string): string {
  return /^'[=+\-@\t\r]/.test(value) ? value.slice(1) : value;
}

/** Reads the file: its encoding (csvText.ts), comma, semicolon or tab, CRLF or LF, quoted cells. */
export function readRoadmapCsv(
  file: Buffer,
  maxAspects = CSV_IMPORT_MAX_ASPECTS_DEFAULT,
): { quarters: string[]; rows: CsvRow[]; errors: { line: number; reason: string }[]; encoding: CsvEncoding } {
  const { text, encoding } = decodeCsv(file);
  if (!text.trim()) throw invalid(CM.empty, 'file');
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parseCsv(text, {
      delimiter: separatorOf(text),
      relax_column_count: true,
      skip_empty_lines: true,
      info: true,
    }) as unknown as typeof records;
  } catch (err) {
    throw invalid(`${CM.unreadable}: ${(err as Error).message}`, 'file');
  }
  const [head, ...body] = records;
  if (!head) throw invalid(CM.empty, 'file');
  const heading = head.record.map((h) => h.trim());
  if (heading.length < 4 || HEADING.some((h, i) => heading[i]!.toLowerCase() !== h)) throw invalid(CM.heading, 'file');
  const quarters = heading.slice(4);
  const seenQuarters = new Set<string>();
  for (const q of quarters) {
    if (!QUARTER_PATTERN.test(q)) throw invalid(CM.quarterHeading(q), 'file');
    if (seenQuarters.has(q)) throw invalid(CM.duplicateQuarter(q), 'file');
    seenQuarters.add(q);
  }
  if (body.length > maxAspects) throw tooLarge(CM.tooManyRows(maxAspects));
  const rows: CsvRow[] = [];
  const errors: { line: number; reason: string }[] = [];
  const seen = new Map<string, number>();
  for (const { record, info } of body) {
    const line = info.lines;
    const cell = (i: number) => restoreCell(record[i] ?? '');
    const category = cell(0).trim();
    const aspect = cell(1).trim();
    const publicText = cell(3).trim().toLowerCase();
    const fail = (reason: string) => errors.push({ line, reason });
    if (!category) {
      fail(CM.categoryRequired);
      continue;
    }
    if (!aspect) {
      fail(CM.aspectRequired);
      continue;
    }
    if (category.length > MAX_NAME_LENGTH || aspect.length > MAX_NAME_LENGTH) {
      fail(CM.nameTooLong);
      continue;
    }
    const isPublic = ['yes', 'true', '1'].includes(publicText)
      ? true
      : ['no', 'false', '0'].includes(publicText)
        ? false
        : publicText === ''
          ? null
          : undefined;
    if (isPublic === undefined) {
      fail(CM.publicValue);
      continue;
    }
    const description = cell(2);
    if (description.length > MAX_RICH_TEXT_LENGTH) {
      fail(CM.descriptionTooLong);
      continue;
    }
    const values = new Map<string, string>();
    const tooLong = quarters.find((q, i) => cell(4 + i).trim().length > MAX_TEXT_LENGTH);
    if (tooLong) {
      fail(CM.valueTooLong(tooLong));
      continue;
    }
    quarters.forEach((q, i) => values.set(q, cell(4 + i).trim()));
    const key = `${category.toLowerCase()}\u0000${aspect.toLowerCase()}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      fail(CM.duplicateRow(earlier));
      continue;
    }
    seen.set(key, line);
    rows.push({ line, category, aspect, description, isPublic, values });
  }
  return { quarters, rows, errors, encoding };
}

/** Plain text (a description as the export writes it) as the rich text of the catalog: one paragraph per line. */
function textToHtml(text: string): string {
  const escape = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  const lines = text.split(/\r?\n/);
  return text.trim() ? lines.map((l) => `<p>${escape(l)}</p>`).join('') : '';
}

interface Planned {
  plan: CsvPlan;
  newCategories: string[];
  newAspects: CsvRow[];
  aspectUpdates: { id: string; row: CsvRow; isPublic?: boolean; description?: string }[];
  cells: { row: CsvRow; aspectId: string | null; quarter: string; value: string }[];
  /** The service's categories by name (trimmed, lower case). */
  categoryIds: Map<string, string>;
}

/** What the file (read by readRoadmapCsv) would change in the service, read now. */
async function planImport(db: Executor, service: ServiceRow, { quarters, rows, errors, encoding }: ReturnType<typeof readRoadmapCsv>): Promise<Planned> {
  const timeline = new Set(service.timeline);
  const inTimeline = quarters.filter((q) => timeline.has(q));
  // One after the other: in the apply, `db` is a transaction, whose one connection runs one query at a time.
  const categories = await listCategories(db, service.tenantId, service.id);
  const aspects = await listAspects(db, service.tenantId, service.id, { includePrivate: true });
  const texts = await availabilitiesOfService(db, service.tenantId, service.id, { includePrivate: true });
  const categoryByName = new Map(categories.map((c) => [c.name.trim().toLowerCase(), c]));
  const categoryName = new Map(categories.map((c) => [c.id, c.name]));
  const aspectByKey = new Map(aspects.map((a) => [`${(categoryName.get(a.categoryId) ?? '').trim().toLowerCase()}\u0000${a.title.trim().toLowerCase()}`, a]));
  const stored = new Map(texts.map((t) => [`${t.aspectId}|${t.timeBucket}`, t.value]));
  const plan: CsvPlan = {
    categories_added: [],
    aspects_added: [],
    aspects_changed: [],
    cells_changed: [],
    rows_unchanged: 0,
    rows_in_error: errors,
    quarters_outside_timeline: quarters.filter((q) => !timeline.has(q)),
    encoding,
  };
  const categoryIds = new Map([...categoryByName].map(([name, c]) => [name, c.id]));
  const planned: Planned = { plan, newCategories: [], newAspects: [], aspectUpdates: [], cells: [], categoryIds };
  const addedCategories = new Set<string>();
  for (const row of rows) {
    const categoryKey = row.category.toLowerCase();
    if (!categoryByName.has(categoryKey) && !addedCategories.has(categoryKey)) {
      addedCategories.add(categoryKey);
      planned.newCategories.push(row.category);
      plan.categories_added.push(row.category);
    }
    const existing = aspectByKey.get(`${categoryKey}\u0000${row.aspect.toLowerCase()}`);
    let changed = false;
    if (!existing) {
      planned.newAspects.push(row);
      plan.aspects_added.push({ category: row.category, aspect: row.aspect, public: row.isPublic ?? false });
      changed = true;
    } else {
      const update: Planned['aspectUpdates'][number] = { id: existing.id, row };
      const changes: string[] = [];
      let description: { old: string; new: string } | undefined;
      if (row.isPublic !== null && row.isPublic !== existing.isPublic) {
        update.isPublic = row.isPublic;
        changes.push(row.isPublic ? 'made public' : 'made private');
      }
      // The description as the export wrote it (plain text): changed only when its text was edited.
      if (row.description.trim() !== htmlToText(existing.description).trim()) {
        update.description = textToHtml(row.description);
        changes.push('description changed');
        description = { old: htmlToText(existing.description).trim(), new: row.description.trim() };
      }
      if (changes.length) {
        planned.aspectUpdates.push(update);
        plan.aspects_changed.push({ category: row.category, aspect: row.aspect, changes, ...(description ? { description } : {}) });
        changed = true;
      }
    }
    for (const quarter of inTimeline) {
      const value = row.values.get(quarter) ?? '';
      const old = existing ? (stored.get(`${existing.id}|${quarter}`) ?? '') : '';
      if (value === old) continue;
      planned.cells.push({ row, aspectId: existing?.id ?? null, quarter, value });
      plan.cells_changed.push({ category: row.category, aspect: row.aspect, quarter, old, new: value });
      changed = true;
    }
    if (!changed) plan.rows_unchanged++;
  }
  return planned;
}

/** A plan as the apply in steps writes it: new rows named by their place among the new ones. */
function workOf(planned: Planned): CsvApplyWork {
  const categoryAt = new Map(planned.newCategories.map((name, i) => [name.toLowerCase(), i]));
  const aspectAt = new Map(planned.newAspects.map((row, i) => [row, i]));
  return {
    categories: planned.newCategories.map((name) => ({ name })),
    aspects: planned.newAspects.map((row) => ({
      category: planned.categoryIds.get(row.category.toLowerCase()) ?? categoryAt.get(row.category.toLowerCase())!,
      title: row.aspect,
      description: textToHtml(row.description),
      isPublic: row.isPublic ?? false,
    })),
    updates: planned.aspectUpdates.map((u) => ({ id: u.id, isPublic: u.isPublic, description: u.description })),
    cells: planned.cells.map((c) => ({ aspect: c.aspectId ?? aspectAt.get(c.row)!, quarter: c.quarter, value: c.value })),
    details: { categoriesAdded: planned.newCategories.length, aspectsAdded: planned.newAspects.length, aspectsChanged: planned.aspectUpdates.length },
    plan: planned.plan,
  };
}

/** The preview: what the file would change; nothing is written. */
export async function previewCsvImport(db: Executor, service: ServiceRow, file: Buffer, maxAspects?: number): Promise<CsvPlan> {
  return (await planImport(db, service, readRoadmapCsv(file, maxAspects))).plan;
}

/**
 * Applies the file, all or nothing; a file with rows in error changes nothing. Larger than one of
 * `steps` (the embedded database), it is written in steps with a journal that undoes them
 * (csvApplySteps.ts, decision 0139). Otherwise in one transaction, the plan made again under the
 * service's lock, so it is exactly what a preview read now would say.
 */
export async function applyCsvImport(
  db: Executor,
  actor: Actor,
  service: ServiceRow,
  file: Buffer,
  maxAspects?: number,
  steps?: CsvApplySteps,
): Promise<CsvPlan> {
  const read = readRoadmapCsv(file, maxAspects);
  if (steps && mayNeedSteps(read.rows.length, read.quarters.length, steps)) {
    // Planned outside a transaction: each cell is written only if it still holds what was read here.
    const planned = await planImport(db, service, read);
    if (planned.plan.rows_in_error.length) throw invalid(CM.hasErrors, 'file');
    const work = workOf(planned);
    if (needsSteps(work, steps)) return applyInSteps(db, actor, service.tenantId, service.id, work, steps);
  }
  return db.transaction(async (tx) => {
    const locked = await lockService(tx, service.tenantId, service.id);
    if (!locked) throw invalid(M.serviceNotFound);
    if (locked.archived) throw conflict(M.serviceArchivedConflict);
    if (await csvApplyUnderWay(tx, locked.tenantId, locked.id)) throw conflict(CSV_APPLY_BUSY);
    const planned = await planImport(tx, locked, read);
    if (planned.plan.rows_in_error.length) throw invalid(CM.hasErrors, 'file');
    const tenantId = locked.tenantId;
    const categories = await listCategories(tx, tenantId, locked.id);
    let position = categories.reduce((max, c) => Math.max(max, c.position + 1), 0);
    const categoryIds = new Map(categories.map((c) => [c.name.trim().toLowerCase(), c.id]));
    for (const name of planned.newCategories) {
      const created = await insertCategory(tx, { tenantId, serviceId: locked.id, name, position: position++ });
      categoryIds.set(name.toLowerCase(), created.id);
    }
    // The new aspects in one statement, each after the last of its category.
    const aspectIds = new Map<CsvRow, string>();
    const nextPosition = new Map<string, number>();
    const values = [];
    for (const row of planned.newAspects) {
      const categoryId = categoryIds.get(row.category.toLowerCase())!;
      const at = nextPosition.get(categoryId) ?? (await nextAspectPosition(tx, tenantId, categoryId));
      nextPosition.set(categoryId, at + 1);
      values.push({
        tenantId,
        serviceId: locked.id,
        categoryId,
        title: row.aspect,
        description: sanitizeRichText(textToHtml(row.description)),
        isPublic: row.isPublic ?? false,
        position: at,
      });
    }
    const created = await insertAspects(tx, values);
    planned.newAspects.forEach((row, i) => aspectIds.set(row, created[i]!.id));
    for (const u of planned.aspectUpdates) {
      await updateAspect(tx, tenantId, u.id, {
        ...(u.isPublic === undefined ? {} : { isPublic: u.isPublic }),
        ...(u.description === undefined ? {} : { description: sanitizeRichText(u.description) }),
      });
    }
    const cells = planned.cells.map((c) => ({ aspectId: c.aspectId ?? aspectIds.get(c.row)!, timeBucket: c.quarter, value: c.value }));
    const details = { categoriesAdded: planned.newCategories.length, aspectsAdded: planned.newAspects.length, aspectsChanged: planned.aspectUpdates.length };
    const written = cells.length ? await writeServiceCells(tx, actor, tenantId, locked.id, cells, { action: 'availability.csv_import', details }) : null;
    if (!written?.changed.length && (planned.newCategories.length || planned.newAspects.length || planned.aspectUpdates.length)) {
      await writeAudit(tx, actor, {
        tenantId,
        action: 'availability.csv_import',
        targetType: 'service',
        targetId: locked.id,
        details: { count: 0, ...details },
      });
    }
    return planned.plan;
  });
}

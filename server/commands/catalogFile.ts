/**
 * The .catalog file format: reading, validating and preparing a file for writing. Nothing here
 * touches the database, so it also runs in the import thread (server/commands/importThread.ts).
 */
import { timeOrderedId } from '../content/timeOrderedId';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { z } from 'zod';
import {
  IMPORT_MAX_ASPECTS_DEFAULT,
  IMPORT_MAX_COMPRESSED_BYTES,
  IMPORT_MAX_UNPACKED_BYTES,
  MAX_NAME_LENGTH,
  MAX_RICH_TEXT_LENGTH,
  MAX_SLUG_LENGTH,
  MAX_TEXT_LENGTH,
  MAX_TIMELINE_QUARTERS,
} from '../../common/limits';
import { defaultTimeline, QUARTER_PATTERN, quarterRange } from '../../common/quarters';
import { autoSlug, SLUG_PATTERN } from '../../common/slug';
import { validateIcon } from '../content/icon';
import { sanitizeRichText } from '../content/sanitize';
import { AppError, invalid, tooLarge } from '../errors';

export const CATALOG_FORMAT = 'service-catalog';
export const CATALOG_VERSION = 1;

export const IMPORT_MESSAGES = {
  fileRequired: 'Please choose a .catalog file to import',
  incompleteUpload: 'The upload was incomplete. Please choose the .catalog file again',
  notGzip: 'This file is not a .catalog export (it is not gzip-compressed)',
  corrupt: 'This .catalog file is damaged and cannot be unpacked',
  badJson: 'This .catalog file does not contain valid JSON',
  tooDeep: 'This .catalog file is nested too deeply',
  nulCharacter: 'This .catalog file contains a null character, which cannot be stored',
  wrongFormat: 'This file is not a service catalog export',
  wrongVersion: `This .catalog file has an unsupported version (expected ${CATALOG_VERSION})`,
  forbiddenKey: 'This .catalog file contains a forbidden key',
  tooLargeCompressed: `The file is too large: at most ${IMPORT_MAX_COMPRESSED_BYTES / 1024 / 1024} MB`,
  tooLargeUnpacked: `The file unpacks to more than ${IMPORT_MAX_UNPACKED_BYTES / 1024 / 1024} MB`,
  invalidContent: 'This .catalog file is invalid',
  tooManyAspects: (count: number, max: number) =>
    `This .catalog file holds ${count} aspects: an import may hold at most ${max} (the server's IMPORT_MAX_ASPECTS). Nothing was imported.`,
} as const;
const I = IMPORT_MESSAGES;

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/**
 * What a JSON text must contain to hold a forbidden key or U+0000: the key spelled out, or an escape
 * (a key can be spelled with escapes, and U+0000 can only be written as one). A text without any
 * of them is parsed without looking at every key and string.
 */
const MAYBE_FORBIDDEN = /__proto__|constructor|prototype|\\u/;

const text = (max: number) => z.string().max(max);
const position = z.number().int().min(0).max(1_000_000);
/** The longest id a file may give a category or an aspect. */
const MAX_FILE_ID_LENGTH = 100;
const fileId = z.string().min(1).max(MAX_FILE_ID_LENGTH);

export const availabilitySchema = z.strictObject({ aspect_id: fileId, time_bucket: z.string().regex(QUARTER_PATTERN), value: text(MAX_TEXT_LENGTH) });
type Availability = z.infer<typeof availabilitySchema>;
const MAX_AVAILABILITIES = 1_000_000;

/**
 * The document's schema, its availabilities checked by `availabilities`: the full schema checks each
 * one with zod; the other takes them as cellsAreValid found them, so the file's 120,000 texts are not
 * checked twice (decision 0136).
 */
const documentSchemaWith = (availabilities: z.ZodType<Availability[]>) =>
  z
    .strictObject({
      format: z.literal(CATALOG_FORMAT, { error: I.wrongFormat }),
      version: z.literal(CATALOG_VERSION, { error: I.wrongVersion }),
      exported_at: z.string().max(100).optional(),
      service: z.strictObject({
        name: text(MAX_NAME_LENGTH).trim().min(1),
        slug: text(MAX_SLUG_LENGTH).regex(SLUG_PATTERN).optional(),
        description: text(MAX_RICH_TEXT_LENGTH).nullish(),
        service_owner: text(MAX_TEXT_LENGTH).nullish(),
        subscription_model: text(MAX_TEXT_LENGTH).nullish(),
        icon_url: z.string().max(200_000).nullish(),
        timeline: z.array(z.string().regex(QUARTER_PATTERN)).max(MAX_TIMELINE_QUARTERS).optional(),
      }),
      categories: z.array(z.strictObject({ id: fileId, name: text(MAX_NAME_LENGTH).trim().min(1), position })).max(10_000),
      aspects: z
        .array(
          z.strictObject({
            id: fileId,
            category_id: fileId,
            title: text(MAX_NAME_LENGTH).trim().min(1),
            description: text(MAX_RICH_TEXT_LENGTH).nullish(),
            is_public: z.boolean(),
            position,
          }),
        )
        .max(100_000),
      availabilities,
      roles: z.array(z.strictObject({ role_name: text(MAX_NAME_LENGTH).trim().min(1), position })).max(10_000),
      templates: z.array(z.strictObject({ template_text: text(MAX_TEXT_LENGTH).trim().min(1), position })).max(10_000),
    })
    .superRefine((doc, ctx) => {
      const categoryIds = new Set<string>();
      for (const c of doc.categories) {
        if (categoryIds.has(c.id)) ctx.addIssue({ code: 'custom', message: 'Duplicate category id', path: ['categories'] });
        categoryIds.add(c.id);
      }
      const aspectIds = new Set<string>();
      for (const a of doc.aspects) {
        if (aspectIds.has(a.id)) ctx.addIssue({ code: 'custom', message: 'Duplicate aspect id', path: ['aspects'] });
        if (!categoryIds.has(a.category_id)) ctx.addIssue({ code: 'custom', message: 'An aspect names an unknown category', path: ['aspects'] });
        aspectIds.add(a.id);
      }
      // Each aspect's quarters: a set per aspect, not a key made for each of 120,000 texts.
      const quartersOf = new Map<string, Set<string>>();
      for (const v of doc.availabilities) {
        if (!aspectIds.has(v.aspect_id)) ctx.addIssue({ code: 'custom', message: 'An availability names an unknown aspect', path: ['availabilities'] });
        let quarters = quartersOf.get(v.aspect_id);
        if (!quarters) quartersOf.set(v.aspect_id, (quarters = new Set()));
        if (quarters.has(v.time_bucket)) ctx.addIssue({ code: 'custom', message: 'Duplicate availability', path: ['availabilities'] });
        quarters.add(v.time_bucket);
      }
      const t = doc.service.timeline;
      if (t?.length && quarterRange(t[0]!, t[t.length - 1]!).join() !== t.join()) {
        ctx.addIssue({ code: 'custom', message: 'The timeline must be contiguous, ordered quarters', path: ['service', 'timeline'] });
      }
    });
const documentSchema = documentSchemaWith(z.array(availabilitySchema).max(MAX_AVAILABILITIES));
const documentSchemaCellsChecked = documentSchemaWith(z.array(z.custom<Availability>()).max(MAX_AVAILABILITIES));
export type CatalogDocument = z.infer<typeof documentSchema>;

/**
 * Whether every element of `list` is an availability `availabilitySchema` accepts: an object of
 * exactly its three keys, an id of 1 to MAX_FILE_ID_LENGTH characters, a quarter and a text of at most
 * MAX_TEXT_LENGTH. In a plain loop, several times faster than zod's check of each object; where it
 * answers false, zod checks the document and says what is wrong. It never accepts what zod refuses
 * (catalogFile.test.ts compares them). It counts a text's UTF-16 units where zod counts code points:
 * a text over its bound in units (emoji, say) is left to zod, which may still accept it.
 */
export function cellsAreValid(list: unknown): list is Availability[] {
  if (!Array.isArray(list) || list.length > MAX_AVAILABILITIES) return false;
  for (const v of list as unknown[]) {
    if (v === null || typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return false;
    if (Object.keys(v).length !== 3) return false;
    const { aspect_id: id, time_bucket: quarter, value } = v as Record<string, unknown>;
    if (typeof id !== 'string' || id.length < 1 || id.length > MAX_FILE_ID_LENGTH) return false;
    if (typeof quarter !== 'string' || !QUARTER_PATTERN.test(quarter)) return false;
    if (typeof value !== 'string' || value.length > MAX_TEXT_LENGTH) return false;
  }
  return true;
}

const GZIP_MAGIC = [0x1f, 0x8b];

/**
 * Unpacks and validates a whole .catalog file before anything is written. Unpacking stops as soon
 * as the output passes the limit, so a gzip bomb costs no more than the limit.
 */
export async function readCatalogFile(file: Buffer, maxAspects = IMPORT_MAX_ASPECTS_DEFAULT): Promise<CatalogDocument> {
  if (file.length < 2 || file[0] !== GZIP_MAGIC[0] || file[1] !== GZIP_MAGIC[1]) throw invalid(I.notGzip, 'file');
  let json: Buffer;
  try {
    json = await promisify(gunzip)(file, { maxOutputLength: IMPORT_MAX_UNPACKED_BYTES });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) throw tooLarge(I.tooLargeUnpacked);
    throw invalid(I.corrupt, 'file');
  }
  let data: unknown;
  let forbidden = false;
  let nul = false;
  try {
    const text = json.toString('utf8');
    if (MAYBE_FORBIDDEN.test(text)) {
      // Only then is every key and string looked at, which doubles the time of the parse.
      data = JSON.parse(text, function reviver(key, value) {
        if (FORBIDDEN_KEYS.has(key)) forbidden = true;
        // The database's text type cannot hold U+0000.
        if (typeof value === 'string' && value.includes('\u0000')) nul = true;
        return value;
      });
    } else data = JSON.parse(text);
  } catch (err) {
    // The reviver walks the parsed tree recursively: nesting deeper than the stack is a RangeError.
    throw invalid(err instanceof RangeError ? I.tooDeep : I.badJson, 'file');
  }
  if (forbidden) throw invalid(I.forbiddenKey, 'file');
  if (nul) throw invalid(I.nulCharacter, 'file');
  const refusal = (message: string) => invalid(nestsDeeperThan(data, MAX_NESTING) ? I.tooDeep : message, 'file');
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw refusal(I.wrongFormat);
  const record = data as Record<string, unknown>;
  if (record.format !== CATALOG_FORMAT) throw refusal(I.wrongFormat);
  if (record.version !== CATALOG_VERSION) throw refusal(I.wrongVersion);
  // Counted before the whole document is validated: a file over the limit costs no more than its parse.
  if (Array.isArray(record.aspects) && record.aspects.length > maxAspects) throw tooLarge(I.tooManyAspects(record.aspects.length, maxAspects));
  const parsed = (cellsAreValid(record.availabilities) ? documentSchemaCellsChecked : documentSchema).safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` (${issue.path.join('.')})` : '';
    throw refusal(`${I.invalidContent}: ${issue?.message ?? 'invalid content'}${where}`);
  }
  return parsed.data;
}

/** A document nests four levels deep; a refused one nesting deeper than this is called too deep. */
const MAX_NESTING = 4096;

/** Whether a parsed JSON value nests deeper than `limit` levels (a walk with its own stack). */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (!item || typeof item !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Object.values(item)) if (child && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

function sanitizeIcon(icon: string | null | undefined): string | null {
  if (!icon) return null;
  try {
    return validateIcon(icon);
  } catch (err) {
    if (err instanceof AppError) throw invalid(`${I.invalidContent}: ${err.message} (service.icon_url)`, 'file');
    throw err;
  }
}

/**
 * A validated document made ready to write: texts sanitised, new ids given, and each table's rows
 * encoded as text the database expands. Pure work without the database, so it can run off the
 * server's event loop (server/commands/importThread.ts). The head is ready first; the aspects and
 * texts follow as pieces, each one step's rows (docs/decisions/0136-imports-in-steps.md), so that
 * the first steps are written while the thread still prepares the rest.
 */
export interface ImportHead {
  service: {
    name: string;
    slug: string;
    description: string;
    serviceOwner: string;
    subscriptionModel: string;
    iconUrl: string | null;
    timeline: string[];
  };
  /** Each element one step's categories, at most IMPORT_STEP_ROWS. */
  categories: string[];
  roles: string | null;
  templates: string | null;
  counts: { categories: number; aspects: number; availabilities: number };
}

/** One step's rows: at most IMPORT_STEP_ROWS aspects, or IMPORT_STEP_CELLS texts. */
export type ImportPiece = { aspects: string } | { texts: AvailabilityArrays };

export interface PreparedImport extends ImportHead {
  /** The aspects' steps, then the texts' steps, in order. */
  pieces: Iterable<ImportPiece> | AsyncIterable<ImportPiece>;
}

/**
 * The most categories or aspects one step of an import writes, and the most texts (each with its
 * first history row): a step takes some tens of milliseconds, and other requests wait no longer than
 * that for the embedded database's one session; smaller steps made the import slower by the commit
 * and the request let in after each (docs/decisions/0136-imports-in-steps.md).
 */
export const IMPORT_STEP_ROWS = 500;
export const IMPORT_STEP_CELLS = 2_500;

/** The items in runs of at most `size`, in order. */
function inSteps<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The availability texts as PostgreSQL array literals: each text names its aspect and quarter by
 * their place (from 1) in `aspectIds` and `quarters`, so that the database reads each id once.
 * Measured on the embedded database, 120,000 texts took about 0.35 s to read this way against
 * 1.1 s as JSON objects (most of it reading a uuid for every text).
 */
export interface AvailabilityArrays {
  aspectIds: string;
  quarters: string;
  aspectAt: string;
  quarterAt: string;
  values: string;
}

const rowsJson = (rows: unknown[]) => (rows.length ? JSON.stringify(rows) : null);
const stepsJson = (rows: unknown[]) => inSteps(rows, IMPORT_STEP_ROWS).map((step) => JSON.stringify(step));

/** A PostgreSQL array literal of texts: every element quoted (so that none reads as NULL), `"` and `\` escaped. */
function textArrayLiteral(items: readonly string[]): string {
  return `{${items.map((item) => `"${item.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}

/** One step's texts; `aspectIds` maps the file's aspect ids to the new ones. */
function availabilityArrays(rows: CatalogDocument['availabilities'], aspectIds: Map<string, string>): AvailabilityArrays {
  const places = (ids: Iterable<string>) => new Map([...ids].map((id, i) => [id, i + 1]));
  const aspectAt = places(new Set(rows.map((v) => v.aspect_id)));
  const quarterAt = places(new Set(rows.map((v) => v.time_bucket)));
  return {
    aspectIds: textArrayLiteral([...aspectAt.keys()].map((id) => aspectIds.get(id)!)),
    quarters: textArrayLiteral([...quarterAt.keys()]),
    aspectAt: `{${rows.map((v) => aspectAt.get(v.aspect_id)).join(',')}}`,
    quarterAt: `{${rows.map((v) => quarterAt.get(v.time_bucket)).join(',')}}`,
    values: textArrayLiteral(rows.map((v) => v.value)),
  };
}

export function prepareImport(doc: CatalogDocument): PreparedImport {
  const categoryIds = new Map(doc.categories.map((c) => [c.id, timeOrderedId()]));
  const aspectIds = new Map(doc.aspects.map((a) => [a.id, timeOrderedId()]));
  return { ...importHead(doc, categoryIds), pieces: importPieces(doc, categoryIds, aspectIds) };
}

/** What is written before the aspects: the service (its icon checked), its categories, roles and templates. */
function importHead(doc: CatalogDocument, categoryIds: Map<string, string>): ImportHead {
  const iconUrl = sanitizeIcon(doc.service.icon_url);
  return {
    service: {
      name: doc.service.name,
      slug: doc.service.slug || autoSlug(doc.service.name) || 'service',
      description: sanitizeRichText(doc.service.description),
      serviceOwner: doc.service.service_owner ?? '',
      subscriptionModel: doc.service.subscription_model ?? '',
      iconUrl,
      timeline: doc.service.timeline?.length ? doc.service.timeline : defaultTimeline(),
    },
    categories: stepsJson(doc.categories.map((c) => ({ id: categoryIds.get(c.id), name: c.name, position: c.position }))),
    roles: rowsJson(doc.roles),
    templates: rowsJson(doc.templates),
    counts: { categories: doc.categories.length, aspects: doc.aspects.length, availabilities: doc.availabilities.length },
  };
}

/** The aspects' steps (their descriptions sanitised as each step is made), then the texts' steps. */
function* importPieces(doc: CatalogDocument, categoryIds: Map<string, string>, aspectIds: Map<string, string>): Generator<ImportPiece> {
  for (const step of inSteps(doc.aspects, IMPORT_STEP_ROWS)) {
    const rows = step.map((a) => ({
      id: aspectIds.get(a.id),
      category_id: categoryIds.get(a.category_id),
      title: a.title,
      description: sanitizeRichText(a.description),
      is_public: a.is_public,
      position: a.position,
    }));
    yield { aspects: JSON.stringify(rows) };
  }
  for (const step of inSteps(doc.availabilities, IMPORT_STEP_CELLS)) yield { texts: availabilityArrays(step, aspectIds) };
}

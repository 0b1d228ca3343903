import { z } from 'zod';
import { M } from '../messages';
import { MAX_BATCH_CELLS, MAX_NAME_LENGTH, MAX_RICH_TEXT_LENGTH, MAX_TEXT_LENGTH } from '../limits';
import { QUARTER_PATTERN } from '../quarters';
import { requiredString } from './fields';
import { apiErrorSchema } from './api';

/** Messages of the catalog API that the specification leaves to the product. */
export const CATALOG_MESSAGES = {
  serviceRequired: 'Service is required',
  categoryNotInService: 'The category does not belong to this service',
  aspectIdsRequired: 'Aspect ids must be a list',
  reorderMismatch: 'The list must hold every aspect of the category exactly once, and no other',
  aspectChanged: 'This aspect was changed by someone else. Review the current version and try again.',
  availabilityChanged: 'This availability was changed by someone else. Review the current value and try again.',
  quarterFormat: 'Quarter must look like 2025-Q1',
  showPrivate: 'showPrivate must be true or false',
  cellsRequired: 'Cells must be a list of at least one cell',
  tooManyCells: `A batch may hold at most ${MAX_BATCH_CELLS} cells`,
  duplicateCell: 'A batch names the same aspect and quarter more than once',
  cellNotInService: 'Every cell must be an aspect of the service named by serviceId',
  cellsChanged: 'Some cells were changed by someone else since you read them. Nothing was saved: review them and try again.',
  quarterOutsideTimeline: (quarter: string) => `${quarter} is not a quarter of the service's timeline`,
  cellOutsideTimeline: (index: number, aspectId: string, quarter: string) =>
    `Cell ${index + 1} (aspect ${aspectId}, ${quarter}) is not in the service's timeline. Nothing was saved.`,
} as const;

const C = CATALOG_MESSAGES;

/** Path ids are uuids; anything else names no record. */
export const idSchema = z.uuid();

const booleanFlag = (message: string) =>
  z
    .enum(['true', 'false', '1', '0'], { error: message })
    .optional()
    .transform((v) => v === 'true' || v === '1');

export const showPrivateQuerySchema = z.object({ showPrivate: booleanFlag(C.showPrivate) });

const position = z
  .number({ error: 'Position must be a whole number' })
  .int('Position must be a whole number')
  .min(0, 'Position must be zero or more')
  .max(1_000_000, 'Position is too large');

const richText = z
  .string({ error: 'Description must be text' })
  .max(MAX_RICH_TEXT_LENGTH, `Description must be at most ${MAX_RICH_TEXT_LENGTH} characters`)
  .nullish()
  .transform((v) => v ?? '');

const isPublic = z.boolean({ error: 'isPublic must be true or false' });

export const createCategorySchema = z.object({
  serviceId: z.uuid({ error: C.serviceRequired }),
  name: requiredString(M.categoryNameRequired, MAX_NAME_LENGTH),
  position: position.nullish().transform((v) => v ?? undefined),
});
export type CreateCategoryInput = z.infer<typeof createCategorySchema>;

export const updateCategorySchema = z.object({ name: requiredString(M.categoryNameRequired, MAX_NAME_LENGTH) });

export const createAspectSchema = z.object({
  serviceId: z.uuid({ error: C.serviceRequired }),
  categoryId: z.uuid({ error: M.aspectCategoryRequired }),
  title: requiredString(M.aspectTitleRequired, MAX_NAME_LENGTH),
  description: richText,
  // A new aspect starts private: it reaches public snapshots only when someone says so.
  isPublic: isPublic.optional().default(false),
});
export type CreateAspectInput = z.infer<typeof createAspectSchema>;

export const updateAspectSchema = z.object({
  title: requiredString(M.aspectTitleRequired, MAX_NAME_LENGTH),
  description: richText,
  isPublic: isPublic.optional(),
  categoryId: z.uuid({ error: M.aspectCategoryRequired }).optional(),
  /** The version the edit started from; a different stored version is a conflict. */
  version: z.number({ error: 'Version must be a whole number' }).int('Version must be a whole number').optional(),
});
export type UpdateAspectInput = z.infer<typeof updateAspectSchema>;

export const reorderAspectsSchema = z.object({
  categoryId: z.uuid({ error: M.aspectCategoryRequired }),
  aspectIds: z.array(z.uuid({ error: C.reorderMismatch }), { error: C.aspectIdsRequired }).max(10_000, C.reorderMismatch),
});
export type ReorderAspectsInput = z.infer<typeof reorderAspectsSchema>;

/** One cell of the roadmap as a write names it: the same fields, checks and trimming for one cell and for a batch. */
const cellShape = {
  aspectId: z.uuid({ error: 'Aspect is required' }),
  timeBucket: z.string({ error: C.quarterFormat }).regex(QUARTER_PATTERN, C.quarterFormat),
  value: z
    .string({ error: 'Value must be text' })
    .max(MAX_TEXT_LENGTH, `Value must be at most ${MAX_TEXT_LENGTH} characters`)
    .nullish()
    .transform((v) => (v ?? '').trim()),
  /** The value the edit started from (null: empty); a different stored value is a conflict. */
  expectedValue: z
    .string({ error: 'expectedValue must be text or null' })
    .max(MAX_TEXT_LENGTH, `expectedValue must be at most ${MAX_TEXT_LENGTH} characters`)
    .nullable()
    .optional(),
};

export const setAvailabilitySchema = z.object(cellShape);
export type SetAvailabilityInput = z.infer<typeof setAvailabilitySchema>;

/** Many cells of one service written at once, all or nothing (`POST /api/availabilities/batch`). */
export const setAvailabilitiesSchema = z.object({
  serviceId: z.uuid({ error: C.serviceRequired }),
  cells: z.array(z.object(cellShape), { error: C.cellsRequired }).min(1, C.cellsRequired).max(MAX_BATCH_CELLS, C.tooManyCells),
});
export type SetAvailabilitiesInput = z.infer<typeof setAvailabilitiesSchema>;

/** The text an `expectedValue` stands for: null for empty, as the stored text reads. */
export function expectedText(expectedValue: string | null | undefined): string | null | undefined {
  return expectedValue === undefined ? undefined : expectedValue?.trim() || null;
}

/*
 * The answers' shapes (server/presenters/catalog.ts), as documented in the OpenAPI document and
 * checked against real answers in the tests.
 */

/** A quarter as answers name it: 2025-Q1. */
export const quarterLabel = z.string().regex(QUARTER_PATTERN);

/** Availability texts of one aspect by quarter: {"2025-Q1": "text"}; an empty cell is absent. */
export const availabilityMapSchema = z.record(quarterLabel, z.string());

export const categoryViewSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  position: z.number().int(),
  serviceId: z.uuid(),
  service_id: z.uuid(),
});
export const categoryAnswerSchema = z.object({ category: categoryViewSchema });

export const aspectViewSchema = z.object({
  id: z.uuid(),
  title: z.string(),
  description: z.string().describe('Rich text, sanitised HTML'),
  is_public: z.boolean(),
  category_id: z.uuid(),
  service_id: z.uuid(),
  position: z.number().int(),
  version: z.number().int().describe('Send it back with an edit: a different stored version is a 409'),
  availabilities: availabilityMapSchema.optional().describe('Over the service timeline, where the answer carries them'),
});
/** An aspect with its texts over the service's timeline (the catalog's lists). */
export const aspectWithAvailabilitiesSchema = aspectViewSchema.extend({ availabilities: availabilityMapSchema });
export const aspectAnswerSchema = z.object({ aspect: aspectViewSchema });

export const availabilityViewSchema = z.object({ aspect_id: z.uuid(), time_bucket: quarterLabel, value: z.string().describe('Empty: the cell was cleared') });

export const historyEntrySchema = z.object({ time_bucket: quarterLabel, value: z.string(), changed_by: z.string(), changed_at: z.iso.datetime() });
/** GET /api/availabilities/aspect/{id}/history: newest first. */
export const historyPageSchema = z.object({
  history: z.array(historyEntrySchema),
  next_before: z.number().int().nullable().describe('The cursor of the next (older) page (`before`), null when this page is not full'),
});

/** POST /api/availabilities/batch. */
export const availabilityBatchAnswerSchema = z.object({
  changed: z.number().int().describe('Cells whose text changed'),
  unchanged: z.number().int().describe('Cells that already held their text'),
  availabilities: z.array(availabilityViewSchema).describe('The cells written'),
});

/** A 409 of an aspect's edit: the aspect as stored now, when someone else saved first. */
export const aspectConflictSchema = apiErrorSchema.extend({ current: aspectViewSchema.optional().describe('The stored aspect, when it changed') });
/** A 409 of one cell's write: its stored text, when someone else saved first. */
export const availabilityConflictSchema = apiErrorSchema.extend({
  current: z.string().nullable().optional().describe('The stored text (null: empty), when it changed'),
});
/** A 409 of a batch: every cell whose stored text is not the one its write started from. */
export const batchConflictSchema = apiErrorSchema.extend({
  conflicts: z.array(z.object({ aspect_id: z.uuid(), time_bucket: quarterLabel, current: z.string().nullable() })).optional(),
});

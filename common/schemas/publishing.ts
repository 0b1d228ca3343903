import { z } from 'zod';
import { SNAPSHOT_VISIBILITIES } from '../roles';
import { isoDateTime } from './api';
import { serviceViewSchema } from './services';
import { snapshotSummarySchema } from './settings';

/** Messages of publishing that the specification leaves to the product. */
export const PUBLISHING_MESSAGES = {
  originInvalid: 'Each origin must be a web address such as https://intranet.example.org, without a path',
  tooManyOrigins: 'At most 20 origins may embed the public pages',
  compareFrom: 'Choose the snapshot to compare from',
  compareTo: 'Choose a snapshot, or current for the live catalog, to compare with',
  failedPublish: 'Failed to publish service',
  failedUnpublish: 'Failed to unpublish service',
  failedCompare: 'Failed to compare snapshots',
  failedSaveOrigins: 'Failed to save the origins',
  published: 'Service published.',
  unpublished: 'Service unpublished.',
  originsSaved: 'Origins saved.',
} as const;

export const MAX_EMBED_ORIGINS = 20;

/** An origin as CSP frame-ancestors names it: scheme, host and optional port, nothing else. */
const ORIGIN = /^https?:\/\/(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d{1,5})?$/;

export const embedOriginsSchema = z.object({
  origins: z
    .array(
      z
        .string({ error: PUBLISHING_MESSAGES.originInvalid })
        .trim()
        .toLowerCase()
        .transform((v) => v.replace(/\/$/, ''))
        .pipe(z.string().regex(ORIGIN, PUBLISHING_MESSAGES.originInvalid)),
      { error: PUBLISHING_MESSAGES.originInvalid },
    )
    .max(MAX_EMBED_ORIGINS, PUBLISHING_MESSAGES.tooManyOrigins),
});
export type EmbedOriginsInput = z.infer<typeof embedOriginsSchema>;

/** `GET /api/snapshots/compare?from=&to=`: `to` is a snapshot id or `current` (the live catalog). */
export const compareQuerySchema = z.object({
  from: z.uuid({ error: PUBLISHING_MESSAGES.compareFrom }),
  to: z.union([z.literal('current'), z.uuid()], { error: PUBLISHING_MESSAGES.compareTo }),
});

/*
 * The answers' shapes (server/routes/snapshots), as documented in the OpenAPI document and checked
 * against real answers in the tests.
 */

/** An aspect as a snapshot freezes it (server/commands/takeSnapshot.ts). */
const frozenAspectSchema = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  is_public: z.boolean(),
  category_id: z.string(),
  position: z.number(),
  availabilities: z.record(z.string(), z.string()).describe("The aspect's text by quarter"),
});

/** A snapshot's `data`: the catalog as frozen when taken; a snapshot stored by an older version may lack any part. */
export const snapshotDataSchema = z
  .object({
    service: serviceViewSchema.partial(),
    categories: z.array(z.object({ id: z.string(), name: z.string(), position: z.number() })),
    resolved_data: z.object({ aspects: z.array(frozenAspectSchema), timeline: z.array(z.string()) }).partial(),
    taken_at: z.string(),
  })
  .partial()
  .describe('The catalog as frozen when the snapshot was taken (an internal one with private aspects, a public one without)');

/** GET /api/snapshots/{id} and POST /api/snapshots. */
export const snapshotAnswerSchema = z.object({ snapshot: snapshotSummarySchema.extend({ data: snapshotDataSchema }) });

const diffAspectSchema = z.object({ id: z.string(), title: z.string(), category: z.string() });

/** What changed between two frozen catalogs (common/catalogDiff.ts). */
export const catalogDiffSchema = z.object({
  counts: z.object({
    added: z.number().int(),
    removed: z.number().int(),
    renamed: z.number().int(),
    moved: z.number().int(),
    cells: z.number().int(),
    descriptions: z.number().int(),
    total: z.number().int(),
  }),
  added: z.array(diffAspectSchema),
  removed: z.array(diffAspectSchema),
  renamed: z.array(diffAspectSchema.extend({ from_title: z.string() })),
  moved: z.array(diffAspectSchema.extend({ from_category: z.string() })),
  descriptions: z.array(diffAspectSchema.extend({ from: z.string(), to: z.string() })),
  cells: z.array(
    z.object({
      aspect_id: z.string(),
      title: z.string(),
      category: z.string(),
      quarter: z.string(),
      from: z.string().describe("'' when the cell was empty"),
      to: z.string(),
      started: z.boolean().describe('The quarter had begun when compared'),
    }),
  ),
  started_quarters: z.array(z.string()).describe('Quarters of either timeline that had begun when compared, oldest first'),
  commitments: z.object({ held: z.number().int(), slipped: z.number().int() }).describe('Cells of begun quarters in aspects on both sides: as planned or not'),
});

/** GET /api/snapshots/compare. */
export const snapshotComparisonSchema = z.object({
  from: snapshotSummarySchema,
  to: z.union([
    snapshotSummarySchema,
    z
      .object({ id: z.literal('current'), label: z.string(), visibility: z.enum(SNAPSHOT_VISIBILITIES), created_at: isoDateTime })
      .describe('The live catalog, frozen as the `from` snapshot was'),
  ]),
  labels: z.object({ from: z.string(), to: z.string() }).describe("The two sides' headings: what was planned and what is recorded against the live catalog"),
  summary: z.string().describe('The changes in one line, or "No changes"'),
  diff: catalogDiffSchema,
});

/** The origins as typed in a text area, one per line. */
export const originLines = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);

/** The Tenant Settings form: the same rules as the request, on the text area's lines. */
export const embedOriginsFormSchema = z.object({
  origins: z.string().superRefine((text, ctx) => {
    const result = embedOriginsSchema.safeParse({ origins: originLines(text) });
    if (!result.success) ctx.addIssue({ code: 'custom', message: result.error.issues[0]!.message });
  }),
});

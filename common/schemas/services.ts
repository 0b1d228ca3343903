import { z } from 'zod';
import { M } from '../messages';
import { ICON_MAX_BYTES, MAX_RICH_TEXT_LENGTH, MAX_SLUG_LENGTH, MAX_TEXT_LENGTH, MAX_TIMELINE_QUARTERS } from '../limits';
import { SLUG_PATTERN } from '../slug';
import { compareQuarters, isQuarter, QUARTER_PATTERN } from '../quarters';
import { acceptSnakeCase, optionalText, requiredString } from './fields';
import { isoDateTime } from './api';
import { aspectWithAvailabilitiesSchema, categoryViewSchema, quarterLabel } from './catalog';
import { actorRoleViewSchema, assignmentViewSchema, quickTemplateViewSchema, tenantUserBriefSchema } from './settings';
import { servicePermissionsSchema } from '../permissions';

/** Longest icon data URL worth decoding (four times the limit); the server then checks the decoded size. */
const ICON_MAX_DATA_URL_LENGTH = Math.ceil((ICON_MAX_BYTES * 4 * 4) / 3) + 100;
export const ICON_TOO_LARGE = `The icon is too large: at most ${ICON_MAX_BYTES / 1024} KB`;
export const TIMELINE_ORDER = 'The first quarter of the timeline must not be after its last quarter';
export const TIMELINE_TOO_LONG = `The timeline may span at most ${MAX_TIMELINE_QUARTERS} quarters`;

/** Icons arrive as data URLs; the server checks their content (CONTRACT section 5). */
const iconField = z
  .string({ error: M.invalidFileType })
  .max(ICON_MAX_DATA_URL_LENGTH, ICON_TOO_LARGE)
  .nullish()
  .transform((v) => (v ? v : null));

export const quarterField = z.string({ error: 'Quarter must look like 2025-Q1' }).regex(QUARTER_PATTERN, 'Quarter must look like 2025-Q1');

const bothQuarters = (t: { first: unknown; last: unknown }) =>
  typeof t.first === 'string' && typeof t.last === 'string' && isQuarter(t.first) && isQuarter(t.last);

/** A timeline is given by its first and last quarter: contiguous, ordered, at most 40 quarters. */
export const timelineRangeSchema = z
  .object({ first: quarterField, last: quarterField }, { error: 'Timeline must be {first, last} quarters' })
  .refine((t) => !bothQuarters(t) || compareQuarters(t.first, t.last) <= 0, { message: TIMELINE_ORDER })
  .refine((t) => !bothQuarters(t) || compareQuarters(t.last, t.first) < MAX_TIMELINE_QUARTERS, { message: TIMELINE_TOO_LONG });

const serviceFields = {
  name: requiredString(M.serviceNameRequired),
  description: optionalText(MAX_RICH_TEXT_LENGTH),
  serviceOwner: optionalText(MAX_TEXT_LENGTH),
  subscriptionModel: optionalText(MAX_TEXT_LENGTH),
  iconUrl: iconField.optional(),
};

const snakeTwins = {
  service_owner: 'serviceOwner',
  subscription_model: 'subscriptionModel',
  icon_url: 'iconUrl',
};

export const createServiceSchema = acceptSnakeCase(
  z.object({
    ...serviceFields,
    slug: requiredString(M.slugRequired, MAX_SLUG_LENGTH).regex(SLUG_PATTERN, M.slugPattern),
    /** The first and last quarter; without it, the current quarter and the seven after it. */
    timeline: timelineRangeSchema.optional(),
  }),
  snakeTwins,
);
export type CreateServiceInput = z.infer<typeof createServiceSchema>;

/** Import's optional multipart fields: the new service's name and slug, checked as Create Service checks them. */
export const importNamingSchema = z.object({
  name: serviceFields.name.optional(),
  slug: requiredString(M.slugRequired, MAX_SLUG_LENGTH).regex(SLUG_PATTERN, M.slugPattern).optional(),
});
export type ImportNaming = z.infer<typeof importNamingSchema>;

/** Update: the slug never changes; the timeline is a first/last quarter pair. */
export const updateServiceSchema = acceptSnakeCase(
  z.object({
    ...serviceFields,
    timeline: timelineRangeSchema.optional(),
  }),
  snakeTwins,
);
export type UpdateServiceInput = z.infer<typeof updateServiceSchema>;

export const MAX_TIMELINE = MAX_TIMELINE_QUARTERS;

/*
 * The answers' shapes (server/presenters/services.ts), as documented in the OpenAPI document and
 * checked against real answers in the tests.
 */

export const serviceViewSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  slug: z.string().describe('Never changes'),
  description: z.string().describe('Rich text, sanitised HTML'),
  service_owner: z.string(),
  subscription_model: z.string(),
  icon_url: z.string().nullable().describe('The icon as a data URL'),
  archived: z.boolean(),
  published: z.boolean().describe('Its public page is on'),
  tenant_id: z.uuid(),
  timeline: z.array(quarterLabel).describe('Contiguous, ordered quarters'),
  version: z.number().int().describe('Goes up with every change to the service or its content'),
  last_updated: isoDateTime,
  created_at: isoDateTime,
});
export const serviceAnswerSchema = z.object({ service: serviceViewSchema });

/** GET /api/services: the services and what the caller may do on each (`default`, raised by assignments in `services`). */
export const serviceListSchema = z.object({
  services: z.array(serviceViewSchema),
  permissions: z.object({
    default: servicePermissionsSchema,
    services: z.record(z.uuid(), servicePermissionsSchema).describe('Services where a service role assignment raises the default'),
  }),
  next_after: z.string().nullable().optional().describe('With paging parameters: the cursor of the next page (`after`), null on the last'),
});

/** GET /api/services/{id}/full: the catalog screen's data in one answer. */
export const fullServiceSchema = z.object({
  service: serviceViewSchema,
  categories: z.array(categoryViewSchema),
  resolved_data: z.object({
    aspects: z.array(aspectWithAvailabilitiesSchema).describe('In display order; private ones only for those who may see them'),
    timeline: z.array(quarterLabel),
  }),
  roles: z.array(actorRoleViewSchema),
  templates: z.array(quickTemplateViewSchema),
  permissions: servicePermissionsSchema,
});

/** GET /api/services/{id}/settings-data. */
export const settingsDataSchema = z.object({
  service: serviceViewSchema,
  roles: z.array(actorRoleViewSchema),
  templates: z.array(quickTemplateViewSchema),
  users: z.array(tenantUserBriefSchema).describe("The tenant's users, for those who may manage them (else empty)"),
  assignments: z.array(assignmentViewSchema).describe("The service's assignments, for its admins (else empty)"),
  permissions: servicePermissionsSchema,
});

/** The multipart form of POST /api/services/import and its preview: the name and slug, if sent, before the file. */
export const catalogUploadSchema = z.object({
  name: z.string().optional().describe('The name of the new service (default: the name in the file)'),
  slug: z.string().optional().describe('The slug of the new service (default: the slug in the file, with the first free numeric suffix)'),
  file: z.string().meta({ format: 'binary' }).describe('The .catalog file: gzip-compressed JSON as the export writes it'),
});

/** POST /api/services/import/preview: the file's service, and the free name and slug an import would take. */
export const importPreviewSchema = z.object({
  preview: z.object({
    name: z.string(),
    slug: z.string(),
    proposed_name: z.string(),
    proposed_slug: z.string(),
    categories: z.number().int(),
    aspects: z.number().int(),
  }),
});

/** PATCH /api/services/{id}/move-tenant. */
export const movedServiceSchema = serviceAnswerSchema.extend({
  droppedAssignments: z.number().int().describe('Service role assignments of people who are not members of the target tenant'),
});

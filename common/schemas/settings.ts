import { z } from 'zod';
import { M } from '../messages';
import { MAX_EMAIL_LENGTH, MAX_NAME_LENGTH, MAX_TEXT_LENGTH } from '../limits';
import { ROLES, SNAPSHOT_VISIBILITIES } from '../roles';
import { EMAIL_PATTERN, optionalPasswordField, optionalText, requiredString } from './fields';
import { isoDateTime } from './api';

/** Messages of the service settings API that the specification leaves to the product. */
export const SETTINGS_MESSAGES = {
  serviceRequired: 'Service is required',
  reorderMismatch: 'The list must hold every item of the service exactly once, and no other',
  idsRequired: 'The ids must be a list',
  userNotMember: 'This user is not a member of the tenant',
  alreadyAssigned: 'This user is already assigned to this service',
  assignmentNotFound: 'User assignment not found',
  visibility: 'Visibility must be internal or public',
  sameTenant: 'The service is already in this tenant',
  targetSlugTaken: 'A service with this slug already exists in the target tenant',
  targetNotFound: 'Target tenant not found',
  targetNotAllowed: 'You are not a member of the target tenant',
  notArchived: 'Only archived services can be permanently deleted',
} as const;

const S = SETTINGS_MESSAGES;

/** Path ids are uuids; anything else names no record. */
export const settingsIdSchema = z.uuid();

const serviceId = z.uuid({ error: S.serviceRequired });

export const createActorRoleSchema = z.object({
  serviceId,
  roleName: requiredString(M.roleNameRequired, MAX_NAME_LENGTH),
});
export const updateActorRoleSchema = z.object({ roleName: requiredString(M.roleNameRequired, MAX_NAME_LENGTH) });
export const reorderActorRolesSchema = z.object({
  serviceId,
  roleIds: z.array(z.uuid({ error: S.reorderMismatch }), { error: S.idsRequired }).max(10_000, S.reorderMismatch),
});

export const createQuickTemplateSchema = z.object({
  serviceId,
  templateText: requiredString(M.templateTextRequired, MAX_TEXT_LENGTH),
});
export const updateQuickTemplateSchema = z.object({ templateText: requiredString(M.templateTextRequired, MAX_TEXT_LENGTH) });
export const reorderQuickTemplatesSchema = z.object({
  serviceId,
  templateIds: z.array(z.uuid({ error: S.reorderMismatch }), { error: S.idsRequired }).max(10_000, S.reorderMismatch),
});

const assignmentRole = z.enum(ROLES, { error: M.selectRole });

/** Assigning an existing tenant user to a service (User Assignments form). */
export const assignUserSchema = z.object({
  userId: z.uuid({ error: M.selectUser }),
  role: assignmentRole,
});
export const changeAssignmentSchema = z.object({ role: assignmentRole });

/** The service-roles twin of the assignment calls, which names the user by email. */
export const createServiceRoleSchema = z.object({
  serviceId,
  userEmail: z.string({ error: M.selectUser }).trim().toLowerCase().min(1, M.selectUser).max(MAX_EMAIL_LENGTH, M.selectUser),
  role: assignmentRole,
});

/** 'Create New User' in service settings: email and name, an optional password, a role, and whether to assign. */
export const createServiceUserSchema = z.object({
  email: z
    .string({ error: M.emailAndNameRequired })
    .trim()
    .toLowerCase()
    .min(1, M.emailAndNameRequired)
    .max(MAX_EMAIL_LENGTH, `Must be at most ${MAX_EMAIL_LENGTH} characters`)
    .refine((v) => EMAIL_PATTERN.test(v), M.invalidEmail),
  name: requiredString(M.emailAndNameRequired, MAX_NAME_LENGTH),
  password: optionalPasswordField.optional(),
  role: assignmentRole.optional().default('reader'),
  assign: z.boolean({ error: 'assign must be true or false' }).optional().default(true),
});
export type CreateServiceUserInput = z.infer<typeof createServiceUserSchema>;

export const createSnapshotSchema = z.object({
  serviceId,
  label: requiredString(M.snapshotLabelRequired, MAX_NAME_LENGTH),
  visibility: z.enum(SNAPSHOT_VISIBILITIES, { error: S.visibility }).optional().default('internal'),
  note: optionalText(MAX_TEXT_LENGTH).transform((v) => v ?? ''),
});
export type CreateSnapshotInput = z.infer<typeof createSnapshotSchema>;

export const moveServiceSchema = z.object({
  targetTenantId: z.uuid({ error: M.selectTargetTenant }),
});

export const csvQuerySchema = z.object({
  showPrivate: z
    .enum(['true', 'false', '1', '0'], { error: 'showPrivate must be true or false' })
    .optional()
    .transform((v) => v === 'true' || v === '1'),
});

/*
 * The answers' shapes (server/presenters/settings.ts), as documented in the OpenAPI document and
 * checked against real answers in the tests.
 */

export const actorRoleViewSchema = z.object({ id: z.uuid(), role_name: z.string(), position: z.number().int() });
export const quickTemplateViewSchema = z.object({ id: z.uuid(), template_text: z.string(), position: z.number().int() });

/** A service role assignment: separate from the user's own role. `user_id` is the id the tenant's admins know the person by. */
export const assignmentViewSchema = z.object({
  id: z.uuid(),
  service_id: z.uuid(),
  user_id: z.uuid(),
  user_email: z.string(),
  user_name: z.string(),
  role: z.enum(ROLES),
  created_at: isoDateTime,
});
export const assignmentAnswerSchema = z.object({ assignment: assignmentViewSchema });
export const assignmentListSchema = z.object({ assignments: z.array(assignmentViewSchema) });

/** A user of the tenant as service settings list them, to pick from. */
export const tenantUserBriefSchema = z.object({ id: z.uuid(), name: z.string(), email: z.string(), role: z.enum(ROLES) });

/** POST /api/services/{id}/users/new. */
export const createdServiceUserSchema = z.object({
  user: tenantUserBriefSchema,
  assignment: assignmentViewSchema.nullable().describe('Null when not assigned'),
});

export const snapshotSummarySchema = z.object({
  id: z.uuid(),
  service_id: z.uuid(),
  label: z.string(),
  visibility: z.enum(SNAPSHOT_VISIBILITIES),
  note: z.string(),
  created_by: z.string(),
  created_at: isoDateTime,
});
/** GET /api/snapshots/service/{id}: newest first. */
export const snapshotListSchema = z.object({
  snapshots: z.array(snapshotSummarySchema),
  next_before: z.uuid().nullable().describe('The cursor of the next page (`before`), null when this page is not full'),
});

/** The character encodings a CSV import reads (docs/decisions/0142-csv-encodings.md). */
export const CSV_ENCODINGS = ['utf-8', 'utf-16', 'windows-1252'] as const;
export type CsvEncoding = (typeof CSV_ENCODINGS)[number];
/** What a CSV import would change, or changed (docs/decisions/0127-csv-import.md). */
export const csvImportPlanSchema = z.object({
  categories_added: z.array(z.string()),
  aspects_added: z.array(z.object({ category: z.string(), aspect: z.string(), public: z.boolean() })),
  aspects_changed: z.array(
    z.object({
      category: z.string(),
      aspect: z.string(),
      changes: z.array(z.string()),
      description: z.object({ old: z.string(), new: z.string() }).optional().describe('The description as plain text, before and after, when it changes'),
    }),
  ),
  cells_changed: z.array(z.object({ category: z.string(), aspect: z.string(), quarter: z.string(), old: z.string(), new: z.string() })),
  rows_unchanged: z.number().int(),
  rows_in_error: z.array(z.object({ line: z.number().int(), reason: z.string() })),
  quarters_outside_timeline: z.array(z.string()).describe('Quarters of the file outside the timeline: their columns are not imported'),
  encoding: z
    .enum(CSV_ENCODINGS)
    .describe(
      'How the file was read: UTF-8 (with or without a byte order mark), UTF-16 (with one), else Windows-1252, as Excel’s “CSV (Comma delimited)” writes on Western European systems',
    ),
});
export type CsvImportPlan = z.infer<typeof csvImportPlanSchema>;
/** The multipart form of POST /api/services/{id}/csv-import. */
export const csvUploadSchema = z.object({
  file: z
    .string()
    .meta({ format: 'binary' })
    .describe('The CSV, in the shape of the CSV export (Category, Aspect, Description, Public, then one column per quarter)'),
});
/** POST /api/services/{id}/csv-import. */
export const csvImportAnswerSchema = z.object({ preview: csvImportPlanSchema, applied: z.boolean().describe('True with ?apply=true: the plan was written') });

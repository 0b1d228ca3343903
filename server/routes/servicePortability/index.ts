import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { IMPORT_MAX_COMPRESSED_BYTES, IMPORT_MAX_UNPACKED_BYTES } from '../../../common/limits';
import { M } from '../../../common/messages';
import { catalogUploadSchema, importNamingSchema, importPreviewSchema, movedServiceSchema, serviceAnswerSchema } from '../../../common/schemas/services';
import { csvImportAnswerSchema, csvUploadSchema, moveServiceSchema, SETTINGS_MESSAGES } from '../../../common/schemas/settings';
import { hardDeleteService } from '../../commands/hardDeleteService';
import {
  IMPORT_MESSAGES,
  IMPORT_PARALLEL_STEPS,
  IMPORT_STATEMENTS_PER_STEP,
  LEFT_BEHIND_AFTER_MS,
  proposeNaming,
  removeLeftBehindImports,
  writeImport,
} from '../../commands/importService';
import { CSV_APPLY_BUSY, CSV_APPLY_STEP_CELLS_DEFAULT, undoLeftBehindCsvApplies } from '../../commands/csvApplySteps';
import { asSystem } from '../../db/scope';
import { ImportThread } from '../../commands/importThread';
import { moveService } from '../../commands/moveService';
import { CSV_IMPORT_MAX_BYTES, applyCsvImport, previewCsvImport } from '../../commands/csvImport';
import { findTenantById } from '../../db/queries/users';
import { AppError, invalid, notFound, tooLarge } from '../../errors';
import { scope, serviceOf } from '../../plugins/context';
import { requireMoveTo, requireTenant } from '../../policies';
import { presentService } from '../../presenters/services';
import { documented } from '../../routeDoc';
import { bodyOf, parse, queryOf } from '../../validation';
import { parseIdParam } from '../../commands/serviceWrites';

const importDoc = documented('Services');

const csvImportQuerySchema = z.object({
  apply: z
    .enum(['true', 'false'], { error: 'apply must be true or false' })
    .optional()
    .transform((v) => v === 'true'),
});

/** The multipart text fields an import reads besides the file; any other is ignored. */
const NAMING_FIELDS = new Set(['name', 'slug']);

/**
 * Reads the multipart field 'file', stopping as soon as it passes the compressed-size limit, and
 * the optional text fields 'name' and 'slug', which must come before the file (as browsers send
 * FormData fields in the order they were appended).
 */
async function readUpload(req: FastifyRequest, maxBytes = IMPORT_MAX_COMPRESSED_BYTES): Promise<{ file: Buffer; fields: Record<string, string> }> {
  const fields: Record<string, string> = {};
  let file: Buffer | null = null;
  try {
    for await (const part of req.parts({ limits: { fileSize: maxBytes, files: 1, fields: 5, parts: 10 } })) {
      if (part.type === 'field') {
        if (NAMING_FIELDS.has(part.fieldname)) fields[part.fieldname] = typeof part.value === 'string' ? part.value : String(part.value);
        continue;
      }
      if (part.fieldname !== 'file') throw invalid(IMPORT_MESSAGES.fileRequired, 'file');
      file = await readFilePart(part.file);
      // The file ends the reading: anything after it (a second file) is left unread, as before.
      break;
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(IMPORT_MESSAGES.tooLargeCompressed);
    throw invalid(file ? IMPORT_MESSAGES.incompleteUpload : IMPORT_MESSAGES.fileRequired, 'file');
  }
  if (!file) throw invalid(IMPORT_MESSAGES.fileRequired, 'file');
  return { file, fields };
}

async function readFilePart(stream: AsyncIterable<Buffer> & { truncated?: boolean }): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += chunk.length;
      if (size > IMPORT_MAX_COMPRESSED_BYTES) throw tooLarge(IMPORT_MESSAGES.tooLargeCompressed);
      chunks.push(chunk);
    }
  } catch (err) {
    if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(IMPORT_MESSAGES.tooLargeCompressed);
    if (err instanceof AppError) throw err;
    // The multipart body ended or broke before the file did.
    throw invalid(IMPORT_MESSAGES.incompleteUpload, 'file');
  }
  if (stream.truncated) throw tooLarge(IMPORT_MESSAGES.tooLargeCompressed);
  return Buffer.concat(chunks);
}

/** Import of a .catalog file, move to another tenant, and permanent delete. */
export default async function servicePortabilityRoutes(app: FastifyInstance) {
  const db = () => app.database.db;
  // Files are unpacked, validated and prepared off the event loop.
  const importThread = new ImportThread();
  app.addHook('onReady', async () => {
    importThread.warm();
    // What an import a stopped process left hidden is removed (docs/decisions/0136-imports-in-steps.md).
    // Not a reason to refuse to start: the next start tries again.
    const removed = await asSystem(() => removeLeftBehindImports(db())).catch((err: unknown) => {
      app.log.error({ err }, 'could not remove the hidden services of imports that never finished');
      return 0;
    });
    if (removed) app.log.warn({ removed }, 'removed the hidden services of imports that never finished');
    // A CSV apply in steps a stopped process left part-way is undone (docs/decisions/0139-csv-apply-in-steps.md):
    // on the embedded database every one found at start (this process is its only writer).
    const leftBehind = app.database.kind === 'pglite' ? 0 : LEFT_BEHIND_AFTER_MS;
    const undone = await asSystem(() => undoLeftBehindCsvApplies(db(), leftBehind)).catch((err: unknown) => {
      app.log.error({ err }, 'could not undo the CSV applies that never finished');
      return 0;
    });
    if (undone) app.log.warn({ undone }, 'undid the CSV applies that never finished');
  });
  app.addHook('onClose', () => importThread.close());
  // Multipart is parsed only by the routes of this plugin.
  await app.register(multipart, { limits: { fileSize: IMPORT_MAX_COMPRESSED_BYTES, files: 1 } });

  const multipartBody = 'multipart/form-data';
  const catalogTooLarge = {
    413: `The file is over ${IMPORT_MAX_COMPRESSED_BYTES / 1024 / 1024} MB, unpacks to more than ${IMPORT_MAX_UNPACKED_BYTES / 1024 / 1024} MB, or holds more aspects than the server allows (IMPORT_MAX_ASPECTS, ${app.config.IMPORT_MAX_ASPECTS} here); the message names the limit`,
  };

  app.post(
    '/services/import',
    importDoc(
      'Import a .catalog file as a new service of the tenant, all or nothing (written in steps, visible once complete)',
      'tenant.services',
      { 201: serviceAnswerSchema },
      {
        body: catalogUploadSchema,
        bodyType: multipartBody,
        errors: { 409: `${M.slugTaken}; or a service with the file's slug was created at the same time`, ...catalogTooLarge },
        description:
          'The file is unpacked and validated whole before anything is written; the service is then written in short steps, hidden from every reader, and made visible with its audit row in a last step (docs/decisions/0136-imports-in-steps.md). A file refused, or an import that fails, leaves nothing.',
      },
    ),
    async (req, reply) => {
      const { actor, tenantId } = scope(req);
      requireTenant(actor, 'tenant.services');
      const { file, fields } = await readUpload(req);
      const naming = parse(importNamingSchema, fields);
      const prepared = await importThread.prepare(file, app.config.IMPORT_MAX_ASPECTS);
      const service = await writeImport(db(), actor, tenantId, prepared, naming, {
        statementsPerStep: IMPORT_STATEMENTS_PER_STEP[app.database.kind],
        parallelSteps: IMPORT_PARALLEL_STEPS[app.database.kind],
      });
      return reply.status(201).send({ service: presentService(service) });
    },
  );

  /**
   * Reads a .catalog file without importing it: its service's name and slug, and the free name and
   * slug the import dialog proposes. A file that would not import is refused as the import refuses it.
   */
  app.post(
    '/services/import/preview',
    importDoc(
      "Read a .catalog file without importing it: its service's name and slug, the free ones an import would take, and its counts",
      'tenant.services',
      { 200: importPreviewSchema },
      {
        body: catalogUploadSchema,
        bodyType: multipartBody,
        errors: catalogTooLarge,
      },
    ),
    async (req) => {
      const { actor, tenantId } = scope(req);
      requireTenant(actor, 'tenant.services');
      const { file } = await readUpload(req);
      const prepared = await importThread.prepare(file, app.config.IMPORT_MAX_ASPECTS, true);
      const naming = await proposeNaming(db(), tenantId, prepared);
      return {
        preview: {
          name: naming.name,
          slug: naming.slug,
          proposed_name: naming.proposedName,
          proposed_slug: naming.proposedSlug,
          categories: prepared.counts.categories,
          aspects: prepared.counts.aspects,
        },
      };
    },
  );

  /**
   * A CSV in the shape of the CSV export, into an existing service (docs/decisions/0127-csv-import.md):
   * the preview of what would change, writing nothing; with `?apply=true`, applied all or nothing.
   */
  app.post(
    '/services/:id/csv-import',
    importDoc(
      'Preview a CSV in the shape of the CSV export against a service, or with ?apply=true apply it, all or nothing',
      'service.settings',
      { 200: csvImportAnswerSchema },
      {
        body: csvUploadSchema,
        bodyType: multipartBody,
        query: csvImportQuerySchema,
        errors: {
          409: `${M.serviceArchivedConflict}; or: ${CSV_APPLY_BUSY}; or, for an apply in steps, someone changed a cell it was to write (the paste's conflict, naming the cells) and what it wrote was undone`,
          413: `The file is over ${CSV_IMPORT_MAX_BYTES / 1024 / 1024} MB, or has more rows than the server allows (CSV_IMPORT_MAX_ASPECTS, ${app.config.CSV_IMPORT_MAX_ASPECTS} here); the message names the limit`,
        },
      },
    ),
    async (req) => {
      const id = parseIdParam(req.params);
      const { apply } = queryOf(req);
      const ctx = await serviceOf(req, id, 'service.settings');
      const { file } = await readUpload(req, CSV_IMPORT_MAX_BYTES);
      if (!apply) return { preview: await previewCsvImport(db(), ctx.service, file, app.config.CSV_IMPORT_MAX_ASPECTS), applied: false };
      const { actor } = scope(req);
      const stepCells = app.config.CSV_APPLY_STEP_CELLS ?? CSV_APPLY_STEP_CELLS_DEFAULT[app.database.kind];
      return { preview: await applyCsvImport(db(), actor, ctx.service, file, app.config.CSV_IMPORT_MAX_ASPECTS, { stepCells }), applied: true };
    },
  );

  app.patch(
    '/services/:id/move-tenant',
    documented('Services')(
      'Move a service with its content and snapshots to another tenant the caller may move to; assignments of people outside the target tenant are dropped',
      'service.admin and tenant.services',
      { 200: movedServiceSchema },
      {
        body: moveServiceSchema,
        errors: {
          400: `Invalid input; or: ${SETTINGS_MESSAGES.sameTenant}`,
          403: `The caller may not do this; or: ${SETTINGS_MESSAGES.targetNotAllowed}`,
          404: `Not found; or: ${SETTINGS_MESSAGES.targetNotFound}`,
          409: `${SETTINGS_MESSAGES.targetSlugTaken}; or: ${M.serviceArchivedConflict}`,
        },
      },
    ),
    async (req) => {
      const id = parseIdParam(req.params);
      const input = bodyOf(req);
      const { service, actor, tenantId } = await serviceOf(req, id, 'service.admin');
      // Moving is a right over the tenant: a service assignment does not give it.
      requireTenant(actor, 'tenant.services');
      if (input.targetTenantId === tenantId) throw invalid(SETTINGS_MESSAGES.sameTenant, 'targetTenantId');
      const target = await findTenantById(db(), input.targetTenantId);
      if (!target || target.archived) throw notFound(SETTINGS_MESSAGES.targetNotFound);
      requireMoveTo(actor, target.id);
      const result = await moveService(db(), actor, tenantId, service.id, target.id);
      return { service: presentService(result.service), droppedAssignments: result.droppedAssignments };
    },
  );

  app.delete(
    '/services/:id/hard-delete',
    documented('Services')(
      'Permanently delete an archived service with its content, snapshots and assignments',
      'services.hardDelete',
      { 204: null },
      { errors: { 409: SETTINGS_MESSAGES.notArchived } },
    ),
    async (req, reply) => {
      const id = parseIdParam(req.params);
      const { actor, tenantId } = await serviceOf(req, id, 'services.hardDelete');
      await hardDeleteService(db(), actor, tenantId, id);
      return reply.status(204).send();
    },
  );
}

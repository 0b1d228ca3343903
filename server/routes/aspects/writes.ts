import type { FastifyInstance } from 'fastify';
import {
  aspectAnswerSchema,
  aspectConflictSchema,
  aspectViewSchema,
  CATALOG_MESSAGES as C,
  createAspectSchema,
  reorderAspectsSchema,
  updateAspectSchema,
} from '../../../common/schemas/catalog';
import { M } from '../../../common/messages';
import { z } from 'zod';
import { documented } from '../../routeDoc';
import {
  aspectIdsOfCategory,
  deleteAspect,
  findAspect,
  findCategory,
  insertAspect,
  listAspects,
  nextAspectPosition,
  setAspectPositions,
  updateAspect,
  type AspectChanges,
} from '../../db/queries/catalog';
import { presentAspect } from '../../presenters/catalog';
import { scope } from '../../plugins/context';
import { loadAspect, loadCategory, loadService } from '../../policies';
import { bodyOf } from '../../validation';
import { conflict, invalid, notFound } from '../../errors';
import { writeAudit } from '../../commands/audit';
import { changeServiceContent, parsePathId } from '../../commands/serviceWrites';
import { sanitizeRichText } from '../../content/sanitize';

const aspectDoc = documented('Aspects');

type IdParams = { Params: { id: string } };

/** Creating, editing, deleting and reordering aspects. */
export default async function aspectWriteRoutes(app: FastifyInstance) {
  const db = app.database.db;
  const archived = { errors: { 409: M.serviceArchivedConflict } };

  app.post(
    '/aspects',
    aspectDoc(
      'Add an aspect to a category of a service, last; private unless isPublic says otherwise',
      'catalog.edit',
      { 201: aspectAnswerSchema },
      {
        body: createAspectSchema,
        ...archived,
      },
    ),
    async (req, reply) => {
      const { actor, tenantId } = scope(req);
      const input = bodyOf(req);
      await loadService(db, actor, tenantId, input.serviceId, 'catalog.edit');
      const aspect = await changeServiceContent(db, tenantId, input.serviceId, async (tx) => {
        const category = await findCategory(tx, tenantId, input.categoryId);
        if (!category || category.serviceId !== input.serviceId) throw invalid(C.categoryNotInService, 'categoryId');
        const row = await insertAspect(tx, {
          tenantId,
          serviceId: input.serviceId,
          categoryId: category.id,
          title: input.title,
          description: sanitizeRichText(input.description),
          isPublic: input.isPublic,
          position: await nextAspectPosition(tx, tenantId, category.id),
        });
        await writeAudit(tx, actor, {
          tenantId,
          action: 'aspect.create',
          targetType: 'aspect',
          targetId: row.id,
          details: { serviceId: row.serviceId, title: row.title, categoryId: category.id, isPublic: row.isPublic },
        });
        return row;
      });
      return reply.status(201).send({ aspect: presentAspect(aspect, {}) });
    },
  );

  /** Edits an aspect; a `version` other than the stored one means someone else saved first: 409. */
  app.put(
    '/aspects/:id',
    aspectDoc(
      'Edit an aspect, or move it to another category of its service',
      'catalog.edit',
      { 200: aspectAnswerSchema },
      {
        body: updateAspectSchema,
        errors: {
          409: {
            description: `${C.aspectChanged} (\`current\` is the stored aspect: \`version\` differs from the one sent); or: ${M.serviceArchivedConflict}`,
            schema: aspectConflictSchema,
          },
        },
      },
    ),
    async (req) => {
      const { actor, tenantId } = scope(req);
      const input = bodyOf(req);
      const { aspect } = await loadAspect(db, actor, tenantId, parsePathId((req.params as IdParams['Params']).id), 'catalog.edit');
      const updated = await changeServiceContent(db, tenantId, aspect.serviceId, async (tx) => {
        const current = await findAspect(tx, tenantId, aspect.id);
        if (!current) throw notFound();
        if (input.version !== undefined && input.version !== current.version) {
          throw conflict(C.aspectChanged, { current: presentAspect(current) });
        }
        const changes: AspectChanges = { title: input.title, description: sanitizeRichText(input.description) };
        if (input.isPublic !== undefined) changes.isPublic = input.isPublic;
        let move: { from: { id: string; name: string | null }; to: { id: string; name: string } } | undefined;
        if (input.categoryId && input.categoryId !== current.categoryId) {
          // The aspect's grant covers its service; the target is only checked to be one of that service's categories.
          const category = await findCategory(tx, tenantId, input.categoryId);
          // Another tenant's category is invisible here, so it answers 404 like any unknown record.
          if (!category) throw notFound();
          if (category.serviceId !== current.serviceId) throw invalid(C.categoryNotInService, 'categoryId');
          changes.categoryId = category.id;
          changes.position = await nextAspectPosition(tx, tenantId, category.id);
          const source = await findCategory(tx, tenantId, current.categoryId);
          move = { from: { id: current.categoryId, name: source?.name ?? null }, to: { id: category.id, name: category.name } };
        }
        const row = await updateAspect(tx, tenantId, aspect.id, changes);
        const edited = [
          changes.title !== current.title ? 'title' : null,
          changes.description !== current.description ? 'description' : null,
          changes.isPublic !== undefined && changes.isPublic !== current.isPublic ? 'visibility' : null,
        ].filter((f): f is string => f !== null);
        // One entry for the request: a move names what else changed with it.
        if (edited.length && !move) {
          const details: Record<string, unknown> = { serviceId: aspect.serviceId, title: input.title, fields: edited };
          if (edited.includes('title')) Object.assign(details, { from: current.title, to: changes.title });
          await writeAudit(tx, actor, { tenantId, action: 'aspect.update', targetType: 'aspect', targetId: aspect.id, details });
        }
        if (move) {
          await writeAudit(tx, actor, {
            tenantId,
            action: 'aspect.move',
            targetType: 'aspect',
            targetId: aspect.id,
            details: { serviceId: aspect.serviceId, title: input.title, from: move.from, to: move.to, ...(edited.length ? { fields: edited } : {}) },
          });
        }
        return row!;
      });
      return { aspect: presentAspect(updated) };
    },
  );

  app.delete<IdParams>('/aspects/:id', aspectDoc('Delete an aspect with its availabilities', 'catalog.edit', { 204: null }, archived), async (req, reply) => {
    const { actor, tenantId } = scope(req);
    const { aspect } = await loadAspect(db, actor, tenantId, parsePathId(req.params.id), 'catalog.edit');
    await changeServiceContent(db, tenantId, aspect.serviceId, async (tx) => {
      await deleteAspect(tx, tenantId, aspect.id);
      await writeAudit(tx, actor, {
        tenantId,
        action: 'aspect.delete',
        targetType: 'aspect',
        targetId: aspect.id,
        details: { serviceId: aspect.serviceId, title: aspect.title },
      });
    });
    return reply.status(204).send();
  });

  /** New order of one category's aspects: exactly its aspect ids, each once. */
  app.patch(
    '/aspects/reorder',
    aspectDoc(
      "Set the order of one category's aspects: every aspect id of the category, each once",
      'catalog.edit',
      { 200: z.object({ aspects: z.array(aspectViewSchema).describe("The category's aspects in their new order") }) },
      { body: reorderAspectsSchema, ...archived },
    ),
    async (req) => {
      const { actor, tenantId } = scope(req);
      const input = bodyOf(req);
      const { category } = await loadCategory(db, actor, tenantId, input.categoryId, 'catalog.edit');
      await changeServiceContent(db, tenantId, category.serviceId, async (tx) => {
        const existing = new Set(await aspectIdsOfCategory(tx, tenantId, category.id));
        const given = new Set(input.aspectIds);
        const exact = given.size === input.aspectIds.length && given.size === existing.size && input.aspectIds.every((id) => existing.has(id));
        if (!exact) throw invalid(C.reorderMismatch, 'aspectIds');
        await setAspectPositions(tx, tenantId, category.id, input.aspectIds);
        await writeAudit(tx, actor, {
          tenantId,
          action: 'aspect.reorder',
          targetType: 'category',
          targetId: category.id,
          details: { serviceId: category.serviceId, name: category.name, count: input.aspectIds.length },
        });
      });
      const rows = await listAspects(db, tenantId, category.serviceId, { includePrivate: true, categoryId: category.id });
      return { aspects: rows.map((a) => presentAspect(a)) };
    },
  );
}

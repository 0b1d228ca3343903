import type { FastifyInstance } from 'fastify';
import { categoryAnswerSchema, categoryViewSchema, createCategorySchema, updateCategorySchema } from '../../../common/schemas/catalog';
import { M } from '../../../common/messages';
import { z } from 'zod';
import { documented } from '../../routeDoc';
import { deleteCategory, insertCategory, listCategories, nextCategoryPosition, renameCategory, type CategoryRow } from '../../db/queries/catalog';
import { presentCategory } from '../../presenters/catalog';
import { scope, type Actor } from '../../plugins/context';
import { loadCategory, loadService } from '../../policies';
import { bodyOf } from '../../validation';
import { notFound } from '../../errors';
import { writeAudit } from '../../commands/audit';
import { changeServiceContent, parsePathId } from '../../commands/serviceWrites';

const doc = documented('Categories');

type IdParams = { Params: { id: string } };

/** Every write to an archived service's content. */
const archived = { errors: { 409: M.serviceArchivedConflict } };

export default async function categoryRoutes(app: FastifyInstance) {
  const db = app.database.db;

  /** Loads a category of the tenant and checks the caller may edit its service. */
  const editableCategory = async (actor: Actor, tenantId: string, rawId: string): Promise<CategoryRow> => {
    const { category } = await loadCategory(db, actor, tenantId, parsePathId(rawId), 'catalog.edit');
    return category;
  };

  app.get<IdParams>(
    '/categories/service/:id',
    doc("A service's categories in display order", 'catalog.view', { 200: z.object({ categories: z.array(categoryViewSchema) }) }),
    async (req) => {
      const { actor, tenantId } = scope(req);
      const serviceId = parsePathId(req.params.id);
      await loadService(db, actor, tenantId, serviceId, 'catalog.view');
      const rows = await listCategories(db, tenantId, serviceId);
      return { categories: rows.map(presentCategory) };
    },
  );

  app.post(
    '/categories',
    doc(
      'Add a category to a service (last, unless a position is given)',
      'catalog.edit',
      { 201: categoryAnswerSchema },
      {
        body: createCategorySchema,
        ...archived,
      },
    ),
    async (req, reply) => {
      const { actor, tenantId } = scope(req);
      const input = bodyOf(req);
      await loadService(db, actor, tenantId, input.serviceId, 'catalog.edit');
      const category = await changeServiceContent(db, tenantId, input.serviceId, async (tx) => {
        const position = input.position ?? (await nextCategoryPosition(tx, tenantId, input.serviceId));
        const row = await insertCategory(tx, { tenantId, serviceId: input.serviceId, name: input.name, position });
        await writeAudit(tx, actor, {
          tenantId,
          action: 'category.create',
          targetType: 'category',
          targetId: row.id,
          details: { serviceId: row.serviceId, name: row.name },
        });
        return row;
      });
      return reply.status(201).send({ category: presentCategory(category) });
    },
  );

  app.put(
    '/categories/:id',
    doc('Rename a category', 'catalog.edit', { 200: categoryAnswerSchema }, { body: updateCategorySchema, ...archived }),
    async (req) => {
      const { actor, tenantId } = scope(req);
      const input = bodyOf(req);
      const category = await editableCategory(actor, tenantId, (req.params as IdParams['Params']).id);
      const updated = await changeServiceContent(db, tenantId, category.serviceId, async (tx) => {
        const row = await renameCategory(tx, tenantId, category.id, input.name);
        if (!row) throw notFound();
        await writeAudit(tx, actor, {
          tenantId,
          action: 'category.update',
          targetType: 'category',
          targetId: category.id,
          details: { serviceId: category.serviceId, name: row.name, from: category.name, to: row.name },
        });
        return row;
      });
      return { category: presentCategory(updated) };
    },
  );

  /** Deletes a category with its aspects and their availabilities. */
  app.delete<IdParams>(
    '/categories/:id',
    doc('Delete a category with its aspects and their availabilities', 'catalog.edit', { 204: null }, archived),
    async (req, reply) => {
      const { actor, tenantId } = scope(req);
      const category = await editableCategory(actor, tenantId, req.params.id);
      await changeServiceContent(db, tenantId, category.serviceId, async (tx) => {
        await deleteCategory(tx, tenantId, category.id);
        await writeAudit(tx, actor, {
          tenantId,
          action: 'category.delete',
          targetType: 'category',
          targetId: category.id,
          details: { serviceId: category.serviceId, name: category.name },
        });
      });
      return reply.status(204).send();
    },
  );
}

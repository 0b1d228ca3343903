import type { FastifyInstance } from 'fastify';
import { createCategorySchema, updateCategorySchema } from '../../../common/schemas/catalog';
import { deleteCategory, insertCategory, listCategories, nextCategoryPosition, renameCategory, type CategoryRow } from '../../db/queries/catalog';
import { presentCategory } from '../../presenters/catalog';
import { scope, type Actor } from '../../plugins/context';
import { loadCategory, loadService } from '../../policies';
import { parse } from '../../validation';
import { notFound } from '../../errors';
import { writeAudit } from '../../commands/audit';
import { loadWritableService, parsePathId, touchService } from '../../commands/serviceWrites';

type IdParams = { Params: { id: string } };

export default async function categoryRoutes(app: FastifyInstance) {
  const db = app.database.db;

  /** Loads a category of the tenant and checks the caller may edit its service. */
  const editableCategory = async (actor: Actor, tenantId: string, rawId: string): Promise<CategoryRow> => {
    const { category } = await loadCategory(db, actor, tenantId, parsePathId(rawId), 'catalog.edit');
    return category;
  };

  app.get<IdParams>('/categories/service/:id', async (req) => {
    const { actor, tenantId } = scope(req);
    const serviceId = parsePathId(req.params.id);
    await loadService(db, actor, tenantId, serviceId, 'catalog.view');
    const rows = await listCategories(db, tenantId, serviceId);
    return { categories: rows.map(presentCategory) };
  });

  app.post('/categories', async (req, reply) => {
    const { actor, tenantId } = scope(req);
    const input = parse(createCategorySchema, req.body);
    await loadService(db, actor, tenantId, input.serviceId, 'catalog.edit');
    const category = await db.transaction(async (tx) => {
      await loadWritableService(tx, tenantId, input.serviceId);
      const position = input.position ?? (await nextCategoryPosition(tx, tenantId, input.serviceId));
      const row = await insertCategory(tx, { tenantId, serviceId: input.serviceId, name: input.name, position });
      await touchService(tx, tenantId, input.serviceId);
      return row;
    });
    return reply.status(201).send({ category: presentCategory(category) });
  });

  app.put<IdParams>('/categories/:id', async (req) => {
    const { actor, tenantId } = scope(req);
    const input = parse(updateCategorySchema, req.body);
    const category = await editableCategory(actor, tenantId, req.params.id);
    const updated = await db.transaction(async (tx) => {
      await loadWritableService(tx, tenantId, category.serviceId);
      const row = await renameCategory(tx, tenantId, category.id, input.name);
      if (!row) throw notFound();
      await touchService(tx, tenantId, category.serviceId);
      return row;
    });
    return { category: presentCategory(updated) };
  });

  /** Deletes a category with its aspects and their availabilities. */
  app.delete<IdParams>('/categories/:id', async (req, reply) => {
    const { actor, tenantId } = scope(req);
    const category = await editableCategory(actor, tenantId, req.params.id);
    await db.transaction(async (tx) => {
      await loadWritableService(tx, tenantId, category.serviceId);
      await deleteCategory(tx, tenantId, category.id);
      await touchService(tx, tenantId, category.serviceId);
      await writeAudit(tx, actor, {
        tenantId,
        action: 'category.delete',
        targetType: 'category',
        targetId: category.id,
        details: { serviceId: category.serviceId, name: category.name },
      });
    });
    return reply.status(204).send();
  });
}

import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  createQuickTemplateSchema,
  reorderQuickTemplatesSchema,
  SETTINGS_MESSAGES,
  settingsIdSchema,
  updateQuickTemplateSchema,
} from '../../../common/schemas/settings';
import {
  deleteQuickTemplate,
  findQuickTemplate,
  insertQuickTemplate,
  listQuickTemplates,
  reorderQuickTemplates,
  updateQuickTemplate,
} from '../../db/queries/settings';
import { assertWritable, loadWritableService, touchService } from '../../commands/serviceWrites';
import { invalid, notFound } from '../../errors';
import { scope, serviceOf } from '../../plugins/context';
import { presentQuickTemplate } from '../../presenters/settings';
import { parse } from '../../validation';

const idParams = z.object({ id: settingsIdSchema });

/** Quick templates of a service (Quick Templates tab, offered in the availability editor): editors and up, never on an archived service. */
export default async function quickTemplateRoutes(app: FastifyInstance) {
  const db = () => app.database.db;

  const parseId = (params: unknown) => {
    const r = idParams.safeParse(params);
    if (!r.success) throw notFound();
    return r.data.id;
  };

  /** Loads a template of the request's tenant and checks the caller may change it. */
  async function loadTemplate(req: Parameters<typeof scope>[0], id: string) {
    const { tenantId } = scope(req);
    const template = await findQuickTemplate(db(), tenantId, id);
    if (!template) throw notFound();
    const { service } = await serviceOf(req, template.serviceId, 'service.settings');
    assertWritable(service);
    return { template, tenantId };
  }

  app.get('/quick-templates/service/:id', async (req) => {
    const { service, tenantId } = await serviceOf(req, parseId(req.params), 'service.settings');
    const rows = await listQuickTemplates(db(), tenantId, service.id);
    return { templates: rows.map(presentQuickTemplate) };
  });

  app.post('/quick-templates', async (req, reply) => {
    const input = parse(createQuickTemplateSchema, req.body);
    const { service, tenantId } = await serviceOf(req, input.serviceId, 'service.settings');
    assertWritable(service);
    const row = await db().transaction(async (tx) => {
      await loadWritableService(tx, tenantId, service.id);
      const created = await insertQuickTemplate(tx, tenantId, service.id, input.templateText);
      await touchService(tx, tenantId, service.id);
      return created;
    });
    return reply.status(201).send({ template: presentQuickTemplate(row) });
  });

  app.put('/quick-templates/:id', async (req) => {
    const id = parseId(req.params);
    const input = parse(updateQuickTemplateSchema, req.body);
    const { template, tenantId } = await loadTemplate(req, id);
    const row = await db().transaction(async (tx) => {
      await loadWritableService(tx, tenantId, template.serviceId);
      const updated = await updateQuickTemplate(tx, tenantId, template.id, input.templateText);
      await touchService(tx, tenantId, template.serviceId);
      return updated;
    });
    return { template: presentQuickTemplate(row) };
  });

  app.delete('/quick-templates/:id', async (req, reply) => {
    const { template, tenantId } = await loadTemplate(req, parseId(req.params));
    await db().transaction(async (tx) => {
      await loadWritableService(tx, tenantId, template.serviceId);
      await deleteQuickTemplate(tx, tenantId, template.id);
      await touchService(tx, tenantId, template.serviceId);
    });
    return reply.status(204).send();
  });

  app.patch('/quick-templates/reorder', async (req) => {
    const input = parse(reorderQuickTemplatesSchema, req.body);
    const { service, tenantId } = await serviceOf(req, input.serviceId, 'service.settings');
    assertWritable(service);
    const rows = await db().transaction(async (tx) => {
      await loadWritableService(tx, tenantId, service.id);
      const current = await listQuickTemplates(tx, tenantId, service.id);
      const ids = new Set(current.map((r) => r.id));
      const given = new Set(input.templateIds);
      if (given.size !== input.templateIds.length || given.size !== ids.size || input.templateIds.some((x) => !ids.has(x))) {
        throw invalid(SETTINGS_MESSAGES.reorderMismatch, 'templateIds');
      }
      await reorderQuickTemplates(tx, tenantId, service.id, input.templateIds);
      await touchService(tx, tenantId, service.id);
      return listQuickTemplates(tx, tenantId, service.id);
    });
    return { templates: rows.map(presentQuickTemplate) };
  });
}

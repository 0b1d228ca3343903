import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { listServices } from '../../db/queries/services';
import { loadServiceContent } from '../../db/queries/catalog';
import { presentService } from '../../presenters/services';
import { presentActorRole, presentAspects, presentCategory, presentQuickTemplate } from '../../presenters/catalog';
import { scope } from '../../plugins/context';
import { authorize, can } from '../../policies';
import { parse } from '../../validation';
import { authorizeService, pathId } from '../../commands/serviceWrites';
import serviceWriteRoutes from './writes';

const listQuery = z.object({
  includeArchived: z
    .enum(['true', 'false', '1', '0'], { error: 'includeArchived must be true or false' })
    .optional()
    .transform((v) => v === 'true' || v === '1'),
});

export default async function serviceRoutes(app: FastifyInstance) {
  app.get('/services', async (req) => {
    const { actor, tenantId } = scope(req);
    const query = parse(listQuery, req.query);
    authorize(actor, 'catalog.view');
    // Only those who may see archived services get them; for everyone else the flag is ignored.
    const includeArchived = query.includeArchived && can(actor, 'services.showArchived');
    const rows = await listServices(app.database.db, tenantId, { includeArchived });
    return { services: rows.map(presentService) };
  });

  app.get<{ Params: { id: string } }>('/services/:id', async (req) => {
    const { actor, tenantId } = scope(req);
    const id = pathId(req.params.id);
    const { service } = await authorizeService(app.database.db, actor, tenantId, id, 'catalog.view');
    return { service: presentService(service) };
  });

  /**
   * The catalog screen's data in one call. Readers never get private aspects. `permissions` tells
   * the page which controls to show; every write is still authorized on its own.
   */
  app.get<{ Params: { id: string } }>('/services/:id/full', async (req) => {
    const { actor, tenantId } = scope(req);
    const id = pathId(req.params.id);
    const db = app.database.db;
    const { service, serviceRole } = await authorizeService(db, actor, tenantId, id, 'catalog.view');
    const ctx = { tenantId, serviceRole };
    const includePrivate = can(actor, 'catalog.edit', ctx);
    const content = await loadServiceContent(db, tenantId, id, { includePrivate });
    return {
      service: presentService(service),
      categories: content.categoryRows.map(presentCategory),
      resolved_data: {
        aspects: presentAspects(content.aspectRows, content.availabilityRows, service.timeline),
        timeline: service.timeline,
      },
      roles: content.roleRows.map(presentActorRole),
      templates: content.templateRows.map(presentQuickTemplate),
      permissions: {
        canEdit: can(actor, 'catalog.edit', ctx),
        canManageSettings: can(actor, 'service.settings', ctx),
        canAdmin: can(actor, 'service.admin', ctx),
        canHardDelete: can(actor, 'services.hardDelete', ctx),
      },
    };
  });

  await serviceWriteRoutes(app);
}

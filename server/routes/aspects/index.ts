import type { FastifyInstance } from 'fastify';
import { aspectWithAvailabilitiesSchema, showPrivateQuerySchema } from '../../../common/schemas/catalog';
import { z } from 'zod';
import { documented } from '../../routeDoc';
import { availabilitiesOfAspects, listAspects } from '../../db/queries/catalog';
import { findService } from '../../db/queries/services';
import { presentAspects } from '../../presenters/catalog';
import { scope } from '../../plugins/context';
import { queryOf } from '../../validation';
import { loadAspect, loadService, seesPrivate } from '../../policies';
import { parsePathId } from '../../commands/serviceWrites';
import aspectWriteRoutes from './writes';

const aspectDoc = documented('Aspects');

type IdParams = { Params: { id: string } };

export default async function aspectRoutes(app: FastifyInstance) {
  const db = app.database.db;

  /** A service's aspects with their availabilities; showPrivate is honoured for editors and up only. */
  app.get(
    '/aspects/service/:id',
    aspectDoc(
      "A service's aspects in display order with their availabilities over its timeline; private ones with showPrivate, for those who may see them",
      'catalog.view (private aspects: catalog.viewPrivate)',
      { 200: z.object({ aspects: z.array(aspectWithAvailabilitiesSchema) }) },
      { query: showPrivateQuerySchema },
    ),
    async (req) => {
      const { actor, tenantId } = scope(req);
      const query = queryOf(req);
      const serviceId = parsePathId((req.params as IdParams['Params']).id);
      const { service, permissions } = await loadService(db, actor, tenantId, serviceId, 'catalog.view');
      const includePrivate = seesPrivate(permissions, query.showPrivate);
      const rows = await listAspects(db, tenantId, serviceId, { includePrivate });
      const availabilities = await availabilitiesOfAspects(
        db,
        tenantId,
        rows.map((a) => a.id),
      );
      return { aspects: presentAspects(rows, availabilities, service.timeline) };
    },
  );

  app.get<IdParams>(
    '/aspects/:id',
    aspectDoc(
      'One aspect with its availabilities over the timeline (a private one only for those who may see it)',
      'catalog.view (private aspects: catalog.viewPrivate)',
      { 200: z.object({ aspect: aspectWithAvailabilitiesSchema }) },
    ),
    async (req) => {
      const { actor, tenantId } = scope(req);
      const { aspect } = await loadAspect(db, actor, tenantId, parsePathId(req.params.id), 'catalog.view');
      const [service, availabilities] = await Promise.all([findService(db, tenantId, aspect.serviceId), availabilitiesOfAspects(db, tenantId, [aspect.id])]);
      return { aspect: presentAspects([aspect], availabilities, service?.timeline)[0] };
    },
  );

  await aspectWriteRoutes(app);
}

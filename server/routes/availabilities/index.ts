import type { FastifyInstance } from 'fastify';
import { CATALOG_MESSAGES as C, setAvailabilitySchema } from '../../../common/schemas/catalog';
import {
  availabilitiesOfAspects,
  availabilitiesOfService,
  historyOfAspect,
  listAspects,
  writeAvailability,
} from '../../db/queries/catalog';
import { presentAspects, presentAvailability, presentHistory } from '../../presenters/catalog';
import { scope } from '../../plugins/context';
import { can } from '../../policies';
import { parse } from '../../validation';
import { conflict } from '../../errors';
import { authorizeService, loadWritableService, pathId } from '../../commands/serviceWrites';
import { authorizeAspect } from '../aspects/access';

type IdParams = { Params: { id: string } };

export default async function availabilityRoutes(app: FastifyInstance) {
  const db = app.database.db;

  /**
   * Sets one aspect's text for one quarter (an empty value clears it) and appends it to the
   * history. An `expectedValue` other than the stored one means someone else saved first: 409.
   */
  app.post('/availabilities', async (req) => {
    const { actor, tenantId } = scope(req);
    const input = parse(setAvailabilitySchema, req.body);
    const { aspect } = await authorizeAspect(db, actor, tenantId, input.aspectId, 'catalog.edit');
    const key = { tenantId, serviceId: aspect.serviceId, aspectId: aspect.id, timeBucket: input.timeBucket };
    // Writes to one service run one at a time (the lock); the check and the write are one statement.
    const expected = input.expectedValue === undefined ? undefined : input.expectedValue?.trim() || null;
    await db.transaction(async (tx) => {
      await loadWritableService(tx, tenantId, aspect.serviceId);
      const result = await writeAvailability(tx, key, input.value, actor.user.email || actor.user.name, expected);
      if (!result.applied) throw conflict(C.availabilityChanged, { current: result.current });
    });
    return { availability: presentAvailability({ aspectId: aspect.id, timeBucket: input.timeBucket, value: input.value }) };
  });

  /** Every stored text of an aspect, inside the timeline or not. */
  app.get<IdParams>('/availabilities/aspect/:id', async (req) => {
    const { actor, tenantId } = scope(req);
    const { aspect } = await authorizeAspect(db, actor, tenantId, req.params.id, 'catalog.view');
    const rows = await availabilitiesOfAspects(db, tenantId, [aspect.id]);
    return { availabilities: rows.map(presentAvailability) };
  });

  app.get<IdParams>('/availabilities/aspect/:id/history', async (req) => {
    const { actor, tenantId } = scope(req);
    const { aspect } = await authorizeAspect(db, actor, tenantId, req.params.id, 'catalog.view');
    const rows = await historyOfAspect(db, tenantId, aspect.id);
    return { history: rows.map(presentHistory) };
  });

  /** The service's aspects with their availabilities over its timeline; readers get public aspects only. */
  app.get<IdParams>('/availabilities/service/:id/resolved', async (req) => {
    const { actor, tenantId } = scope(req);
    const serviceId = pathId(req.params.id);
    const { service, serviceRole } = await authorizeService(db, actor, tenantId, serviceId, 'catalog.view');
    const includePrivate = can(actor, 'catalog.edit', { tenantId, serviceRole });
    const [aspects, availabilities] = await Promise.all([
      listAspects(db, tenantId, serviceId, { includePrivate }),
      availabilitiesOfService(db, tenantId, serviceId, { includePrivate }),
    ]);
    return { aspects: presentAspects(aspects, availabilities, service.timeline), timeline: service.timeline };
  });
}

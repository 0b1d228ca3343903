import type { FastifyInstance } from 'fastify';
import { M } from '../../../common/messages';
import {
  aspectWithAvailabilitiesSchema,
  availabilityBatchAnswerSchema,
  availabilityConflictSchema,
  availabilityViewSchema,
  batchConflictSchema,
  CATALOG_MESSAGES as C,
  expectedText,
  historyPageSchema,
  quarterLabel,
  setAvailabilitiesSchema,
  setAvailabilitySchema,
} from '../../../common/schemas/catalog';
import { z } from 'zod';
import { documented } from '../../routeDoc';
import { MAX_BATCH_BODY_BYTES } from '../../../common/limits';
import { availabilitiesOfAspects, availabilitiesOfService, historyOfAspect, listAspects } from '../../db/queries/catalog';
import { presentAspects, presentAvailability, presentHistory } from '../../presenters/catalog';
import { scope } from '../../plugins/context';
import { holdsOnEveryService, loadAspect, loadService, seesPrivate } from '../../policies';
import { bodyOf, queryOf } from '../../validation';
import { HISTORY_PAGE_DEFAULT, historyPageQuerySchema } from '../../../common/schemas/paging';
import { conflict, invalid, notFound } from '../../errors';
import { parsePathId } from '../../commands/serviceWrites';
import { AvailabilityWriter, cellRange, writeServiceCells } from '../../commands/availabilityWrites';
import { actorColumns } from '../../commands/audit';
import { randomUUID } from 'node:crypto';
import { nextBefore } from '../../presenters/paging';

type IdParams = { Params: { id: string } };

const doc = documented('Availabilities');

export default async function availabilityRoutes(app: FastifyInstance) {
  const db = app.database.db;
  const writer = new AvailabilityWriter();

  /**
   * Sets one aspect's text for one quarter (an empty value clears it) and appends it to the
   * history. An `expectedValue` other than the stored one means someone else saved first: 409.
   */
  app.post(
    '/availabilities',
    doc(
      "Set one aspect's text for one quarter of the service's timeline (empty clears it); an expectedValue other than the stored text is a 409",
      'catalog.edit',
      { 200: z.object({ availability: availabilityViewSchema }) },
      {
        body: setAvailabilitySchema,
        errors: {
          409: {
            description: `${C.availabilityChanged} (\`current\` is the stored text); or: ${M.serviceArchivedConflict}`,
            schema: availabilityConflictSchema,
          },
        },
      },
    ),
    async (req) => {
      const { actor, tenantId } = scope(req);
      const input = bodyOf(req);
      // The tenant role of editors and admins lets them edit every aspect of the tenant, private or
      // not: nothing to read before the write, which is then one statement. Anyone else may hold the
      // right through a service role, which only the aspect's service tells.
      if (!holdsOnEveryService(actor, 'catalog.edit')) {
        await loadAspect(db, actor, tenantId, input.aspectId, 'catalog.edit');
      }
      // The id as the database spells it (a uuid may come in capitals).
      const aspectId = input.aspectId.toLowerCase();
      const expected = expectedText(input.expectedValue);
      const key = { tenantId, aspectId, timeBucket: input.timeBucket };
      // Writes that arrive while another of the tenant's is under way are sent with others, in one statement.
      // Its audit entry is written by the same statement as the cell, with the request its history row carries.
      const audit = {
        request: randomUUID(),
        actor: actorColumns(actor),
        details: { count: 1, ...cellRange([{ aspectId, timeBucket: input.timeBucket }]), value: input.value },
      };
      const result = await writer.write(db, { key, value: input.value, changedBy: actor.user.email || actor.user.name, expected, audit });
      if (result.status === 'not_found') throw notFound();
      if (result.status === 'outside') throw invalid(C.quarterOutsideTimeline(input.timeBucket), 'timeBucket');
      if (result.status === 'archived') throw conflict(M.serviceArchivedConflict);
      if (result.status === 'conflict') throw conflict(C.availabilityChanged, { current: result.current });
      // Committed: the next /full of the service can be made from the body before it and this aspect.
      if (result.serviceId && result.serviceVersion !== null) app.availabilityChanges.record(tenantId, result.serviceId, result.serviceVersion, aspectId);
      return { availability: presentAvailability({ aspectId, timeBucket: input.timeBucket, value: input.value }) };
    },
  );

  /**
   * Many cells of one service in one transaction, all or nothing, with one cell's rules
   * (docs/decisions/0125-availability-batch.md): any conflict answers 409 naming every conflicting
   * cell and writes none.
   */
  app.post(
    '/availabilities/batch',
    {
      bodyLimit: MAX_BATCH_BODY_BYTES,
      ...doc(
        "Set many cells of one service at once, all or nothing, each a quarter of the service's timeline",
        'catalog.edit',
        { 200: availabilityBatchAnswerSchema },
        {
          body: setAvailabilitiesSchema,
          errors: {
            409: { description: `${C.cellsChanged} (\`conflicts\` names every such cell); or: ${M.serviceArchivedConflict}`, schema: batchConflictSchema },
          },
        },
      ),
    },
    async (req) => {
      const { actor, tenantId } = scope(req);
      const input = bodyOf(req);
      const serviceId = input.serviceId.toLowerCase();
      const written = await db.transaction(async (tx) => {
        await loadService(tx, actor, tenantId, serviceId, 'catalog.edit');
        return writeServiceCells(tx, actor, tenantId, serviceId, input.cells);
      });
      return {
        changed: written.changed.length,
        unchanged: written.unchanged,
        availabilities: written.changed.map((c) => presentAvailability(c)),
      };
    },
  );

  /** Every stored text of an aspect, inside the timeline or not. */
  app.get<IdParams>(
    '/availabilities/aspect/:id',
    doc("Every stored text of an aspect, inside the service's timeline or not", 'catalog.view', {
      200: z.object({ availabilities: z.array(availabilityViewSchema) }),
    }),
    async (req) => {
      const { actor, tenantId } = scope(req);
      const { aspect } = await loadAspect(db, actor, tenantId, parsePathId(req.params.id), 'catalog.view');
      const rows = await availabilitiesOfAspects(db, tenantId, [aspect.id]);
      return { availabilities: rows.map(presentAvailability) };
    },
  );

  app.get(
    '/availabilities/aspect/:id/history',
    doc("The history of an aspect's texts, newest first, a page at a time", 'catalog.view', { 200: historyPageSchema }, { query: historyPageQuerySchema }),
    async (req) => {
      const { actor, tenantId } = scope(req);
      const { aspect } = await loadAspect(db, actor, tenantId, parsePathId((req.params as IdParams['Params']).id), 'catalog.view');
      const query = queryOf(req);
      const limit = query.limit ?? HISTORY_PAGE_DEFAULT;
      const rows = await historyOfAspect(db, tenantId, aspect.id, { before: query.before, limit });
      return { history: rows.map(presentHistory), next_before: nextBefore(rows, limit, (r) => r.id) };
    },
  );

  /** The service's aspects with their availabilities over its timeline; readers get public aspects only. */
  app.get<IdParams>(
    '/availabilities/service/:id/resolved',
    doc(
      "A service's aspects with their availabilities over its timeline (readers: public aspects only)",
      'catalog.view (private aspects: catalog.viewPrivate)',
      { 200: z.object({ aspects: z.array(aspectWithAvailabilitiesSchema), timeline: z.array(quarterLabel) }) },
    ),
    async (req) => {
      const { actor, tenantId } = scope(req);
      const serviceId = parsePathId(req.params.id);
      const { service, permissions } = await loadService(db, actor, tenantId, serviceId, 'catalog.view');
      const includePrivate = seesPrivate(permissions);
      const [aspects, availabilities] = await Promise.all([
        listAspects(db, tenantId, serviceId, { includePrivate }),
        availabilitiesOfService(db, tenantId, serviceId, { includePrivate }),
      ]);
      return { aspects: presentAspects(aspects, availabilities, service.timeline), timeline: service.timeline };
    },
  );
}

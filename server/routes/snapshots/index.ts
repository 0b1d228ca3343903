import { seesPrivate, seesSnapshot } from '../../policies';
import type { FastifyInstance } from 'fastify';
import { createSnapshotSchema, snapshotListSchema } from '../../../common/schemas/settings';
import { documented } from '../../routeDoc';
import { freezeCatalog, takeSnapshot } from '../../commands/takeSnapshot';
import { findSnapshot, listSnapshots, type SnapshotRow } from '../../db/queries/settings';
import { compareCatalogs, publicPart, summarizeDiff, type FrozenCatalog } from '../../../common/catalogDiff';
import { compareQuerySchema, snapshotAnswerSchema, snapshotComparisonSchema } from '../../../common/schemas/publishing';
import { notFound } from '../../errors';
import { scope, serviceOf } from '../../plugins/context';
import { presentSnapshot, presentSnapshotSummary } from '../../presenters/settings';
import { bodyOf, queryOf } from '../../validation';
import { SNAPSHOT_LIST_CAP, snapshotPageQuerySchema } from '../../../common/schemas/paging';
import { parseIdParam } from '../../commands/serviceWrites';
import { nextBefore } from '../../presenters/paging';

const doc = documented('Snapshots');

/**
 * Snapshots: editors and up take them and see every snapshot; readers see public snapshots only
 * (docs/decisions/0008-snapshots.md).
 */
export default async function snapshotRoutes(app: FastifyInstance) {
  const db = () => app.database.db;

  app.get(
    '/snapshots/service/:id',
    doc(
      "A service's snapshots, newest first (readers: public ones only), every one up to the cap or a page with limit and before",
      'catalog.view (internal snapshots: catalog.viewPrivate)',
      { 200: snapshotListSchema },
      { query: snapshotPageQuerySchema },
    ),
    async (req) => {
      const ctx = await serviceOf(req, parseIdParam(req.params), 'catalog.view');
      const query = queryOf(req);
      // Without `limit`, every snapshot up to the cap (decision 0114).
      const limit = query.limit ?? SNAPSHOT_LIST_CAP;
      const rows = await listSnapshots(db(), ctx.tenantId, ctx.service.id, {
        publicOnly: !seesPrivate(ctx.permissions) || query.visibility === 'public',
        before: query.before,
        limit,
      });
      return { snapshots: rows.map(presentSnapshotSummary), next_before: nextBefore(rows, limit, (r) => r.id) };
    },
  );

  /**
   * What changed from one snapshot to another of the same service, or to the live catalog
   * (`to=current`), with the same rules of who sees which snapshot (docs/decisions/0122-comparing-snapshots.md).
   * The live catalog is frozen as the `from` snapshot was (public aspects only after a public one),
   * and as public for those who may not see private aspects.
   */
  app.get(
    '/snapshots/compare',
    doc(
      'What changed from one snapshot to another of the same service, or to the live catalog (to=current)',
      'catalog.view (internal snapshots: catalog.viewPrivate)',
      { 200: snapshotComparisonSchema },
      { query: compareQuerySchema },
    ),
    async (req) => {
      const { tenantId } = scope(req);
      const query = queryOf(req);
      const from = await findSnapshot(db(), tenantId, query.from);
      if (!from) throw notFound();
      const ctx = await serviceOf(req, from.serviceId, 'catalog.view');
      const visible = (row: SnapshotRow) => seesSnapshot(ctx.permissions, row);
      if (!visible(from)) throw notFound();
      let to: {
        summary: ReturnType<typeof presentSnapshotSummary> | { id: 'current'; label: string; visibility: string; created_at: string };
        data: FrozenCatalog;
      };
      if (query.to === 'current') {
        const visibility = from.visibility === 'public' || !seesPrivate(ctx.permissions) ? 'public' : 'internal';
        const live = await freezeCatalog(db(), ctx.service, visibility);
        to = { summary: { id: 'current', label: 'Live catalog', visibility, created_at: live.taken_at }, data: live };
      } else {
        const row = await findSnapshot(db(), tenantId, query.to);
        if (!row || row.serviceId !== from.serviceId || !visible(row)) throw notFound();
        to = { summary: presentSnapshotSummary(row), data: row.data as FrozenCatalog };
      }
      // Like with like: a public side holds no private aspect, so none is read on the other side
      // either (it would show as removed or added when it only is private).
      const onlyPublic = from.visibility === 'public' || to.summary.visibility === 'public';
      const side = (data: FrozenCatalog) => (onlyPublic ? publicPart(data) : data);
      const diff = compareCatalogs(side(from.data as FrozenCatalog), side(to.data));
      // Against the live catalog, quarters already begun compare a plan with what is recorded.
      const planned = query.to === 'current' && diff.started_quarters.length > 0;
      return {
        from: presentSnapshotSummary(from),
        to: to.summary,
        labels: planned ? { from: 'What was planned', to: 'What is recorded' } : { from: 'Before', to: 'After' },
        summary: summarizeDiff(diff),
        diff,
      };
    },
  );

  app.get(
    '/snapshots/:id',
    doc('One snapshot with its frozen catalog (an internal one is not found for readers)', 'catalog.view (internal snapshots: catalog.viewPrivate)', {
      200: snapshotAnswerSchema,
    }),
    async (req) => {
      const { tenantId } = scope(req);
      const row = await findSnapshot(db(), tenantId, parseIdParam(req.params));
      if (!row) throw notFound();
      const ctx = await serviceOf(req, row.serviceId, 'catalog.view');
      // An internal snapshot does not exist for those who may only see public ones.
      if (!seesSnapshot(ctx.permissions, row)) throw notFound();
      return { snapshot: presentSnapshot(row) };
    },
  );

  app.post(
    '/snapshots',
    doc(
      'Take a snapshot of a service: a frozen copy of its catalog that never changes',
      'service.settings',
      { 201: snapshotAnswerSchema },
      { body: createSnapshotSchema },
    ),
    async (req, reply) => {
      const input = bodyOf(req);
      const { service, actor } = await serviceOf(req, input.serviceId, 'service.settings');
      const row = await takeSnapshot(
        db(),
        service,
        {
          label: input.label,
          visibility: input.visibility,
          note: input.note,
          createdBy: actor.user.name || actor.user.email,
        },
        actor,
      );
      return reply.status(201).send({ snapshot: presentSnapshot(row) });
    },
  );
}

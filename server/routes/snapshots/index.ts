import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { createSnapshotSchema, settingsIdSchema } from '../../../common/schemas/settings';
import { takeSnapshot } from '../../commands/takeSnapshot';
import { findSnapshot, listSnapshots } from '../../db/queries/settings';
import { notFound } from '../../errors';
import { scope, serviceOf } from '../../plugins/context';
import { presentSnapshot, presentSnapshotSummary } from '../../presenters/settings';
import { parse } from '../../validation';
import { SNAPSHOT_LIST_CAP, snapshotPageQuerySchema } from '../../../common/schemas/paging';

const idParams = z.object({ id: settingsIdSchema });

function parseId(input: unknown): string {
  const r = idParams.safeParse(input);
  if (!r.success) throw notFound();
  return r.data.id;
}

/**
 * Snapshots: editors and up take them and see every snapshot; readers see public snapshots only
 * (docs/decisions/snapshots.md).
 */
export default async function snapshotRoutes(app: FastifyInstance) {
  const db = () => app.database.db;

  app.get('/snapshots/service/:id', async (req) => {
    const ctx = await serviceOf(req, parseId(req.params), 'catalog.view');
    const query = parse(snapshotPageQuerySchema, req.query);
    // Without `limit`, every snapshot up to the cap (decision 0114).
    const limit = query.limit ?? SNAPSHOT_LIST_CAP;
    const rows = await listSnapshots(db(), ctx.tenantId, ctx.service.id, { publicOnly: !ctx.permissions.canViewPrivate, before: query.before, limit });
    const last = rows.at(-1);
    return { snapshots: rows.map(presentSnapshotSummary), next_before: rows.length === limit && last ? last.id : null };
  });

  app.get('/snapshots/:id', async (req) => {
    const { tenantId } = scope(req);
    const row = await findSnapshot(db(), tenantId, parseId(req.params));
    if (!row) throw notFound();
    const ctx = await serviceOf(req, row.serviceId, 'catalog.view');
    // An internal snapshot does not exist for those who may only see public ones.
    if (row.visibility !== 'public' && !ctx.permissions.canViewPrivate) throw notFound();
    return { snapshot: presentSnapshot(row) };
  });

  app.post('/snapshots', async (req, reply) => {
    const input = parse(createSnapshotSchema, req.body);
    const { service, actor } = await serviceOf(req, input.serviceId, 'service.settings');
    const row = await takeSnapshot(db(), service, {
      label: input.label,
      visibility: input.visibility,
      note: input.note,
      createdBy: actor.user.name || actor.user.email,
    });
    return reply.status(201).send({ snapshot: presentSnapshot(row) });
  });
}

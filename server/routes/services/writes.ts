import type { FastifyInstance } from 'fastify';
import { M } from '../../../common/messages';
import { defaultTimeline, quarterRange } from '../../../common/quarters';
import { createServiceSchema, updateServiceSchema } from '../../../common/schemas/services';
import { insertService, lockService, updateService, type ServiceChanges } from '../../db/queries/services';
import { presentService } from '../../presenters/services';
import { scope, type Actor } from '../../plugins/context';
import { loadService, requireTenant } from '../../policies';
import { bodyOf } from '../../validation';
import { conflict, notFound } from '../../errors';
import { writeAudit } from '../../commands/audit';
import { loadWritableService, parsePathId } from '../../commands/serviceWrites';
import { sanitizeRichText } from '../../content/sanitize';
import { validateIcon } from '../../content/icon';
import { serviceAnswerSchema } from '../../../common/schemas/services';
import { documented } from '../../routeDoc';

const serviceDoc = documented('Services');

type IdParams = { Params: { id: string } };

/** Creating, editing and archiving services. */
export default async function serviceWriteRoutes(app: FastifyInstance) {
  const db = app.database.db;
  const one = { 200: serviceAnswerSchema };
  const archived = { 409: M.serviceArchivedConflict };
  const icon = { 413: 'The request body, or the icon, is too large' };

  app.post(
    '/services',
    serviceDoc(
      'Create a service, with the timeline given (its first and last quarter) or else the current quarter and the seven after it',
      'tenant.services',
      { 201: serviceAnswerSchema },
      {
        body: createServiceSchema,
        errors: { 409: M.slugTaken, ...icon },
      },
    ),
    async (req, reply) => {
      const { actor, tenantId } = scope(req);
      const input = bodyOf(req);
      requireTenant(actor, 'tenant.services');
      const iconUrl = input.iconUrl ? validateIcon(input.iconUrl) : null;
      const service = await db.transaction(async (tx) => {
        const row = await insertService(tx, tenantId, {
          name: input.name,
          slug: input.slug,
          description: sanitizeRichText(input.description),
          serviceOwner: input.serviceOwner ?? '',
          subscriptionModel: input.subscriptionModel ?? '',
          iconUrl,
          timeline: input.timeline ? quarterRange(input.timeline.first, input.timeline.last) : defaultTimeline(),
        });
        if (!row) throw conflict(M.slugTaken);
        await writeAudit(tx, actor, { tenantId, action: 'service.create', targetType: 'service', targetId: row.id, details: { slug: row.slug } });
        return row;
      });
      return reply.status(201).send({ service: presentService(service) });
    },
  );

  /** Edits the details and the timeline; the slug never changes (a slug in the body is ignored). */
  app.put(
    '/services/:id',
    serviceDoc('Edit the details and the timeline (the slug never changes)', 'service.settings', one, {
      body: updateServiceSchema,
      errors: { ...archived, ...icon },
    }),
    async (req) => {
      const { actor, tenantId } = scope(req);
      const id = parsePathId((req.params as IdParams['Params']).id);
      const input = bodyOf(req);
      await loadService(db, actor, tenantId, id, 'service.settings');
      const changes: ServiceChanges = { name: input.name };
      if (input.description !== undefined) changes.description = sanitizeRichText(input.description);
      if (input.serviceOwner !== undefined) changes.serviceOwner = input.serviceOwner;
      if (input.subscriptionModel !== undefined) changes.subscriptionModel = input.subscriptionModel;
      if (input.iconUrl !== undefined) changes.iconUrl = input.iconUrl ? validateIcon(input.iconUrl) : null;
      // Availability texts outside the new timeline stay stored and reappear when it covers them again.
      if (input.timeline) changes.timeline = quarterRange(input.timeline.first, input.timeline.last);
      const service = await db.transaction(async (tx) => {
        const before = await loadWritableService(tx, tenantId, id);
        const row = await updateService(tx, tenantId, id, changes);
        if (row) {
          const fields = Object.keys(changes).filter(
            (k) => JSON.stringify(changes[k as keyof ServiceChanges]) !== JSON.stringify(before[k as keyof typeof before]),
          );
          const details: Record<string, unknown> = { name: row.name, fields };
          if (fields.includes('name')) Object.assign(details, { from: before.name, to: row.name });
          await writeAudit(tx, actor, { tenantId, action: 'service.update', targetType: 'service', targetId: id, details });
        }
        return row;
      });
      if (!service) throw notFound(M.serviceNotFound);
      return { service: presentService(service) };
    },
  );

  const setArchived = async (actor: Actor, tenantId: string, id: string, archived: boolean) => {
    await loadService(db, actor, tenantId, id, 'service.admin');
    return db.transaction(async (tx) => {
      const current = await lockService(tx, tenantId, id);
      if (!current) throw notFound(M.serviceNotFound);
      const row = await updateService(tx, tenantId, id, { archived });
      await writeAudit(tx, actor, {
        tenantId,
        action: archived ? 'service.archive' : 'service.unarchive',
        targetType: 'service',
        targetId: id,
      });
      return row!;
    });
  };

  app.patch<IdParams>('/services/:id/archive', serviceDoc('Archive a service: read-only, hidden from the dashboard', 'service.admin', one), async (req) => {
    const { actor, tenantId } = scope(req);
    const service = await setArchived(actor, tenantId, parsePathId(req.params.id), true);
    return { service: presentService(service) };
  });

  app.patch<IdParams>('/services/:id/unarchive', serviceDoc('Unarchive a service', 'service.admin', one), async (req) => {
    const { actor, tenantId } = scope(req);
    const service = await setArchived(actor, tenantId, parsePathId(req.params.id), false);
    return { service: presentService(service) };
  });

  /**
   * Publishing (docs/decisions/0120-public-pages.md): an admin of the service turns its public page
   * on or off. An archived service cannot be published (409) but can always be unpublished.
   */
  const setPublished = async (actor: Actor, tenantId: string, id: string, published: boolean) => {
    await loadService(db, actor, tenantId, id, 'service.admin');
    return db.transaction(async (tx) => {
      const current = await lockService(tx, tenantId, id);
      if (!current) throw notFound(M.serviceNotFound);
      if (published && current.archived) throw conflict(M.serviceArchivedConflict);
      if (current.published === published) return current;
      const row = await updateService(tx, tenantId, id, { published });
      await writeAudit(tx, actor, {
        tenantId,
        action: published ? 'service.publish' : 'service.unpublish',
        targetType: 'service',
        targetId: id,
      });
      return row!;
    });
  };

  app.patch<IdParams>(
    '/services/:id/publish',
    serviceDoc('Publish a service: its public page and feed are on', 'service.admin', one, { errors: archived }),
    async (req) => {
      const { actor, tenantId } = scope(req);
      const service = await setPublished(actor, tenantId, parsePathId(req.params.id), true);
      return { service: presentService(service) };
    },
  );

  app.patch<IdParams>('/services/:id/unpublish', serviceDoc('Unpublish a service: its public page is off', 'service.admin', one), async (req) => {
    const { actor, tenantId } = scope(req);
    const service = await setPublished(actor, tenantId, parsePathId(req.params.id), false);
    return { service: presentService(service) };
  });

  /** Archives (CONTRACT section 4); only the super admins' hard delete removes data. */
  app.delete<IdParams>(
    '/services/:id',
    serviceDoc('Archive a service, as PATCH /api/services/{id}/archive does (only the hard delete removes data)', 'service.admin', { 204: null }),
    async (req, reply) => {
      const { actor, tenantId } = scope(req);
      await setArchived(actor, tenantId, parsePathId(req.params.id), true);
      return reply.status(204).send();
    },
  );
}

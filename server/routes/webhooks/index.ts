import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  createWebhookSchema,
  INTEGRATION_MESSAGES,
  updateWebhookSchema,
  webhookDeliveryPageSchema,
  webhookDeliveryViewSchema,
  webhookTestResultSchema,
  webhookViewSchema,
} from '../../../common/schemas/integrations';
import { DELIVERY_PAGE_DEFAULT, deliveryPageQuerySchema } from '../../../common/schemas/paging';
import { documented, type RouteDoc } from '../../routeDoc';
import { writeAudit } from '../../commands/audit';
import { deleteWebhook, findWebhook, insertWebhook, listDeliveries, listWebhooks, requeueDelivery, updateWebhook } from '../../db/queries/integrations';
import { conflict, invalid, notFound } from '../../errors';
import { randomUUID } from 'node:crypto';
import { sendWebhook } from '../../integrations/send';
import { newWebhookSecret, PREVIOUS_SECRET_MS, signDelivery } from '../../integrations/signing';
import { refuseUrl } from '../../integrations/targets';
import { scope } from '../../plugins/context';
import { requireActingAsSelf, requireIntegrationManager } from '../../policies';
import { presentDelivery, presentWebhook } from '../../presenters/integrations';
import { bodyOf, queryOf } from '../../validation';
import { nextBefore } from '../../presenters/paging';

const M = INTEGRATION_MESSAGES;
const ids = z.object({ id: z.uuid(), deliveryId: z.uuid().optional() });

function idsOf(req: FastifyRequest, message: string): { id: string; deliveryId?: string } {
  const parsed = ids.safeParse(req.params);
  if (!parsed.success) throw notFound(message);
  return parsed.data;
}

/**
 * Webhooks (docs/decisions/0131-webhooks.md): a tenant's admins register endpoints for events, read
 * their delivery log and send a delivery again. The signing secret is answered at creation and at
 * rotation only.
 */
export default async function webhookRoutes(app: FastifyInstance) {
  const db = () => app.database.db;
  const dispatcher = app.webhooks;

  /** The URL may be saved: its scheme, and a literal address allowed (the addresses a name resolves to are checked at each delivery). */
  const checkUrl = (url: string) => {
    const refused = refuseUrl(url, app.config.WEBHOOK_ALLOW_PRIVATE_TARGETS);
    if (refused === 'scheme') throw invalid(M.webhookUrlInvalid, 'url');
    if (refused) throw invalid(M.webhookUrlPrivate, 'url');
  };

  const tags = ['Webhooks'];
  const capability = 'tenant.users (a person, never an API token)';
  const one = z.object({ webhook: webhookViewSchema });
  const doc = <E extends Partial<RouteDoc> = object>(summary: string, responses: RouteDoc['responses'], extra?: E) =>
    documented(tags[0]!)(summary, capability, responses, extra);

  app.post(
    '/webhooks',
    doc(
      'Register a webhook endpoint; its signing secret is answered here only',
      { 201: one.extend({ secret: z.string().startsWith('whsec_') }) },
      { body: createWebhookSchema },
    ),
    async (req, reply) => {
      const { actor, tenantId } = scope(req);
      requireIntegrationManager(actor);
      requireActingAsSelf(actor);
      const input = bodyOf(req);
      checkUrl(input.url);
      const secret = newWebhookSecret();
      const row = await db().transaction(async (tx) => {
        const created = await insertWebhook(tx, { tenantId, url: input.url, events: input.events, role: input.role, secret });
        await writeAudit(tx, actor, {
          tenantId,
          action: 'webhook.create',
          targetType: 'webhook',
          targetId: created.id,
          details: { url: input.url, events: input.events },
        });
        return created;
      });
      return reply.status(201).send({ webhook: presentWebhook(row), secret });
    },
  );

  app.get('/webhooks', doc("The tenant's webhook endpoints", { 200: z.object({ webhooks: z.array(webhookViewSchema) }) }), async (req) => {
    const { actor, tenantId } = scope(req);
    requireIntegrationManager(actor);
    return { webhooks: (await listWebhooks(db(), tenantId)).map(presentWebhook) };
  });

  app.put(
    '/webhooks/:id',
    doc(
      'Change an endpoint: URL, events, role, enabled; rotateSecret answers a new secret (the old one signs too for 24 hours)',
      { 200: one.extend({ secret: z.string().optional() }) },
      { body: updateWebhookSchema },
    ),
    async (req) => {
      const { actor, tenantId } = scope(req);
      requireIntegrationManager(actor);
      const { id } = idsOf(req, M.webhookNotFound);
      const input = bodyOf(req);
      // A new destination or a new secret would outlast an impersonation as a new webhook would.
      if (input.url !== undefined || input.rotateSecret) requireActingAsSelf(actor);
      if (input.url !== undefined) checkUrl(input.url);
      const secret = input.rotateSecret ? newWebhookSecret() : undefined;
      const row = await db().transaction(async (tx) => {
        const found = await findWebhook(tx, tenantId, id);
        if (!found) throw notFound(M.webhookNotFound);
        const updated = await updateWebhook(tx, tenantId, id, {
          ...(input.url !== undefined ? { url: input.url } : {}),
          ...(input.events !== undefined ? { events: input.events } : {}),
          ...(input.role !== undefined ? { role: input.role } : {}),
          // Started again by hand: its run of failures starts afresh.
          ...(input.enabled !== undefined ? { enabled: input.enabled, disabledReason: input.enabled ? null : 'manual', failingSince: null } : {}),
          ...(secret ? { secret, previousSecret: found.secret, previousSecretUntil: new Date(Date.now() + PREVIOUS_SECRET_MS) } : {}),
        });
        const { rotateSecret, ...changed } = input;
        await writeAudit(tx, actor, {
          tenantId,
          action: 'webhook.update',
          targetType: 'webhook',
          targetId: id,
          details: { ...changed, rotatedSecret: Boolean(rotateSecret) },
        });
        return updated!;
      });
      return secret ? { webhook: presentWebhook(row), secret } : { webhook: presentWebhook(row) };
    },
  );

  app.delete('/webhooks/:id', doc('Delete an endpoint and its delivery log', { 204: null }), async (req, reply) => {
    const { actor, tenantId } = scope(req);
    requireIntegrationManager(actor);
    const { id } = idsOf(req, M.webhookNotFound);
    await db().transaction(async (tx) => {
      const deleted = await deleteWebhook(tx, tenantId, id);
      if (!deleted) throw notFound(M.webhookNotFound);
      await writeAudit(tx, actor, { tenantId, action: 'webhook.delete', targetType: 'webhook', targetId: id, details: { url: deleted.url } });
    });
    return reply.status(204).send();
  });

  app.get(
    '/webhooks/:id/deliveries',
    doc(
      "An endpoint's delivery log, newest first, a page at a time (finished deliveries are kept for the server's WEBHOOK_LOG_DAYS, 30 by default)",
      { 200: webhookDeliveryPageSchema },
      { query: deliveryPageQuerySchema },
    ),
    async (req) => {
      const { actor, tenantId } = scope(req);
      requireIntegrationManager(actor);
      const { id } = idsOf(req, M.webhookNotFound);
      const query = queryOf(req);
      if (!(await findWebhook(db(), tenantId, id))) throw notFound(M.webhookNotFound);
      const limit = query.limit ?? DELIVERY_PAGE_DEFAULT;
      const rows = await listDeliveries(db(), tenantId, id, { before: query.before, limit });
      return { deliveries: rows.map(presentDelivery), next_before: nextBefore(rows, limit, (r) => r.seq) };
    },
  );

  /** "Send again": the same event (same id, so a receiver can tell it is the same) queued once more, now. */
  app.post(
    '/webhooks/:id/test',
    doc('Send a signed test event (type webhook.test) to the endpoint now and answer how it went; it is not written to the delivery log', {
      200: webhookTestResultSchema,
    }),
    async (req) => {
      const { actor, tenantId } = scope(req);
      requireIntegrationManager(actor);
      const { id } = idsOf(req, M.webhookNotFound);
      const endpoint = await findWebhook(db(), tenantId, id);
      if (!endpoint) throw notFound(M.webhookNotFound);
      const at = new Date();
      const body = JSON.stringify({ type: 'webhook.test', timestamp: at.toISOString(), data: { webhook_id: endpoint.id, test: true } });
      const headers = signDelivery(endpoint, `msg_test_${randomUUID().replaceAll('-', '')}`, at, body);
      const sent = await sendWebhook(endpoint.url, headers, body, {
        timeoutMs: app.config.WEBHOOK_TIMEOUT_MS,
        allowPrivate: app.config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      });
      return { result: { ok: sent.ok, status: sent.status, duration_ms: sent.durationMs, error: sent.error } };
    },
  );

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/retry',
    doc('Send a delivery again (the same event id)', { 202: z.object({ delivery: webhookDeliveryViewSchema }) }, { errors: { 409: M.enableBeforeSending } }),
    async (req, reply) => {
      const { actor, tenantId } = scope(req);
      requireIntegrationManager(actor);
      const { id, deliveryId } = idsOf(req, M.deliveryNotFound);
      const endpoint = await findWebhook(db(), tenantId, id);
      if (!endpoint) throw notFound(M.deliveryNotFound);
      if (!endpoint.enabled) throw conflict(M.enableBeforeSending);
      const queued = await requeueDelivery(db(), tenantId, id, deliveryId!);
      if (!queued) throw notFound(M.deliveryNotFound);
      dispatcher.wake();
      return reply.status(202).send({ delivery: presentDelivery(queued!) });
    },
  );
}

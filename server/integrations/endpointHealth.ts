/**
 * Whether a webhook endpoint is failing (docs/decisions/0132-webhook-delivery.md): one that answered
 * is no longer failing; one that did not is, and failing for a day it is disabled, its waiting
 * deliveries fail, and its tenant's admins are told through the audit log.
 */
import type { FastifyBaseLogger } from 'fastify';
import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../db';
import { webhookDeliveries, webhookEndpoints } from '../db/schema';
import type { WebhookEndpointRow } from '../db/queries/integrations';
import { writeAudit } from '../commands/audit';

/** An endpoint failing this long without a success is disabled. */
export const DISABLE_AFTER_MS = 24 * 3600 * 1000;

/** What a round's outcome tells of its endpoint. */
interface Attempt {
  endpoint?: WebhookEndpointRow;
  /** Whether a request went out (an endpoint's failing state follows those only). */
  sent?: boolean;
  status: 'pending' | 'succeeded' | 'failed';
}

/** Notes the endpoints a round's attempts went to: answered, they are no longer failing; not, they are. */
export async function noteEndpoints(db: Executor, attempts: Attempt[], endpoints: Map<string, WebhookEndpointRow>, log: FastifyBaseLogger): Promise<void> {
  const answered = new Set<string>();
  const failed = new Set<string>();
  for (const a of attempts) {
    if (!a.sent || !a.endpoint) continue;
    (a.status === 'succeeded' ? answered : failed).add(a.endpoint.id);
  }
  const recovered = [...answered].filter((id) => !failed.has(id) && endpoints.get(id)?.failingSince);
  if (recovered.length) await db.update(webhookEndpoints).set({ failingSince: null }).where(inArray(webhookEndpoints.id, recovered));
  for (const id of failed) await noteFailure(db, endpoints.get(id)!, log);
}

/** Marks the endpoint failing; failing for a day, it is disabled, its waiting deliveries fail, and its tenant's admins are told. */
async function noteFailure(db: Executor, endpoint: WebhookEndpointRow, log: FastifyBaseLogger): Promise<void> {
  const since = endpoint.failingSince ?? new Date();
  if (!endpoint.failingSince) await db.update(webhookEndpoints).set({ failingSince: since }).where(eq(webhookEndpoints.id, endpoint.id));
  if (Date.now() - since.getTime() < DISABLE_AFTER_MS) return;
  await db.transaction(async (tx) => {
    const [disabled] = await tx
      .update(webhookEndpoints)
      .set({ enabled: false, disabledReason: 'failing' })
      .where(and(eq(webhookEndpoints.id, endpoint.id), eq(webhookEndpoints.enabled, true)))
      .returning();
    if (!disabled) return;
    await tx
      .update(webhookDeliveries)
      .set({ status: 'failed', error: 'endpoint disabled after failing for a day', leaseUntil: null })
      .where(and(eq(webhookDeliveries.endpointId, endpoint.id), inArray(webhookDeliveries.status, ['pending', 'sending'])));
    // The tenant's audit log tells its admins; Tenant Settings shows the endpoint as disabled, and why.
    await writeAudit(
      tx,
      { system: 'Webhook delivery' },
      {
        tenantId: endpoint.tenantId,
        action: 'webhook.disable',
        targetType: 'webhook',
        targetId: endpoint.id,
        details: { url: endpoint.url, failingSince: since.toISOString() },
      },
    );
  });
  log.warn({ endpointId: endpoint.id, tenantId: endpoint.tenantId }, 'webhook endpoint disabled after failing for a day');
}

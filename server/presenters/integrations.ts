import type { AdminApiTokenView, ApiTokenView, WebhookDeliveryView, WebhookEvent, WebhookView } from '../../common/schemas/integrations';
import type { ApiTokenListing, ApiTokenWithCreator, WebhookDeliveryRow, WebhookEndpointRow } from '../db/queries/integrations';
import { tokenSuspension } from '../policies';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** An API token as listed: never its secret or hash, only the first characters to recognise it. */
export function presentApiToken(row: ApiTokenWithCreator): ApiTokenView {
  return {
    id: row.id,
    tenant_id: row.tenantId,
    name: row.name,
    role: row.role,
    service_ids: row.serviceIds ?? null,
    hint: row.hint,
    expires_at: iso(row.expiresAt),
    last_used_at: iso(row.lastUsedAt),
    created_at: row.createdAt.toISOString(),
    suspended_reason: tokenSuspension(row.role, row.creator),
  };
}

/** A token of every tenant's list (the Super Admin Panel): its tenant and services by name, and its revocation. */
export function presentAdminApiToken(row: ApiTokenListing): AdminApiTokenView {
  return { ...presentApiToken(row), tenant_name: row.tenantName, service_names: row.serviceNames, revoked_at: iso(row.revokedAt) };
}

/** A webhook endpoint: never its signing secret. */
export function presentWebhook(row: WebhookEndpointRow): WebhookView {
  return {
    id: row.id,
    url: row.url,
    events: row.events as WebhookEvent[],
    role: row.role,
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    failing_since: iso(row.failingSince),
    created_at: row.createdAt.toISOString(),
  };
}

export function presentDelivery(row: WebhookDeliveryRow): WebhookDeliveryView {
  const waiting = row.status === 'pending' || row.status === 'sending';
  return {
    id: row.id,
    event_id: row.eventId,
    event_type: row.eventType,
    status: row.status,
    attempts: row.attempts,
    response_status: row.responseStatus,
    duration_ms: row.durationMs,
    error: row.error,
    created_at: row.createdAt.toISOString(),
    last_attempt_at: iso(row.lastAttemptAt),
    attempt_log: row.attemptLog,
    next_attempt_at: waiting ? row.nextAttemptAt.toISOString() : null,
  };
}

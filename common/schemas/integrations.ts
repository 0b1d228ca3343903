import { z } from 'zod';
import { ROLES } from '../roles';
import { requiredString } from './fields';

/** The most API tokens a tenant has in use (not revoked; expired ones count until revoked): its list in Tenant Settings shows them all. */
export const MAX_ACTIVE_API_TOKENS = 1_000;

/** Messages of the API tokens and webhooks (docs/decisions/0130-api-tokens.md, 0131-webhooks.md). */
export const INTEGRATION_MESSAGES = {
  tokenNameRequired: 'A name and a role are required',
  tokenExpiryInPast: 'The expiry must be in the future',
  tokenServiceUnknown: 'One of the services does not exist in this tenant',
  tokenNotFound: 'API token not found',
  tokenSuspendedCreatorGone: 'This API token is suspended: the person who created it no longer has an account. A tenant admin can re-issue it.',
  tokenSuspendedCreatorLeft: 'This API token is suspended: the person who created it is no longer a member of this tenant. A tenant admin can re-issue it.',
  tokenSuspendedCreatorDemoted:
    'This API token is suspended: the person who created it no longer holds its role in this tenant. A tenant admin can re-issue it.',
  tokenLimitReached: `This tenant has ${MAX_ACTIVE_API_TOKENS} API tokens in use, the most it can have. Revoke one it no longer needs first.`,
  tokenCreated: 'API token created. Copy the secret now: it is not shown again.',
  tokenRevoked: 'API token revoked',
  failedLoadTokens: 'Failed to load API tokens',
  failedRevokeToken: 'Failed to revoke the API token',
  peopleOnly:
    'An API token cannot manage people or access (users, invitations, memberships, service roles, embedding origins, API tokens, webhooks): a person signed in with the right to do so can',
  webhookUrlRequired: 'A URL and at least one event are required',
  webhookUrlInvalid:
    'The URL must be an https:// address (a test server started with WEBHOOK_ALLOW_PRIVATE_TARGETS=true also takes http:// to this machine, such as http://127.0.0.1)',
  webhookUrlPrivate:
    'The URL points at a private, loopback or link-local address, which webhooks may not call (a test server started with WEBHOOK_ALLOW_PRIVATE_TARGETS=true allows private and loopback ones)',
  webhookNotFound: 'Webhook not found',
  deliveryNotFound: 'Delivery not found',
  webhookCreated: 'Webhook created. Copy the signing secret now: it is not shown again.',
  webhookDeleted: 'Webhook deleted',
  webhookDisabledFailing: 'Disabled after failing for a day',
  enableBeforeSending: 'Enable the webhook before sending again',
  failedTestEvent: 'Failed to send the test event',
} as const;

export const MAX_TOKEN_NAME_LENGTH = 100;
export const MAX_TOKEN_SERVICES = 100;
export const MAX_WEBHOOK_URL_LENGTH = 2000;

/** The events a webhook can subscribe to, dotted (docs/api.md). */
export const WEBHOOK_EVENTS = [
  'service.created',
  'service.updated',
  'service.archived',
  'service.unarchived',
  'service.moved',
  'service.deleted',
  'service.published',
  'service.unpublished',
  'catalog.changed',
  'availability.changed',
  'snapshot.taken',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const WEBHOOK_EVENT_LABELS: Record<WebhookEvent, string> = {
  'service.created': 'Service created',
  'service.updated': 'Service details updated',
  'service.archived': 'Service archived',
  'service.unarchived': 'Service unarchived',
  'service.moved': 'Service moved to another tenant',
  'service.deleted': 'Service deleted',
  'service.published': 'Service published',
  'service.unpublished': 'Service unpublished',
  'catalog.changed': 'Catalog changed (categories, aspects)',
  'availability.changed': 'Availability changed',
  'snapshot.taken': 'Snapshot taken',
};

const M = INTEGRATION_MESSAGES;

/** POST /api/api-tokens. */
export const createApiTokenSchema = z.object({
  name: requiredString(M.tokenNameRequired, MAX_TOKEN_NAME_LENGTH),
  role: z.enum(ROLES, { error: M.tokenNameRequired }),
  serviceIds: z
    .array(z.uuid({ error: 'Each service id must be a valid id' }), { error: 'serviceIds must be a list of service ids' })
    .max(MAX_TOKEN_SERVICES, `At most ${MAX_TOKEN_SERVICES} services`)
    .transform((ids) => [...new Set(ids)])
    .nullish(),
  expiresAt: z.iso
    .datetime({ offset: true, error: 'expiresAt must be a date and time (ISO 8601)' })
    .nullish()
    .refine((v) => !v || Date.parse(v) > Date.now(), M.tokenExpiryInPast),
});
export type CreateApiTokenInput = z.infer<typeof createApiTokenSchema>;

const webhookUrl = requiredString(M.webhookUrlRequired, MAX_WEBHOOK_URL_LENGTH).refine((v) => {
  try {
    const url = new URL(v);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}, M.webhookUrlInvalid);

const webhookEvents = z
  .array(z.enum(WEBHOOK_EVENTS, { error: 'Unknown event' }), { error: M.webhookUrlRequired })
  .min(1, M.webhookUrlRequired)
  .transform((events) => [...new Set(events)]);

/** POST /api/webhooks. */
export const createWebhookSchema = z.object({
  url: webhookUrl,
  events: webhookEvents,
  role: z.enum(ROLES, { error: 'Select a role' }).default('reader'),
});
export type CreateWebhookInput = z.infer<typeof createWebhookSchema>;

/** PUT /api/webhooks/{id}: any of the fields; `enabled: true` starts a disabled endpoint again; `rotateSecret` answers a new secret. */
export const updateWebhookSchema = z.object({
  url: webhookUrl.optional(),
  events: webhookEvents.optional(),
  role: z.enum(ROLES, { error: 'Select a role' }).optional(),
  enabled: z.boolean({ error: 'enabled must be true or false' }).optional(),
  rotateSecret: z.boolean({ error: 'rotateSecret must be true or false' }).optional(),
});
export type UpdateWebhookInput = z.infer<typeof updateWebhookSchema>;

export interface ApiTokenView {
  id: string;
  name: string;
  role: (typeof ROLES)[number];
  service_ids: string[] | null;
  hint: string;
  expires_at: string | null;
  last_used_at: string | null;
  created_at: string;
  tenant_id: string;
  /** Why it answers 401 although not revoked (its creator's rights no longer cover its role); null while it works. */
  suspended_reason: string | null;
}

/** A token as the Super Admin Panel lists it: with its tenant's name, its services' names and when it was revoked. */
export interface AdminApiTokenView extends ApiTokenView {
  tenant_name: string;
  /** The names of the services it is limited to that are still its tenant's, by name; null: every service. */
  service_names: string[] | null;
  revoked_at: string | null;
}

export interface WebhookView {
  id: string;
  url: string;
  events: WebhookEvent[];
  role: (typeof ROLES)[number];
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: string;
}

export interface WebhookDeliveryView {
  id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'sending' | 'succeeded' | 'failed';
  attempts: number;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  created_at: string;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  /** Every attempt, oldest first. */
  attempt_log: WebhookDeliveryAttempt[];
}

/** One attempt of a delivery: when, the answer's status or the generic error, how long it took. */
export interface WebhookDeliveryAttempt {
  at: string;
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
}

/** The answers' shapes, as documented in the OpenAPI document (server/openapi.ts) and checked against real answers in the tests. */
const isoDate = z.string();
export const apiTokenViewSchema = z.object({
  id: z.uuid(),
  tenant_id: z.uuid(),
  name: z.string(),
  role: z.enum(ROLES),
  service_ids: z.array(z.uuid()).nullable(),
  hint: z.string(),
  expires_at: isoDate.nullable(),
  last_used_at: isoDate.nullable(),
  created_at: isoDate,
  suspended_reason: z
    .string()
    .nullable()
    .describe("Why the token answers 401 although not revoked: its creator's rights in the tenant no longer cover its role (re-issue it); null when it works"),
});
export const adminApiTokenViewSchema = apiTokenViewSchema.extend({
  tenant_name: z.string(),
  service_names: z.array(z.string()).nullable(),
  revoked_at: isoDate.nullable(),
});
export const webhookViewSchema = z.object({
  id: z.uuid(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENTS)),
  role: z.enum(ROLES),
  enabled: z.boolean(),
  disabled_reason: z.string().nullable(),
  failing_since: isoDate.nullable(),
  created_at: isoDate,
});
/** What a test event's one attempt gave (POST /api/webhooks/{id}/test); it is not in the delivery log. */
export const webhookTestResultSchema = z.object({
  result: z.object({
    ok: z.boolean().describe('The endpoint answered 2xx'),
    status: z.number().int().nullable().describe('Its HTTP status; null when it did not answer'),
    duration_ms: z.number().int(),
    error: z.string().nullable(),
  }),
});

export type WebhookTestResultView = z.infer<typeof webhookTestResultSchema>;

export const webhookDeliveryViewSchema = z.object({
  id: z.uuid(),
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(['pending', 'sending', 'succeeded', 'failed']),
  attempts: z.number().int(),
  response_status: z.number().int().nullable(),
  duration_ms: z.number().int().nullable(),
  error: z.string().nullable(),
  created_at: isoDate,
  last_attempt_at: isoDate.nullable(),
  next_attempt_at: isoDate.nullable(),
  attempt_log: z
    .array(
      z.object({
        at: isoDate,
        response_status: z.number().int().nullable(),
        error: z.string().nullable(),
        duration_ms: z.number().int().nullable(),
      }),
    )
    .describe('Every attempt, oldest first: when, the status answered or why it failed, how long it took'),
});

/** GET /api/webhooks/:id/deliveries: newest first. */
export const webhookDeliveryPageSchema = z.object({
  deliveries: z.array(webhookDeliveryViewSchema),
  next_before: z.number().int().nullable().describe('The cursor of the next (older) page (`before`), null when this page is not full'),
});

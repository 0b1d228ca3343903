import { sql } from 'drizzle-orm';
import { bigserial, boolean, index, integer, jsonb, pgTable, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { tenants, users } from './tenancy';

/** One attempt of a delivery, as its log keeps it. */
export interface DeliveryAttempt {
  at: string;
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
}

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * An integration's credential (docs/decisions/0130-api-tokens.md): it acts in one tenant with a
 * tenant role, optionally only on some services. The secret is never stored: only its SHA-256
 * hash, and its first characters to recognise it in a list.
 */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    role: text('role', { enum: ['reader', 'editor', 'admin'] }).notNull(),
    /** The services the token is limited to; null: every service of the tenant. */
    serviceIds: jsonb('service_ids').$type<string[]>(),
    /** SHA-256 of the whole secret, hex. */
    secretHash: text('secret_hash').notNull(),
    /** The secret's first characters (prefix included), shown in lists. */
    hint: text('hint').notNull(),
    expiresAt: at('expires_at'),
    lastUsedAt: at('last_used_at'),
    revokedAt: at('revoked_at'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [unique('api_tokens_secret_hash_unique').on(t.secretHash), index('api_tokens_tenant_idx').on(t.tenantId, t.createdAt)],
);

/**
 * A tenant's webhook endpoint (docs/decisions/0131-webhooks.md): where to send which events, with
 * which role's view of the content, signed with its secret (and the previous one for a day after a
 * rotation).
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    events: jsonb('events').$type<string[]>().notNull(),
    role: text('role', { enum: ['reader', 'editor', 'admin'] })
      .notNull()
      .default('reader'),
    secret: text('secret').notNull(),
    previousSecret: text('previous_secret'),
    previousSecretUntil: at('previous_secret_until'),
    enabled: boolean('enabled').notNull().default(true),
    /** Why it was disabled: 'failing' when the server stopped it after a day of failures. */
    disabledReason: text('disabled_reason'),
    /** The first failure of the current run of failures; cleared by a success. */
    failingSince: at('failing_since'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [unique('webhook_endpoints_tenant_id_unique').on(t.tenantId, t.id), index('webhook_endpoints_tenant_idx').on(t.tenantId)],
);

/**
 * The outbox: one row per event, written by the database's triggers in the transaction of the change
 * itself (migration 0021) only when an enabled endpoint of its tenant takes its type. It is as lean
 * as a row can be (no foreign key, one index), because every write to the catalog pays for it: the
 * sender moves its rows, in `seq` order, to a delivery per endpoint before each claim
 * (docs/decisions/0138-webhook-outbox.md).
 */
export const webhookEvents = pgTable('webhook_events', {
  seq: bigserial('seq', { mode: 'number' }).primaryKey(),
  tenantId: uuid('tenant_id').notNull(),
  /** The Standard Webhooks message id, shared by every endpoint told. */
  eventId: text('event_id').notNull(),
  eventType: text('event_type').notNull(),
  serviceKey: text('service_key').notNull().default(''),
  data: jsonb('data').$type<Record<string, unknown>>().notNull(),
  createdAt: at('created_at').notNull().defaultNow(),
});

/**
 * One event for one endpoint: the queue and the delivery log at once. Rows are made from the outbox
 * (`webhook_events`) by the sender, delivered in `seq` order per endpoint and service.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    /** The Standard Webhooks message id: the same on every attempt. */
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    /** The service the event is about ('' for none): deliveries of one service go in order. */
    serviceKey: text('service_key').notNull().default(''),
    /** Ids and versions of what changed; content is added when sent, with the endpoint's rights. */
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    status: text('status', { enum: ['pending', 'sending', 'succeeded', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: at('next_attempt_at').notNull().defaultNow(),
    leaseUntil: at('lease_until'),
    responseStatus: integer('response_status'),
    durationMs: integer('duration_ms'),
    error: text('error'),
    createdAt: at('created_at').notNull().defaultNow(),
    lastAttemptAt: at('last_attempt_at'),
    /** Every attempt, oldest first: when, the answer's status or the delivery log's error, how long it took. */
    attemptLog: jsonb('attempt_log').$type<DeliveryAttempt[]>().notNull().default([]),
  },
  (t) => [
    index('webhook_deliveries_due_idx').on(t.status, t.nextAttemptAt),
    index('webhook_deliveries_order_idx').on(t.endpointId, t.serviceKey, t.seq),
    // The delivery log, newest first, and its pruning, oldest first (WEBHOOK_LOG_DAYS).
    index('webhook_deliveries_log_seq_idx').on(t.endpointId, t.seq),
  ],
);

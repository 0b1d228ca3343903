import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../client';
import { apiTokens, services, tenants, webhookDeliveries, webhookEndpoints } from '../schema';

export type ApiTokenRow = typeof apiTokens.$inferSelect;
export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

/** A token that is neither revoked nor expired, by the hash of its secret, with its tenant's state. */
export async function findLiveApiToken(db: Executor, secretHash: string): Promise<(ApiTokenRow & { tenantArchived: boolean }) | undefined> {
  const [row] = await db
    .select({ token: apiTokens, tenantArchived: tenants.archived })
    .from(apiTokens)
    .innerJoin(tenants, eq(tenants.id, apiTokens.tenantId))
    .where(and(eq(apiTokens.secretHash, secretHash), isNull(apiTokens.revokedAt)))
    .limit(1);
  if (!row) return undefined;
  if (row.token.expiresAt && row.token.expiresAt.getTime() <= Date.now()) return undefined;
  return { ...row.token, tenantArchived: row.tenantArchived };
}

export async function insertApiToken(db: Executor, values: typeof apiTokens.$inferInsert): Promise<ApiTokenRow> {
  const [row] = await db.insert(apiTokens).values(values).returning();
  return row!;
}

/** The tenant's tokens not revoked, newest first (null tenant: every tenant's, for super admins). */
export async function listApiTokens(db: Executor, tenantId: string | null): Promise<ApiTokenRow[]> {
  return db
    .select()
    .from(apiTokens)
    .where(and(isNull(apiTokens.revokedAt), tenantId ? eq(apiTokens.tenantId, tenantId) : undefined))
    .orderBy(desc(apiTokens.createdAt), apiTokens.id)
    .limit(1000);
}

/** Revokes a token of the tenant (null: any tenant's); answers the token, undefined when there is none. */
export async function revokeApiToken(db: Executor, tenantId: string | null, id: string): Promise<ApiTokenRow | undefined> {
  const [row] = await db
    .update(apiTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiTokens.id, id), isNull(apiTokens.revokedAt), tenantId ? eq(apiTokens.tenantId, tenantId) : undefined))
    .returning();
  return row;
}

/** Records a use at most once a minute per token, so that calls do not each write. */
export async function touchApiToken(db: Executor, id: string): Promise<void> {
  await db
    .update(apiTokens)
    .set({ lastUsedAt: new Date() })
    .where(and(eq(apiTokens.id, id), sql`(${apiTokens.lastUsedAt} is null or ${apiTokens.lastUsedAt} < now() - interval '1 minute')`));
}

/** How many of the ids are services of the tenant. */
export async function countTenantServices(db: Executor, tenantId: string, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(services)
    .where(and(eq(services.tenantId, tenantId), inArray(services.id, [...ids])));
  return row?.n ?? 0;
}

export async function listWebhooks(db: Executor, tenantId: string): Promise<WebhookEndpointRow[]> {
  return db.select().from(webhookEndpoints).where(eq(webhookEndpoints.tenantId, tenantId)).orderBy(webhookEndpoints.createdAt, webhookEndpoints.id).limit(1000);
}

export async function findWebhook(db: Executor, tenantId: string, id: string): Promise<WebhookEndpointRow | undefined> {
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.tenantId, tenantId), eq(webhookEndpoints.id, id)))
    .limit(1);
  return row;
}

/** The delivery log of an endpoint, newest first. */
export async function listDeliveries(db: Executor, tenantId: string, endpointId: string, limit = 100): Promise<WebhookDeliveryRow[]> {
  return db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.tenantId, tenantId), eq(webhookDeliveries.endpointId, endpointId)))
    .orderBy(desc(webhookDeliveries.seq))
    .limit(limit);
}

export async function insertWebhook(db: Executor, values: typeof webhookEndpoints.$inferInsert): Promise<WebhookEndpointRow> {
  const [row] = await db.insert(webhookEndpoints).values(values).returning();
  return row!;
}

export async function updateWebhook(
  db: Executor,
  tenantId: string,
  id: string,
  changes: Partial<typeof webhookEndpoints.$inferInsert>,
): Promise<WebhookEndpointRow | undefined> {
  const [row] = await db
    .update(webhookEndpoints)
    .set(changes)
    .where(and(eq(webhookEndpoints.tenantId, tenantId), eq(webhookEndpoints.id, id)))
    .returning();
  return row;
}

export async function deleteWebhook(db: Executor, tenantId: string, id: string): Promise<WebhookEndpointRow | undefined> {
  const [row] = await db
    .delete(webhookEndpoints)
    .where(and(eq(webhookEndpoints.tenantId, tenantId), eq(webhookEndpoints.id, id)))
    .returning();
  return row;
}

/** Queues a delivery's event once more for its endpoint ("send again"): same event id, new place in the order. */
export async function requeueDelivery(db: Executor, tenantId: string, endpointId: string, deliveryId: string): Promise<WebhookDeliveryRow | undefined> {
  const [original] = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.tenantId, tenantId), eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.id, deliveryId)));
  if (!original) return undefined;
  const [queued] = await db
    .insert(webhookDeliveries)
    .values({ tenantId, endpointId, eventId: original.eventId, eventType: original.eventType, serviceKey: original.serviceKey, data: original.data })
    .returning();
  return queued;
}

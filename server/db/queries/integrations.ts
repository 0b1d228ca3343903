import { and, desc, eq, inArray, isNull, lt, sql, type SQL } from 'drizzle-orm';
import type { Role } from '../../../common/roles';
import type { Executor } from '../client';
import { MAX_ACTIVE_API_TOKENS } from '../../../common/schemas/integrations';
import { apiTokens, services, tenants, webhookDeliveries, webhookEndpoints } from '../schema';
import { likeText } from './admin';
import { visibleService } from './services';

export type ApiTokenRow = typeof apiTokens.$inferSelect;
export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

/** What an API token's creator holds now in the token's tenant. */
export interface TokenCreator {
  /** False once the account is deleted. */
  exists: boolean;
  superAdmin: boolean;
  /** Their role in the token's tenant; null when they are no longer a member there. */
  role: Role | null;
}

/** A token with what its creator holds now in its tenant (policies decide whether that suspends it). */
export interface ApiTokenWithCreator extends ApiTokenRow {
  creator: TokenCreator;
}

/** What a token's creator holds now in the token's tenant: read with the token, in the same statement. */
const creatorColumns = {
  creatorSuperAdmin: sql<boolean | null>`(select c.super_admin from users c where c.id = ${apiTokens.createdBy})`,
  creatorRole: sql<Role | null>`(select m.role from tenant_memberships m where m.user_id = ${apiTokens.createdBy} and m.tenant_id = ${apiTokens.tenantId})`,
};

const withCreator = <T extends { token: ApiTokenRow; creatorSuperAdmin: boolean | null; creatorRole: Role | null }>(r: T): ApiTokenWithCreator => ({
  ...r.token,
  creator: { exists: r.creatorSuperAdmin !== null, superAdmin: Boolean(r.creatorSuperAdmin), role: r.creatorRole },
});

/** A token that is neither revoked nor expired, by the hash of its secret, with its tenant's state and its creator's rights. */
export async function findLiveApiToken(db: Executor, secretHash: string): Promise<(ApiTokenWithCreator & { tenantArchived: boolean }) | undefined> {
  const [row] = await db
    .select({ token: apiTokens, tenantArchived: tenants.archived, ...creatorColumns })
    .from(apiTokens)
    .innerJoin(tenants, eq(tenants.id, apiTokens.tenantId))
    .where(and(eq(apiTokens.secretHash, secretHash), isNull(apiTokens.revokedAt)))
    .limit(1);
  if (!row) return undefined;
  if (row.token.expiresAt && row.token.expiresAt.getTime() <= Date.now()) return undefined;
  return { ...withCreator(row), tenantArchived: row.tenantArchived };
}

/** One token of the tenant in use, with its creator's rights; another tenant's or a revoked one is not found. */
export async function findTenantApiToken(db: Executor, tenantId: string, id: string): Promise<ApiTokenWithCreator | undefined> {
  const [row] = await db
    .select({ token: apiTokens, ...creatorColumns })
    .from(apiTokens)
    .where(and(eq(apiTokens.tenantId, tenantId), eq(apiTokens.id, id), isNull(apiTokens.revokedAt)))
    .limit(1);
  return row ? withCreator(row) : undefined;
}

/** A token re-issued under another person's name: a new secret, the old one refused from now on. */
export async function reissueApiToken(
  db: Executor,
  tenantId: string,
  id: string,
  secret: { hash: string; hint: string },
  createdBy: string,
): Promise<ApiTokenRow | undefined> {
  const [row] = await db
    .update(apiTokens)
    .set({ secretHash: secret.hash, hint: secret.hint, createdBy, lastUsedAt: null })
    .where(and(eq(apiTokens.tenantId, tenantId), eq(apiTokens.id, id), isNull(apiTokens.revokedAt)))
    .returning();
  return row;
}

export async function insertApiToken(db: Executor, values: typeof apiTokens.$inferInsert): Promise<ApiTokenRow> {
  const [row] = await db.insert(apiTokens).values(values).returning();
  return row!;
}

/** The tenant's tokens not revoked, newest first. */
/** A tenant's tokens in use, newest first: at most MAX_ACTIVE_API_TOKENS, as creating more is refused. */
export async function listApiTokens(db: Executor, tenantId: string): Promise<ApiTokenWithCreator[]> {
  const rows = await db
    .select({ token: apiTokens, ...creatorColumns })
    .from(apiTokens)
    .where(and(isNull(apiTokens.revokedAt), eq(apiTokens.tenantId, tenantId)))
    .orderBy(desc(apiTokens.createdAt), apiTokens.id)
    .limit(MAX_ACTIVE_API_TOKENS);
  return rows.map(withCreator);
}

/**
 * How many tokens a tenant has in use, counted to `cap` at most. In a transaction, it holds the
 * tenant's token lock until the end: two creations at once count one after the other.
 */
export async function countActiveApiTokens(db: Executor, tenantId: string, cap: number): Promise<number> {
  await db.execute(sql`select pg_advisory_xact_lock(hashtext(${`api_tokens:${tenantId}`}))`);
  const rows = await db
    .select({ id: apiTokens.id })
    .from(apiTokens)
    .where(and(isNull(apiTokens.revokedAt), eq(apiTokens.tenantId, tenantId)))
    .limit(cap);
  return rows.length;
}

/** A token of the Super Admin Panel's list, with what the panel shows of its tenant and services. */
export interface ApiTokenListing extends ApiTokenWithCreator {
  tenantName: string;
  /** Names of the services it is limited to that are still its tenant's, by name; null: every service. */
  serviceNames: string[] | null;
  /** Its place in the order: the creation time in microseconds since 1970, as text (the cursor's first part). */
  createdKey: string;
}

/**
 * Every tenant's tokens, newest first (creation time, then id, both descending): a page of them
 * after a (time, id) key, searched on the token's or the tenant's name; revoked ones only when asked.
 */
export async function listAllApiTokens(
  db: Executor,
  opts: { search?: string; after?: [micros: string, id: string]; limit: number; includeRevoked: boolean },
): Promise<ApiTokenListing[]> {
  const where: SQL[] = [];
  if (!opts.includeRevoked) where.push(isNull(apiTokens.revokedAt));
  if (opts.search) where.push(sql`(${apiTokens.name} ilike ${likeText(opts.search)} or ${tenants.name} ilike ${likeText(opts.search)})`);
  // The key is compared as the database keeps it (microseconds), never through a JavaScript Date (milliseconds).
  if (opts.after)
    where.push(
      sql`(${apiTokens.createdAt}, ${apiTokens.id}) < (timestamptz 'epoch' + ${opts.after[0]}::bigint * interval '1 microsecond', ${opts.after[1]}::uuid)`,
    );
  const rows = await db
    .select({
      token: apiTokens,
      ...creatorColumns,
      tenantName: tenants.name,
      // A service moved to another tenant or deleted is no longer within the token's reach: left out.
      serviceNames: sql<string[] | null>`case when ${apiTokens.serviceIds} is null then null else coalesce((
        select json_agg(s.name order by s.name) from ${services} s
        where s.tenant_id = ${apiTokens.tenantId} and not s.importing and s.id in (select (jsonb_array_elements_text(${apiTokens.serviceIds}))::uuid)
      ), '[]'::json) end`,
      createdKey: sql<string>`(extract(epoch from ${apiTokens.createdAt}) * 1000000)::bigint::text`,
    })
    .from(apiTokens)
    .innerJoin(tenants, eq(tenants.id, apiTokens.tenantId))
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(apiTokens.createdAt), desc(apiTokens.id))
    .limit(opts.limit);
  return rows.map((r) => ({ ...withCreator(r), tenantName: r.tenantName, serviceNames: r.serviceNames, createdKey: r.createdKey }));
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
    .where(and(visibleService(tenantId), inArray(services.id, [...ids])));
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

/** A page of an endpoint's delivery log, newest first: those queued before `before` (a delivery's `seq`), when given. */
export async function listDeliveries(
  db: Executor,
  tenantId: string,
  endpointId: string,
  page: { before?: number; limit: number },
): Promise<WebhookDeliveryRow[]> {
  return db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.tenantId, tenantId),
        eq(webhookDeliveries.endpointId, endpointId),
        page.before === undefined ? undefined : lt(webhookDeliveries.seq, page.before),
      ),
    )
    .orderBy(desc(webhookDeliveries.seq))
    .limit(page.limit);
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

/**
 * Taken by a transaction that turns the outbox into deliveries or claims them: the processes take
 * turns, so that deliveries are numbered and claimed in one order.
 */
export const takeClaimLock = (tx: Executor) => tx.execute(sql`select pg_advisory_xact_lock(hashtext('webhook_deliveries:claim'))`);

/** Outbox rows turned into deliveries by one statement. */
const FAN_OUT_BATCH = 5000;

/**
 * Turns the outbox's events (`webhook_events`, written by the triggers) into a delivery for each
 * enabled endpoint of the event's tenant that takes its type and existed when it happened, oldest
 * first, so that deliveries keep the events' order; events no endpoint takes are dropped. The caller
 * holds the claim's lock (`takeClaimLock`).
 * Answers how many events were taken.
 */
export async function fanOutEvents(db: Executor): Promise<number> {
  let taken = 0;
  for (;;) {
    const res = await db.execute<{ n: number }>(sql`
      WITH moved AS (
        DELETE FROM webhook_events
         WHERE seq IN (SELECT seq FROM webhook_events ORDER BY seq LIMIT ${FAN_OUT_BATCH})
        RETURNING *),
      queued AS (
        INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_id, event_type, service_key, data, created_at)
        SELECT m.tenant_id, w.id, m.event_id, m.event_type, m.service_key, m.data, m.created_at
          FROM moved m
          JOIN webhook_endpoints w ON w.tenant_id = m.tenant_id AND w.enabled AND w.events ? m.event_type AND w.created_at <= m.created_at
         ORDER BY m.seq, w.id
        RETURNING 1)
      SELECT (SELECT count(*) FROM moved)::int AS n`);
    const n = (res as unknown as { rows: { n: number }[] }).rows[0]!.n;
    taken += n;
    if (n < FAN_OUT_BATCH) return taken;
  }
}

/** `fanOutEvents` in a transaction of its own, in turn with the claims of every process. */
export function fanOutEventsInTurn(db: Executor): Promise<number> {
  return db.transaction(async (tx) => {
    await takeClaimLock(tx);
    return fanOutEvents(tx);
  });
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

/** Deliveries looked at by one statement of the delivery log's pruning. */
const PRUNE_BATCH = 1000;

/**
 * Removes an endpoint's finished deliveries (sent, or failed for good) queued over `days` ago,
 * walking its log oldest first a thousand at a time (a short statement each, so other requests go
 * between them on the embedded database) until it reaches one queued since. Deliveries still
 * waiting are kept whatever their age: the order of their service depends on them. Answers how
 * many were removed.
 */
export async function pruneDeliveryLog(db: Executor, endpointId: string, days: number): Promise<number> {
  let after = 0;
  let removed = 0;
  for (;;) {
    type Row = { last: number | null; looked: number; all_old: boolean | null; removed: number };
    const res = await db.execute<Row>(sql`
      WITH batch AS (
        SELECT id, seq, status, created_at < now() - make_interval(days => ${days}) AS old
          FROM webhook_deliveries
         WHERE endpoint_id = ${endpointId}::uuid AND seq > ${after}
         ORDER BY seq
         LIMIT ${PRUNE_BATCH}
      ), gone AS (
        DELETE FROM webhook_deliveries d USING batch b
         WHERE d.id = b.id AND b.old AND b.status IN ('succeeded', 'failed')
        RETURNING 1
      )
      SELECT max(seq)::float8 AS last, count(*)::int AS looked, bool_and(old) AS all_old, (SELECT count(*)::int FROM gone) AS removed FROM batch`);
    const row = (res as unknown as { rows: Row[] }).rows[0]!;
    removed += row.removed;
    if (row.looked < PRUNE_BATCH || !row.all_old || row.last === null) return removed;
    after = row.last;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

import type { FastifyBaseLogger } from 'fastify';
import { eq, inArray, sql } from 'drizzle-orm';
import type { Config } from '../config';
import type { Database } from '../db';
import { webhookDeliveries, webhookEndpoints } from '../db/schema';
import {
  fanOutEvents,
  fanOutEventsInTurn,
  pruneDeliveryLog,
  takeClaimLock,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
} from '../db/queries/integrations';
import { noteEndpoints } from './endpointHealth';
import { eventContents, withoutContent } from './eventContent';
import { sendWebhook, type SendResult } from './send';
import { signDelivery } from './signing';
import { StampedCache } from '../db/writeStamps';

/** Seconds after each failed attempt before the next (Standard Webhooks' schedule): the last is about 27 hours after the first. */
export const RETRY_DELAYS_S = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600];
/** How long a claimed delivery is held before another process may take it again. */
const LEASE_S = 60;
/** Deliveries claimed at once. */
const BATCH = 50;
const POLL_MS = 1000;
/**
 * The sender starts its round once the writes have been quiet this long: the writes of that time
 * share one round (one claim, one read of what they carry, one write of the outcomes), so a stream
 * of writes costs the database a few statements per round rather than per write.
 */
const GATHER_MS = 100;
/**
 * While writes keep coming, a round starts at the latest this long after the first of them: a busy
 * server sends a second's events in one round, whose few statements then seldom meet a write.
 */
const MAX_GATHER_MS = 1000;
/** The longest body sent: larger events list fewer rows (the triggers keep 100) and say how many. */
const MAX_BODY_BYTES = 256 * 1024;
/** How often a process removes finished deliveries older than WEBHOOK_LOG_DAYS from the delivery logs. */
const PRUNE_EVERY_MS = 3600 * 1000;
/** Outbox rows taken (events turned into deliveries or dropped) between two vacuums of it. */
export const OUTBOX_VACUUM_EVERY = 10_000;

/** The tables whose writes may have queued deliveries (migration 0011's triggers). */
const EVENT_TABLES = new Set(['services', 'categories', 'aspects', 'availabilities', 'snapshots']);

/** An attempt's outcome, as it is written to its delivery. */
interface Outcome {
  delivery: WebhookDeliveryRow;
  endpoint?: WebhookEndpointRow;
  /** Whether a request went out (an endpoint's failing state follows those only). */
  sent?: boolean;
  /** Not attempted: an earlier delivery of its service failed in the same round, so it goes back to wait, its attempt not counted. */
  released?: boolean;
  status: 'pending' | 'succeeded' | 'failed';
  responseStatus: number | null;
  durationMs: number | null;
  error: string | null;
  /** When a failed attempt is tried again; null when it is not. */
  nextAttemptAt: Date | null;
}

/** A claimed delivery not attempted, back to wait for the earlier one of its service. */
function released(delivery: WebhookDeliveryRow): Outcome {
  return { delivery, status: 'pending', responseStatus: null, durationMs: null, error: null, nextAttemptAt: null, released: true };
}

/** A failure is tried again on the schedule, until it runs out. */
function outcome(delivery: WebhookDeliveryRow, result: SendResult, final: boolean): Outcome {
  const delay = RETRY_DELAYS_S[delivery.attempts - 1];
  const status = result.ok ? 'succeeded' : final || delay === undefined ? 'failed' : 'pending';
  return {
    delivery,
    status,
    responseStatus: result.status,
    durationMs: result.durationMs,
    error: result.error ?? null,
    nextAttemptAt: status === 'pending' ? new Date(Date.now() + delay! * 1000) : null,
  };
}

/**
 * Sends the queued deliveries (docs/decisions/0132-webhook-delivery.md): claims due ones under a
 * lease (so several processes share the queue and a crashed one's claims come back), never one
 * whose endpoint has an earlier delivery for the same service waiting for a retry or being sent
 * (in order per service), signs, sends, records, and schedules retries. A round sends the
 * deliveries of one endpoint and service one after the other, and those of different ones at once.
 */
export class WebhookDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private gathering: NodeJS.Timeout | null = null;
  /** When the writes the next round gathers began, and when the last of them came. */
  private gatherStarted = 0;
  private lastWrite = 0;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private started = false;
  private unfollow: (() => void) | null = null;
  /** When this process last pruned the delivery logs (0: not yet). */
  private prunedAt = 0;
  private pruning: Promise<number> | null = null;
  /** Outbox rows taken since it was last vacuumed. */
  private movedSinceVacuum = 0;
  /** Whether the outbox was emptied since no endpoint is enabled. */
  private outboxEmptied = false;
  /** Deliveries sent since start, for figures. */
  sent = 0;
  /** Whether any endpoint is enabled, read again when any process writes the endpoints: without one, a round costs nothing. */
  private readonly anyEnabled: StampedCache<boolean>;

  constructor(
    private readonly database: Database,
    private readonly config: Config,
    private readonly log: () => FastifyBaseLogger,
  ) {
    this.anyEnabled = new StampedCache<boolean>(['webhook_endpoints'], config.CACHE_MAX_AGE_MS, 1);
  }

  start(): void {
    this.started = true;
    this.unfollow = this.database.changes.follow((change) => {
      if (EVENT_TABLES.has(change.table) || change.table === '*') this.wakeSoon();
    });
    // The poll finds retries come due and leases run out; while writes are being gathered, their
    // round comes soon anyway, and a poll's round then would land among the writes.
    const tick = () => {
      if (!this.gathering) this.wake();
      if (performance.now() - this.prunedAt >= PRUNE_EVERY_MS || this.prunedAt === 0) {
        this.prunedAt = performance.now();
        void this.prune().catch((err: unknown) => this.log().error({ err }, 'webhook delivery log pruning failed'));
      }
      this.timer = setTimeout(tick, POLL_MS);
      this.timer.unref();
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unfollow?.();
    if (this.timer) clearTimeout(this.timer);
    if (this.gathering) clearTimeout(this.gathering);
    await this.running;
    await this.pruning?.catch(() => undefined);
  }

  /**
   * Removes finished deliveries queued over WEBHOOK_LOG_DAYS ago from every endpoint's delivery
   * log (at start and hourly), then vacuums the table; deliveries still waiting are kept. Answers
   * how many were removed.
   */
  prune(): Promise<number> {
    this.pruning ??= (async () => {
      const endpoints = await this.database.db.select({ id: webhookEndpoints.id }).from(webhookEndpoints);
      let removed = 0;
      for (const { id } of endpoints) {
        if (this.stopped) break;
        removed += await pruneDeliveryLog(this.database.db, id, this.config.WEBHOOK_LOG_DAYS);
      }
      // The space of the rows removed is used again only once the table is vacuumed: the embedded
      // database never does it by itself (it has no autovacuum), and PostgreSQL's may come late.
      if (removed > 0 && !this.stopped) await this.database.exclusive((owner) => owner.execute(sql`VACUUM webhook_deliveries`));
      return removed;
    })().finally(() => {
      this.pruning = null;
    });
    return this.pruning;
  }

  /** Looks for due deliveries once the writes have been quiet for GATHER_MS, or MAX_GATHER_MS after the first. */
  private wakeSoon(): void {
    if (!this.started || this.stopped) return;
    this.lastWrite = performance.now();
    if (this.gathering) return;
    this.gatherStarted = this.lastWrite;
    this.gatherUntilQuiet(GATHER_MS);
  }

  private gatherUntilQuiet(delay: number): void {
    this.gathering = setTimeout(() => {
      const now = performance.now();
      const quietAt = this.lastWrite + GATHER_MS;
      const latest = this.gatherStarted + MAX_GATHER_MS;
      if (now < quietAt && now < latest) return this.gatherUntilQuiet(Math.min(quietAt, latest) - now);
      this.gathering = null;
      this.wake();
    }, delay);
    this.gathering.unref();
  }

  /** Looks for due deliveries now (again after the current round, if one is running). */
  wake(): void {
    if (!this.started || this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .then(() => undefined)
      .catch((err: unknown) => this.log().error({ err }, 'webhook delivery round failed'))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /**
   * Sends every delivery due now, in rounds of a claim each while the claims come back full;
   * answers how many were attempted. A round reads its deliveries' endpoints in one statement, what they carry in a few
   * per tenant (the services, aspects, values, categories and snapshots they name) and writes every
   * outcome in one more, however many deliveries it holds.
   */
  async drain(): Promise<number> {
    const db = this.database.db;
    const enabled = await this.anyEnabled.get(
      'any',
      async () => (await db.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(eq(webhookEndpoints.enabled, true)).limit(1)).length > 0,
    );
    if (!enabled) {
      // The events queued before the last endpoint was disabled or removed have nowhere to go:
      // the outbox is emptied once, and rounds then cost nothing until an endpoint is enabled.
      if (!this.outboxEmptied) await this.outboxMoved(await fanOutEventsInTurn(db));
      this.outboxEmptied = true;
      return 0;
    }
    this.outboxEmptied = false;
    let total = 0;
    for (;;) {
      const claimed = await this.claim();
      if (claimed.length === 0) return total;
      total += claimed.length;
      const endpointIds = [...new Set(claimed.map((d) => d.endpointId))];
      const endpoints = new Map((await db.select().from(webhookEndpoints).where(inArray(webhookEndpoints.id, endpointIds))).map((e) => [e.id, e]));
      // What each delivery carries, read for the whole round at once.
      const sendable = claimed.flatMap((delivery) => {
        const endpoint = endpoints.get(delivery.endpointId);
        return endpoint?.enabled ? [{ delivery, endpoint }] : [];
      });
      const contents = await eventContents(db, sendable);
      const contentOf = new Map(sendable.map((r, i) => [r.delivery.id, contents[i] ?? null]));
      // Each endpoint's deliveries one after the other, service by service in order, and the
      // endpoints at once: a delivery that will be tried again holds back the rest of its service,
      // and one that got no answer at all the rest of its endpoint (they would wait as long).
      // Sending one at a time per endpoint keeps a round's requests from landing on the server's
      // thread all together, where a write arriving then waits for them.
      const byEndpoint = new Map<string, WebhookDeliveryRow[]>();
      for (const d of claimed) byEndpoint.set(d.endpointId, [...(byEndpoint.get(d.endpointId) ?? []), d]);
      const outcomes = (
        await Promise.all(
          [...byEndpoint.values()].map(async (deliveries) => {
            const done: Outcome[] = [];
            const held = new Set<string>();
            let unanswered = false;
            for (const d of deliveries) {
              if (unanswered || held.has(d.serviceKey)) {
                done.push(released(d));
                continue;
              }
              const o = await this.deliver(d, endpoints.get(d.endpointId), contentOf.get(d.id) ?? null);
              done.push(o);
              if (o.status === 'pending') held.add(d.serviceKey);
              if (o.sent && o.responseStatus === null && o.status !== 'succeeded') unanswered = true;
            }
            return done;
          }),
        )
      ).flat();
      await this.record(outcomes);
      await noteEndpoints(this.database.db, outcomes, endpoints, this.log());
      // A short claim took every delivery due: those queued since wait for the next gathering.
      if (claimed.length < BATCH) return total;
    }
  }

  /**
   * Turns the outbox's events into deliveries, then claims due deliveries under a lease, and
   * answers them in order. The claims of all processes take turns (a transaction-scoped lock): a
   * delivery is claimed with every earlier one of its endpoint and service that is due, so no two
   * processes hold parts of one service's queue.
   */
  private async claim(): Promise<WebhookDeliveryRow[]> {
    let moved = 0;
    const rows = await this.database.db.transaction(async (tx) => {
      await takeClaimLock(tx);
      moved = await fanOutEvents(tx);
      return tx
        .update(webhookDeliveries)
        .set({
          status: 'sending',
          leaseUntil: sql`now() + make_interval(secs => ${LEASE_S})`,
          attempts: sql`${webhookDeliveries.attempts} + 1`,
          lastAttemptAt: sql`now()`,
        })
        .where(
          sql`${webhookDeliveries.id} IN (
            SELECT c.id FROM webhook_deliveries c
             WHERE ((c.status = 'pending' AND c.next_attempt_at <= now()) OR (c.status = 'sending' AND c.lease_until < now()))
               AND NOT EXISTS (
                 SELECT 1 FROM webhook_deliveries e
                  WHERE e.endpoint_id = c.endpoint_id AND e.service_key = c.service_key AND e.seq < c.seq
                    AND ((e.status = 'pending' AND e.next_attempt_at > now()) OR (e.status = 'sending' AND e.lease_until >= now())))
             ORDER BY c.seq
             LIMIT ${BATCH}
             FOR UPDATE)`,
        )
        .returning();
    });
    await this.outboxMoved(moved);
    return rows.sort((a, b) => a.seq - b.seq);
  }

  /**
   * Counts the outbox's rows taken, and vacuums it after every OUTBOX_VACUUM_EVERY: each write
   * with an endpoint adds a row the sender removes, and the embedded database never vacuums by
   * itself (no autovacuum), so the room and the index entries of removed rows would otherwise stay,
   * the table growing and every round's read of it slowing.
   */
  private async outboxMoved(moved: number): Promise<void> {
    this.movedSinceVacuum += moved;
    if (this.movedSinceVacuum < OUTBOX_VACUUM_EVERY || this.stopped) return;
    this.movedSinceVacuum = 0;
    await this.database.exclusive((owner) => owner.execute(sql`VACUUM webhook_events`));
  }

  /** Sends one delivery with its content (null: nothing the endpoint may see), and answers its outcome (written with the round's others). */
  private async deliver(delivery: WebhookDeliveryRow, endpoint: WebhookEndpointRow | undefined, data: Record<string, unknown> | null): Promise<Outcome> {
    if (!endpoint || !endpoint.enabled) return outcome(delivery, { ok: false, status: null, durationMs: 0, error: 'endpoint disabled' }, true);
    if (!data) {
      return {
        delivery,
        endpoint,
        status: 'succeeded',
        responseStatus: null,
        durationMs: null,
        error: 'not sent: nothing in it that the endpoint role may see',
        nextAttemptAt: null,
      };
    }
    const at = new Date();
    let body = JSON.stringify({ type: delivery.eventType, timestamp: at.toISOString(), data });
    if (Buffer.byteLength(body) > MAX_BODY_BYTES) {
      body = JSON.stringify({ type: delivery.eventType, timestamp: at.toISOString(), data: withoutContent(data) });
    }
    const headers = signDelivery(endpoint, delivery.eventId, at, body);
    const result = await sendWebhook(endpoint.url, headers, body, {
      timeoutMs: this.config.WEBHOOK_TIMEOUT_MS,
      allowPrivate: this.config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    });
    this.sent++;
    return { ...outcome(delivery, result, false), endpoint, sent: true };
  }

  /** Writes a round's outcomes in one statement, each attempt added to its delivery's list of attempts. */
  private async record(outcomes: Outcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const rows = sql.join(
      outcomes.map(
        (o) =>
          sql`(${o.delivery.id}::uuid, ${o.status}::text, ${o.responseStatus}::integer, ${o.durationMs}::integer, ${o.error}::text, ${o.nextAttemptAt?.toISOString() ?? null}::timestamptz, ${o.released === true}::boolean)`,
      ),
      sql`, `,
    );
    await this.database.db.execute(sql`
      UPDATE webhook_deliveries d
         SET status = o.status, lease_until = NULL, next_attempt_at = coalesce(o.next_attempt_at, d.next_attempt_at),
             response_status = CASE WHEN o.released THEN d.response_status ELSE o.response_status END,
             duration_ms = CASE WHEN o.released THEN d.duration_ms ELSE o.duration_ms END,
             error = CASE WHEN o.released THEN d.error ELSE o.error END,
             attempts = CASE WHEN o.released THEN d.attempts - 1 ELSE d.attempts END,
             last_attempt_at = CASE WHEN o.released AND d.attempts = 1 THEN NULL ELSE d.last_attempt_at END,
             attempt_log = CASE WHEN o.released THEN d.attempt_log ELSE d.attempt_log || jsonb_build_array(jsonb_build_object(
               'at', to_char(d.last_attempt_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'response_status', o.response_status, 'error', o.error, 'duration_ms', o.duration_ms)) END
        FROM (VALUES ${rows}) AS o(id, status, response_status, duration_ms, error, next_attempt_at, released)
       WHERE d.id = o.id`);
  }
}

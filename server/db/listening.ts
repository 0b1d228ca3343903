/**
 * How a process hears the change stream (server/db/changes.ts): each pooled connection its own
 * share of it, and on PostgreSQL one dedicated connection the shared channel.
 */
import type { Client, PoolClient } from 'pg';
import { CHANGE_CHANNEL, type ChangeFeed, selfChannel } from './changes';

/**
 * A new pooled connection hears the change stream where its process needs it: on the embedded
 * database, the one session hears every announcement, on the connection whose COMMIT sent it; on
 * PostgreSQL, a connection hears only its own writes (on a channel of its own, before its COMMIT
 * returns), the shared channel being heard by the process's listener.
 */
export function hearOnPooled(client: PoolClient, kind: 'pglite' | 'postgres', changes: ChangeFeed): void {
  // The pool hears an idle connection's errors; one checked out and lost between two statements
  // (the database restarting) would otherwise crash the process. Its next statement fails, and the
  // pool drops a connection that is no longer queryable when it is released.
  client.on('error', () => {});
  const hearing = client as HearingClient;
  if (kind === 'pglite') {
    client.on('notification', (n) => n.channel === CHANGE_CHANNEL && changes.hear(n.payload));
    hearing[LISTEN] = `listen ${CHANGE_CHANNEL}`;
    return;
  }
  const pid = hearing.processID;
  if (!pid) return;
  const own = selfChannel(pid);
  client.on('notification', (n) => n.channel === own && changes.hear(n.payload, false));
  client.on('end', () => changes.forgetOwn(pid));
  hearing[LISTEN] = `listen ${own}; select set_config('catalog.self', 'on', false)`;
  hearing[HEARING] = () => changes.hearsOwn(pid);
}

const LISTEN = Symbol('catalog.listen');
const HEARING = Symbol('catalog.hearing');
export type HearingClient = PoolClient & { processID?: number; [LISTEN]?: string; [HEARING]?: () => void };

/** The first checkout of a connection starts its hearing (hearOnPooled), before any of its work. */
export async function startHearing(client: HearingClient): Promise<void> {
  const statement = client[LISTEN];
  if (!statement) return;
  await client.query(statement);
  client[LISTEN] = undefined;
  client[HEARING]?.();
  client[HEARING] = undefined;
}

/** How long the listener waits before its next attempt to reconnect: doubling from 50 ms to 2 s. */
const RELISTEN_MS = { first: 50, max: 2000 };

/**
 * The process's dedicated connection to the shared channel on PostgreSQL. When it is lost, every
 * cache is stale (ChangeFeed.lost) until it is back, then everything is read again.
 */
export class SharedListener {
  private client: Client | undefined;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private delay = RELISTEN_MS.first;

  constructor(
    private readonly connect: () => Client,
    private readonly changes: ChangeFeed,
  ) {}

  /** The first connection: a process does not start without the stream. */
  async start(): Promise<void> {
    await this.open();
  }

  private async open(): Promise<void> {
    const client = this.connect();
    client.on('notification', (n) => n.channel === CHANGE_CHANNEL && this.changes.hear(n.payload, true, n.processId));
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.changes.lost();
      client.end().catch(() => {});
      this.retry();
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      await client.query(`listen ${CHANGE_CHANNEL}`);
    } catch (err) {
      client.removeAllListeners('end');
      client.end().catch(() => {});
      throw err;
    }
    if (this.stopped) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.delay = RELISTEN_MS.first;
    this.changes.regained();
  }

  private retry(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.open().catch(() => {
        this.delay = Math.min(this.delay * 2, RELISTEN_MS.max);
        this.retry();
      });
    }, this.delay);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}

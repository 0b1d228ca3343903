import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { Change, ChangeFeed } from '../../db/changes';
import { streamHears } from '../../policies';
import type { Actor } from '../../plugins/context';
import { MAX_EVENT_STREAMS } from '../../../common/limits';

/**
 * What the browsers' live updates carry (docs/decisions/0115-change-stream.md): which kind of record
 * changed and the ids concerned, never any content. A page that hears one reads again, with its own
 * rights, what it shows.
 */
export type LiveEvent =
  | { type: 'catalog'; record: string; services: readonly string[] | null }
  | { type: 'access'; record: string; users: readonly string[] | null }
  /** What changed is unknown (the server lost the stream for a moment): read everything again. */
  | { type: 'resync' };

/** Tables whose changes a catalog, dashboard or service settings page shows. */
const CATALOG_RECORDS: Record<string, string> = {
  services: 'service',
  categories: 'category',
  aspects: 'aspect',
  availabilities: 'availability',
  snapshots: 'snapshot',
  actor_roles: 'actorRole',
  quick_templates: 'quickTemplate',
};
/** Tables that decide who may do what, and the admin pages' lists. */
const ACCESS_RECORDS: Record<string, string> = {
  tenants: 'tenant',
  users: 'user',
  tenant_memberships: 'membership',
  service_role_assignments: 'assignment',
  tenant_invitations: 'invitation',
  revoked_tokens: 'session',
  impersonations: 'impersonation',
};

interface Held {
  seq: number;
  change: Change;
  event: LiveEvent;
}

/** How many events a process keeps for streams that reconnect (Last-Event-ID). */
const KEPT = 2000;
/** A comment line this often keeps proxies from closing an idle stream. */
export const HEARTBEAT_MS = 20_000;
/** Asked of the browser before it reconnects after the stream ends. */
const RETRY_MS = 1000;
/** The longest a timer may wait (setTimeout's limit); a later expiry is checked again then. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** Whose streams a stream counts among: the API token's, or the person's (the super admin's while impersonating). */
export function streamHolder(actor: Actor): string {
  return actor.apiToken ? `token:${actor.apiToken.id}` : `person:${actor.impersonator?.id ?? actor.userId}`;
}

export interface Stream {
  req: FastifyRequest;
  res: ServerResponse;
  actor: Actor;
  tenantId: string;
  /** Checks again that the caller may still follow the tenant; answers false when not. */
  recheck: () => Promise<boolean>;
  checking?: Promise<void>;
  closed?: boolean;
  /** Ends the stream when its credential expires. */
  expiry?: NodeJS.Timeout;
}

/**
 * The live updates of one process: follows the database's change stream, keeps the last events for
 * streams that reconnect, and sends each open stream what concerns its tenant and its caller.
 */
export class LiveHub {
  /** Event ids are `<process>-<sequence>`: an id from another process (or before a restart) cannot be resumed from. */
  readonly boot = randomBytes(6).toString('hex');
  private seq = 0;
  private readonly held: Held[] = [];
  private readonly streams = new Set<Stream>();
  /** Open streams by holder (streamHolder). */
  private readonly holders = new Map<string, number>();
  private readonly heartbeat: NodeJS.Timeout;
  private readonly unfollow: () => void;

  constructor(feed: ChangeFeed) {
    this.unfollow = feed.follow((change) => this.hear(change));
    this.heartbeat = setInterval(() => {
      for (const stream of this.streams) write(stream, ': keep-alive\n\n');
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  get open(): number {
    return this.streams.size;
  }

  /** Whether the caller may open one more stream in this process (at most MAX_EVENT_STREAMS each). */
  hasRoomFor(actor: Actor): boolean {
    return (this.holders.get(streamHolder(actor)) ?? 0) < MAX_EVENT_STREAMS;
  }

  /** Opens a stream: the headers, then what it missed since `lastEventId` (or a resync when that cannot be known). */
  add(stream: Stream, lastEventId: string | undefined): void {
    this.streams.add(stream);
    const holder = streamHolder(stream.actor);
    this.holders.set(holder, (this.holders.get(holder) ?? 0) + 1);
    stream.res.on('close', () => {
      stream.closed = true;
      clearTimeout(stream.expiry);
      this.streams.delete(stream);
      const left = (this.holders.get(holder) ?? 1) - 1;
      if (left > 0) this.holders.set(holder, left);
      else this.holders.delete(holder);
    });
    this.endAtExpiry(stream);
    write(stream, `retry: ${RETRY_MS}\n: stream of ${this.boot}\n\n`);
    if (lastEventId === undefined) return;
    const missed = this.missedSince(stream.actor, stream.tenantId, lastEventId);
    if (!missed) this.send(stream, this.seq, { type: 'resync' });
    else for (const item of missed) this.send(stream, item.seq, item.event);
  }

  /**
   * The events a caller missed after `lastEventId`, oldest first; undefined when that cannot be
   * known (an id of another process, of before a restart, or older than what is kept).
   */
  private missedSince(actor: Actor, tenantId: string, lastEventId: string): Held[] | undefined {
    const [boot, raw] = lastEventId.split('-');
    const from = Number(raw);
    const oldest = this.held[0]?.seq ?? this.seq + 1;
    if (boot !== this.boot || !Number.isInteger(from) || from > this.seq || from < oldest - 1) return undefined;
    return this.held.filter((item) => item.seq > from && concerns(actor, tenantId, item.change));
  }

  /** For a caller that polls: what it missed since `lastEventId`, and the id to ask from next. */
  since(actor: Actor, tenantId: string, lastEventId: string | undefined): { events: Array<LiveEvent & { id: string }>; last_event_id: string } {
    const last = `${this.boot}-${this.seq}`;
    if (lastEventId === undefined) return { events: [], last_event_id: last };
    const missed = this.missedSince(actor, tenantId, lastEventId);
    const events = missed ? missed.map((item) => ({ id: `${this.boot}-${item.seq}`, ...item.event })) : [{ id: last, type: 'resync' as const }];
    return { events, last_event_id: last };
  }

  /** Ends every stream (at shutdown): browsers reconnect, to another process if this one is gone. */
  closeAll(): void {
    clearInterval(this.heartbeat);
    this.unfollow();
    for (const stream of this.streams) stream.res.end();
    this.streams.clear();
  }

  private hear(change: Change): void {
    const event = eventOf(change);
    if (!event) {
      // No page shows it, but it may end a stream's credential (an API token's).
      for (const stream of this.streams) if (endsAccess(stream, change)) this.recheck(stream);
      return;
    }
    const seq = ++this.seq;
    this.held.push({ seq, change, event });
    if (this.held.length > KEPT) this.held.shift();
    for (const stream of this.streams) {
      if (endsAccess(stream, change)) this.recheck(stream, seq, event);
      else if (concerns(stream.actor, stream.tenantId, change)) this.send(stream, seq, event);
    }
  }

  /**
   * An expiry passes without a write: the stream's credential (a session or an API token) is
   * checked again when it expires, which ends the stream.
   */
  private endAtExpiry(stream: Stream): void {
    const wait = stream.actor.exp * 1000 - Date.now();
    stream.expiry = setTimeout(
      () => {
        if (wait > LONGEST_TIMER_MS) this.endAtExpiry(stream);
        else this.recheck(stream);
      },
      Math.min(Math.max(wait, 0), LONGEST_TIMER_MS),
    );
    stream.expiry.unref();
  }

  /** The caller's access may have ended: it is checked before anything more (the event, when one is given) is sent. */
  private recheck(stream: Stream, seq?: number, event?: LiveEvent): void {
    const previous = stream.checking ?? Promise.resolve();
    stream.checking = previous
      .then(() => (stream.closed ? false : stream.recheck()))
      .then(
        (allowed) => {
          if (stream.closed) return;
          if (!allowed) end(stream);
          else if (seq !== undefined && event) this.send(stream, seq, event);
        },
        () => end(stream),
      );
  }

  private send(stream: Stream, seq: number, event: LiveEvent): void {
    write(stream, `id: ${this.boot}-${seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  }
}

/** The browser event of a change; undefined for tables no page shows. */
export function eventOf(change: Change): LiveEvent | undefined {
  if (change.table === '*') return { type: 'resync' };
  const catalog = CATALOG_RECORDS[change.table];
  if (catalog) return { type: 'catalog', record: catalog, services: change.services };
  const access = ACCESS_RECORDS[change.table];
  if (access) return { type: 'access', record: access, users: change.users };
  return undefined;
}

/** Whether a change is for a caller (the access layer decides). */
function concerns(actor: Actor, tenantId: string, change: Change): boolean {
  return streamHears(actor, tenantId, change, Object.hasOwn(ACCESS_RECORDS, change.table));
}

/** Whether a change may end what the stream's caller may follow: it is then checked before it is sent. */
function endsAccess(stream: Stream, change: Change): boolean {
  const { actor } = stream;
  const touches = (list: readonly string[] | null, id: string | undefined) => list === null || (id !== undefined && list.includes(id));
  switch (change.table) {
    case '*':
      return true;
    case 'tenants':
      return touches(change.tenants, stream.tenantId);
    case 'users':
    case 'tenant_memberships':
      // An API token's rights may follow its tenant's people (its creator's rights).
      if (actor.apiToken) return touches(change.tenants, stream.tenantId);
      return touches(change.users, actor.userId) || (actor.impersonator !== null && touches(change.users, actor.impersonator.id));
    case 'api_tokens':
      // Revoked, suspended or changed: the token's streams are checked again.
      return actor.apiToken !== null && touches(change.tenants, stream.tenantId);
    case 'revoked_tokens':
      return touches(change.tokens, actor.jti);
    case 'impersonations':
      return actor.impersonator !== null;
    default:
      return false;
  }
}

function write(stream: Stream, text: string): void {
  if (!stream.closed && !stream.res.writableEnded) stream.res.write(text);
}

/** The caller may no longer follow the tenant: the page is told, and the stream ends. */
function end(stream: Stream): void {
  write(stream, `event: ended\ndata: {"type":"ended"}\n\n`);
  stream.res.end();
}

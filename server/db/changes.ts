/**
 * The change stream (docs/decisions/0115-change-stream.md). Every committed statement that writes a
 * record a server process keeps in memory, or that decides who may do what, is announced by the
 * database itself (the triggers of migration 0008) on the channel `catalog_changes`, from inside
 * the writing transaction: it is heard when, and only if, the write commits, whoever wrote it (this
 * process, another process on the same database, or someone at a SQL prompt).
 *
 * Each process hears the stream in one place and gives every change to its caches first (their
 * write stamps, server/db/writeStamps.ts) and then to whatever follows it (the browsers' live
 * updates, server/routes/events). On PostgreSQL a dedicated connection listens; a process also hears
 * its own writes on each pooled connection before their COMMIT returns, so it never serves what it
 * held from before its own write. The embedded database has one session: there the session that
 * commits hears the announcement, before its COMMIT returns.
 */
import { markStreamDown, markStreamUp, raiseStamps } from './writeStamps';

export const CHANGE_CHANNEL = 'catalog_changes';
/** The channel a pooled PostgreSQL connection hears its own writes on. */
export const selfChannel = (backendPid: number) => `catalog_self_${backendPid}`;

/** What a committed statement changed: its table, and the ids it touched (null: too many to list, read "any"). */
export interface Change {
  table: string;
  tenants: readonly string[] | null;
  services: readonly string[] | null;
  users: readonly string[] | null;
  /** Ids of sign-in tokens the statement revoked. */
  tokens: readonly string[] | null;
  /**
   * For the table `availability_versions` (sent by the availability writes, not by a trigger): the
   * service versions each write made and the aspect it wrote, so that every process can bring a
   * held `/full` body up to date rather than build it whole (decision 0107).
   */
  availabilityVersions?: readonly AvailabilityVersion[];
}

/** A service version made by an availability write, and the aspect whose text it wrote. */
export interface AvailabilityVersion {
  serviceId: string;
  version: number;
  aspectId: string;
}

/** The table name of the availability writes' announcements. */
export const AVAILABILITY_VERSIONS = 'availability_versions';

function availabilityVersions(value: unknown): AvailabilityVersion[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: AvailabilityVersion[] = [];
  for (const v of value) {
    if (Array.isArray(v) && typeof v[0] === 'string' && Number.isInteger(v[1]) && typeof v[2] === 'string') {
      out.push({ serviceId: v[0], version: v[1] as number, aspectId: v[2] });
    }
  }
  return out;
}

/** Everything may have changed: the stream was interrupted, and what it carried meanwhile is unknown. */
export const EVERYTHING: Change = { table: '*', tenants: null, services: null, users: null, tokens: null };

const ids = (value: unknown): readonly string[] | null => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : null);

/** A channel payload read as a change; undefined when it is not one. */
export function parseChange(payload: string | undefined): Change | undefined {
  if (!payload) return undefined;
  try {
    const raw = JSON.parse(payload) as Record<string, unknown>;
    if (typeof raw.t !== 'string') return undefined;
    const change: Change = { table: raw.t, tenants: ids(raw.tn), services: ids(raw.sv), users: ids(raw.us), tokens: ids(raw.jt) };
    const versions = availabilityVersions(raw.av);
    if (versions) change.availabilityVersions = versions;
    return change;
  } catch {
    return undefined;
  }
}

/** Whether a change may concern a tenant (a null list concerns every tenant). */
export function concernsTenant(change: Change, tenantId: string): boolean {
  return change.tenants === null || change.tenants.includes(tenantId);
}

type Follower = (change: Change) => void;

/**
 * One database's change stream in this process: caches are told first, then the followers. A
 * follower that throws does not stop the others.
 */
export class ChangeFeed {
  private readonly followers = new Set<Follower>();
  private down = false;
  /** Changes heard since start, for figures and tests. */
  heard = 0;
  /**
   * The backends of this process's pooled PostgreSQL connections that hear their own writes: the
   * caches took those writes when they committed, so their copies on the shared channel go to the
   * followers only.
   */
  private readonly own = new Set<number>();

  /** A pooled connection's backend hears its own writes from now on (`hear(..., false)`). */
  hearsOwn(backendPid: number): void {
    this.own.add(backendPid);
  }

  /** That connection is gone: its backend's number may come back as another process's. */
  forgetOwn(backendPid: number): void {
    this.own.delete(backendPid);
  }

  /** Calls `fn` with every change heard from now on; answers the function that stops it. */
  follow(fn: Follower): () => void {
    this.followers.add(fn);
    return () => this.followers.delete(fn);
  }

  get followerCount(): number {
    return this.followers.size;
  }

  /** Whether the stream is heard now (false while the listening connection is being re-established). */
  get live(): boolean {
    return !this.down;
  }

  /**
   * A payload heard on a channel. `publish` is false for a process's own writes heard on its pooled
   * connections: the caches take them at once, and the followers hear them on the shared channel,
   * where `fromBackend` (the writing backend) tells them apart.
   */
  hear(payload: string | undefined, publish = true, fromBackend?: number): void {
    const change = parseChange(payload);
    if (!change) return;
    this.heard++;
    // Raising the stamps again for a write of this process would only throw away what the caches
    // read since it committed.
    if (!(publish && fromBackend !== undefined && this.own.has(fromBackend))) raiseStamps([change.table]);
    if (publish) this.publish(change);
  }

  /** The listening connection is lost: every cache is stale until it is back. */
  lost(): void {
    if (this.down) return;
    this.down = true;
    markStreamDown();
  }

  /** The listening connection is back: what changed meanwhile is unknown, so everything is read again. */
  regained(): void {
    if (!this.down) return;
    this.down = false;
    markStreamUp();
    this.publish(EVERYTHING);
  }

  private publish(change: Change): void {
    for (const fn of this.followers) {
      try {
        fn(change);
      } catch {
        // One follower's failure (a stream closed under it) is its own.
      }
    }
  }
}

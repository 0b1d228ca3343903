/**
 * Write stamps: a counter per table, raised whenever the change stream (server/db/changes.ts) says
 * a committed statement wrote the table, whoever wrote it. A cache entry records the stamp of the
 * tables it was read from before reading; a later write to any of them makes the entry stale, so
 * this process never serves what it has been told has changed since
 * (docs/decisions/0103-request-caches.md, docs/decisions/0115-change-stream.md).
 */
const counters = new Map<string, number>();
/** Raised by writes to tables whose rows others cascade from: every stamp includes it. */
const ALL = '*';
const CASCADING = new Set(['tenants', 'users', ALL]);
/** Streams whose listening connection is lost: while any is, nothing cached is current. */
let streamsDown = 0;

export function raiseStamps(tables: Iterable<string>): void {
  for (const table of tables) {
    const key = CASCADING.has(table) ? ALL : table;
    counters.set(key, (counters.get(key) ?? 0) + 1);
  }
}

/** A change stream lost its listening connection: every cache reads again until it is back. */
export function markStreamDown(): void {
  streamsDown++;
}

/** A change stream is heard again: what was held from before is stale. */
export function markStreamUp(): void {
  streamsDown = Math.max(0, streamsDown - 1);
  raiseStamps([ALL]);
}

/** One number that changes whenever any of `tables` (or a cascading table) is written. */
export function stampOf(tables: readonly string[]): number {
  // NaN equals nothing, not even itself: no entry is current while a stream is down.
  if (streamsDown > 0) return Number.NaN;
  let sum = counters.get(ALL) ?? 0;
  for (const table of tables) sum += counters.get(table) ?? 0;
  return sum;
}

interface Entry<V> {
  value: V;
  stamp: number;
  at: number;
}

/**
 * A small cache of values read from `tables`: an entry is served while none of them was written
 * since it was read and it is younger than `maxAgeMs` (a backstop: every committed write is
 * announced by the database, whoever made it). The oldest entries go first when it is full.
 */
export class StampedCache<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(
    private readonly tables: readonly string[],
    private readonly maxAgeMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const stamp = stampOf(this.tables);
    const now = Date.now();
    const entry = this.entries.get(key);
    if (entry && entry.stamp === stamp && now - entry.at < this.maxAgeMs) return entry.value;
    const value = await load();
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, stamp, at: now });
    return value;
  }

  /** The entry's value when `get` would serve it without loading; undefined otherwise. */
  peek(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.stamp === stampOf(this.tables) && Date.now() - entry.at < this.maxAgeMs) return entry.value;
    return undefined;
  }

  clear(): void {
    this.entries.clear();
  }
}

/**
 * Write stamps: a counter per table, raised when a connection that wrote to the table goes back to
 * the pool (after its transaction committed or rolled back). A cache entry records the stamp of the
 * tables it was read from before reading; a later write to any of them makes the entry stale, so
 * this process never serves what it has itself changed since (docs/decisions/0103-request-caches.md).
 */
const counters = new Map<string, number>();
/** Raised by writes to tables whose rows others cascade from: every stamp includes it. */
const ALL = '*';
const CASCADING = new Set(['tenants', 'users']);

const WRITE = /\b(?:insert\s+into|update|delete\s+from|truncate(?:\s+table)?|alter\s+table)\s+(?:only\s+)?(?:"?public"?\.)?"?([a-z_][a-z0-9_]*)"?/gi;

/**
 * Database functions that write, with the tables they write: a call (`select ... from f(...)`)
 * names none of them. Every such function of the migrations belongs here.
 */
const WRITING_FUNCTIONS: Record<string, readonly string[]> = {
  catalog_write_availability: ['availabilities', 'availability_history', 'services'],
  catalog_write_availabilities: ['availabilities', 'availability_history', 'services'],
};
const CALL = new RegExp(`\\b(${Object.keys(WRITING_FUNCTIONS).join('|')})"?\\s*\\(`, 'gi');

/** The tables a statement may write to (a superset: `for update` and the like are harmless). */
export function writtenTables(text: string): string[] {
  const tables: string[] = [];
  for (const m of text.matchAll(CALL)) tables.push(...WRITING_FUNCTIONS[m[1]!.toLowerCase()]!);
  if (/^\s*select\b/i.test(text) && !/\b(?:insert|update|delete)\b/i.test(text)) return tables;
  for (const m of text.matchAll(WRITE)) tables.push(m[1]!.toLowerCase());
  return tables;
}

export function raiseStamps(tables: Iterable<string>): void {
  for (const table of tables) {
    const key = CASCADING.has(table) ? ALL : table;
    counters.set(key, (counters.get(key) ?? 0) + 1);
  }
}

/** One number that changes whenever any of `tables` (or a cascading table) is written. */
export function stampOf(tables: readonly string[]): number {
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
 * since it was read and it is younger than `maxAgeMs` (which bounds what a write made outside this
 * process, by hand say, can leave stale). The oldest entries go first when it is full.
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

/** Timeline buckets are calendar quarters written YYYY-Qn. */
export const QUARTER_PATTERN = /^(\d{4})-Q([1-4])$/;

export function isQuarter(value: string): boolean {
  return QUARTER_PATTERN.test(value);
}

export function quarterOf(date: Date): string {
  return `${date.getUTCFullYear()}-Q${Math.floor(date.getUTCMonth() / 3) + 1}`;
}

function toIndex(quarter: string): number {
  const m = QUARTER_PATTERN.exec(quarter);
  if (!m) throw new Error(`Not a quarter: ${quarter}`);
  return Number(m[1]) * 4 + Number(m[2]) - 1;
}

function fromIndex(index: number): string {
  return `${Math.floor(index / 4)}-Q${(index % 4) + 1}`;
}

export function compareQuarters(a: string, b: string): number {
  return toIndex(a) - toIndex(b);
}

export function addQuarters(quarter: string, n: number): string {
  return fromIndex(toIndex(quarter) + n);
}

/** Every quarter from first to last, inclusive; empty when last is before first. */
export function quarterRange(first: string, last: string): string[] {
  const out: string[] = [];
  for (let i = toIndex(first); i <= toIndex(last); i++) out.push(fromIndex(i));
  return out;
}

/** A new service's timeline: the current quarter and the seven after it. */
export function defaultTimeline(now: Date = new Date(), length = 8): string[] {
  const first = quarterOf(now);
  return quarterRange(first, addQuarters(first, length - 1));
}

/** The current view's bucket: this calendar quarter if the timeline has it, else the first entry. */
export function currentBucket(timeline: string[], now: Date = new Date()): string | undefined {
  const q = quarterOf(now);
  return timeline.includes(q) ? q : timeline[0];
}

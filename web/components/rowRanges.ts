/**
 * The row window's ranges (web/components/useRowWindow.ts): where its edges fall within a gap, and
 * how it moves, settles and grows from one placing to the next. Pure functions of positions and heights.
 */

/** Renders in a row that may move the window (without a scroll between them) before it only grows. */
const SETTLE_PASSES = 4;

export interface RowRange {
  start: number;
  end: number;
}

/**
 * Within a gap whose top is at `top` (rows `first` to `last`, `height` of each by position), the
 * first row whose bottom is below `edge` (`from: 'top'`), or the last row whose top is above it
 * (`from: 'bottom'`).
 */
export function rowAt(top: number, first: number, last: number, height: (i: number) => number, edge: number, from: 'top' | 'bottom'): number {
  let y = top;
  let i = first;
  if (from === 'top') {
    while (i < last && y + height(i) <= edge) y += height(i++);
  } else {
    while (i < last && y + height(i) < edge) y += height(i++);
  }
  return i;
}

/** The first position in [0, count) for which `after` holds; `after` must be monotonic. */
export function firstWhere(count: number, after: (i: number) => boolean): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (after(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The next window: unchanged while it covers the rows that must be shown (`need`) and not much
 * more (`wide`); otherwise both edges move at once (one change, one new layout): the edge that
 * fell short reaches out to `reach`, the other comes in to `need`.
 */
export function nextRange(prev: RowRange, need: RowRange, wide: RowRange, reach: RowRange): RowRange {
  const covers = prev.start <= need.start && prev.end >= need.end;
  const tight = prev.start >= wide.start && prev.end <= wide.end;
  if (covers && tight) return prev;
  if (prev.end < need.end) return { start: need.start, end: reach.end };
  if (prev.start > need.start) return { start: reach.start, end: need.end };
  return need;
}

/**
 * The window after `passes` renders in a row that each moved it, without a scroll between them:
 * `next` at first; then, so it settles even where rows change height as others come and go
 * (content still loading, say) instead of moving back and forth after every render, the smallest
 * window holding both `prev` and `next`.
 */
export function settledRange(prev: RowRange, next: RowRange, passes: number): RowRange {
  if (passes < SETTLE_PASSES || prev.end < prev.start || next.end < next.start) return next;
  return { start: Math.min(prev.start, next.start), end: Math.max(prev.end, next.end) };
}

/**
 * `next` as far as one frame may take it from `prev`: at most `rows` rows beyond what `prev` and the
 * rows in view (`view`) hold, on each side (from the rows in view alone when they lie apart from
 * `prev`: a jump). Shrinking is not limited. Answers `next` itself when it is within reach.
 */
export function grownRange(prev: RowRange, next: RowRange, view: RowRange, rows: number): RowRange {
  if (prev.end < prev.start || view.end < view.start) return next;
  const touches = view.start <= prev.end + 1 && view.end >= prev.start - 1;
  const base = touches ? { start: Math.min(prev.start, view.start), end: Math.max(prev.end, view.end) } : view;
  const start = next.start >= base.start ? next.start : Math.max(next.start, base.start - rows);
  const end = next.end <= base.end ? next.end : Math.min(next.end, base.end + rows);
  return start === next.start && end === next.end ? next : { start, end };
}

/** `range` cut short after the rows whose heights (by position) add up to `budget` pixels. */
export function fittedRange(range: RowRange, height: (i: number) => number, budget: number): RowRange {
  let used = 0;
  let end = range.start;
  while (end < range.end && used + height(end) < budget) used += height(end++);
  return end < range.end ? { start: range.start, end } : range;
}

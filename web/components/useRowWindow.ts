import { useCallback, useEffect, useLayoutEffect, useRef, useState, type FocusEvent, type RefObject } from 'react';

/** Rows within this distance of the viewport (pixels) are always rendered in full. */
const NEAR_PX = 1000;
/**
 * The window moves in steps: when it must grow it grows this much further, and a row leaves it
 * only this much further away. Fewer, larger changes cost less than one row per frame while
 * scrolling (each change lays the table out again), and a row at an edge cannot flip back and forth.
 */
const SLACK_PX = 1600;
/** Rows rendered in full before the first measurement (the top of a freshly opened table). */
const INITIAL_ROWS = 8;
/** Height of a row never rendered in full, until rows have been measured. */
const FALLBACK_ROW_PX = 64;

export interface RowRange {
  start: number;
  end: number;
}

export interface RowWindow {
  /** The table whose rows are windowed; each row carries windowRowAttributes(). */
  tableRef: RefObject<HTMLTableElement | null>;
  /** Rows (by index in display order) rendered in full: those near the viewport. */
  range: RowRange;
  /** The row holding the keyboard focus stays in full wherever it is. */
  focusedKey: string | null;
  onFocus: (e: FocusEvent<HTMLElement>) => void;
  onBlur: (e: FocusEvent<HTMLElement>) => void;
  /** Height for a row shown in brief: its last measured height, else the measured average. */
  heightOf: (key: string) => number;
}

/** The attributes useRowWindow reads from each row: position, key, and whether it is in full. */
export function windowRowAttributes(key: string, index: number, full: boolean) {
  return { 'data-window-index': index, 'data-window-key': key, 'data-window-full': full ? '' : undefined };
}

/** The groups' first indices in display order, and the number of rows. */
export function groupOffsets(groups: { aspects: unknown[] }[]): { offsets: number[]; rows: number } {
  let rows = 0;
  const offsets = groups.map((g) => {
    const offset = rows;
    rows += g.aspects.length;
    return offset;
  });
  return { offsets, rows };
}

/** The part of `range` within a group, as indices in the group; [0, -1] (the same for every group, so memoised groups stay put) when none. */
export function groupRange(range: RowRange, offset: number, length: number): [number, number] {
  const from = Math.max(0, range.start - offset);
  const to = Math.min(length - 1, range.end - offset);
  return from <= to ? [from, to] : [0, -1];
}

/** The first position in [0, count) for which `after` holds; `after` must be monotonic. */
function firstWhere(count: number, after: (i: number) => boolean): number {
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
 * Windowed rendering for long tables that keeps every row in the document: rows near the viewport
 * render in full, the others in brief (title only, at their last measured height), so hundreds of
 * rows load, filter and scroll quickly while the row count, the titles and the table's length stay
 * right. The window is placed from the rows' own boxes after each render, before the browser
 * paints, and again on every scroll (the table's own, the page's or a modal's) and resize.
 */
export function useRowWindow(rowCount: number): RowWindow {
  const tableRef = useRef<HTMLTableElement | null>(null);
  const rows = useRef<NodeListOf<HTMLElement> | null>(null);
  const heights = useRef(new Map<string, number>());
  const total = useRef({ sum: 0, count: 0 });
  const [range, setRange] = useState<RowRange>({ start: 0, end: Math.min(rowCount, INITIAL_ROWS) - 1 });
  const [focusedKey, setFocusedKey] = useState<string | null>(null);
  // Height of rows never measured: the measured average, updated when it moves by over a tenth.
  const [estimate, setEstimate] = useState(FALLBACK_ROW_PX);

  /** Records the rows' elements and the heights of those in full (after a render or a resize). */
  const measure = useCallback(() => {
    const table = tableRef.current;
    rows.current = table ? table.querySelectorAll<HTMLElement>('tr[data-window-index]') : null;
    if (!table) return;
    for (const row of table.querySelectorAll<HTMLElement>('tr[data-window-full]')) {
      const key = row.dataset.windowKey!;
      const height = row.offsetHeight;
      const before = heights.current.get(key);
      if (before === height) continue;
      total.current.sum += height - (before ?? 0);
      if (before === undefined) total.current.count++;
      heights.current.set(key, height);
    }
    const { sum, count } = total.current;
    if (count) setEstimate((prev) => (Math.abs(prev - sum / count) > prev / 10 ? Math.round(sum / count) : prev));
  }, []);

  /**
   * Moves the window to the rows near the viewport. While scrolling it reaches ahead (fewer
   * changes); after a render (a load, a search) it takes only what is needed, so the first frame
   * comes sooner.
   */
  const place = useCallback((scrolling: boolean) => {
    const list = rows.current;
    if (!list) return;
    const indexAt = (i: number) => Number(list[i]!.dataset.windowIndex);
    const near = (margin: number): RowRange | null => {
      const first = firstWhere(list.length, (i) => list[i]!.getBoundingClientRect().bottom > -margin);
      const last = firstWhere(list.length, (i) => list[i]!.getBoundingClientRect().top >= window.innerHeight + margin) - 1;
      return first <= last ? { start: indexAt(first), end: indexAt(last) } : null;
    };
    const need = near(NEAR_PX);
    const wide = near(NEAR_PX + SLACK_PX);
    setRange((prev) => {
      if (!need || !wide) return prev.end < prev.start ? prev : { start: 0, end: -1 };
      return nextRange(prev.end < prev.start ? need : prev, need, wide, scrolling ? wide : need);
    });
  }, []);

  useLayoutEffect(() => {
    measure();
    place(false);
  });

  useEffect(() => {
    let frame = 0;
    let resized = false;
    const schedule = (e: Event) => {
      resized ||= e.type === 'resize';
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        if (resized) measure();
        resized = false;
        place(true);
      });
    };
    // Capturing catches the scrolling of any element, such as a modal holding the table.
    window.addEventListener('scroll', schedule, { capture: true, passive: true });
    window.addEventListener('resize', schedule);
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener('scroll', schedule, { capture: true });
      window.removeEventListener('resize', schedule);
    };
  }, [measure, place]);

  const onFocus = useCallback((e: FocusEvent<HTMLElement>) => {
    const row = (e.target as HTMLElement).closest<HTMLElement>('tr[data-window-key]');
    setFocusedKey(row?.dataset.windowKey ?? null);
  }, []);
  const onBlur = useCallback((e: FocusEvent<HTMLElement>) => {
    if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setFocusedKey(null);
  }, []);

  // A new function when the estimate moves, so memoised rows in brief take the new height.
  const heightOf = useCallback((key: string) => heights.current.get(key) ?? estimate, [estimate]);

  return { tableRef, range, focusedKey, onFocus, onBlur, heightOf };
}

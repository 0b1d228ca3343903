import { firstWhere, fittedRange, grownRange, nextRange, rowAt, settledRange, type RowRange } from './rowRanges';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore, type FocusEvent, type RefObject } from 'react';

/** Rows within this distance of the viewport (pixels) are always rendered in full. */
const NEAR_PX = 1000;
/**
 * Just after the rows were replaced (a search typed), only rows this near the viewport are
 * rendered: each keystroke of a search renders what is in view, not a screenful more. The window
 * reaches NEAR_PX once the person scrolls or the focus enters the rows.
 */
const FRESH_PX = 300;
/**
 * The window moves in steps: when it must grow it grows this much further, and a row leaves it
 * only this much further away. Fewer, larger changes cost less than one row per frame while
 * scrolling (each change lays the table out again), and a row at an edge cannot flip back and forth.
 */
const SLACK_PX = 1600;
/**
 * The most rows the window grows by in one frame beyond the rows in view: a larger step (a scroll,
 * a jump of the keyboard, the margin of a table just opened) is spread over the next frames, so no
 * frame renders dozens of rows at once. The rows in view are always rendered at once.
 */
const GROW_ROWS = 2;
/** Rows rendered in full before the first measurement (the top of a freshly opened table). */
const INITIAL_ROWS = 8;
/** Height of a row never rendered in full, until rows have been measured. */
const FALLBACK_ROW_PX = 64;
const NO_ROWS: RowRange = { start: 0, end: -1 };

export type { RowRange } from './rowRanges';

export interface RowWindow<E extends HTMLElement = HTMLTableElement> {
  /** The table whose rows are windowed; each row in full carries windowRowAttributes(), each gap gapAttributes(). */
  tableRef: RefObject<E | null>;
  /** Rows (by index in display order) rendered in full: those near the viewport. */
  range: RowRange;
  /**
   * The row holding the keyboard focus, while it is outside `range`: it stays in full wherever it
   * is. Null while the focus is in a row of the window (or not in the table), so that the focus
   * moving between rows in full renders nothing here.
   */
  focusedKey: string | null;
  onFocus: (e: FocusEvent<HTMLElement>) => void;
  onBlur: (e: FocusEvent<HTMLElement>) => void;
  /** Height of a row not in the page: its last measured height, else the measured average. */
  heightOf: (key: string) => number;
}

/** The attributes useRowWindow reads from each row in full: its position and key. */
export function windowRowAttributes(key: string, index: number) {
  return { 'data-window-index': index, 'data-window-key': key, 'data-window-full': '' };
}

/** The attributes useRowWindow reads from a gap: the positions of the first and last rows it stands for. */
export function gapAttributes(first: number, last: number) {
  return { 'data-window-index': first, 'data-window-last': last };
}

export interface GroupLayout {
  /** Each group's first row, by index in display order. */
  offsets: number[];
  /** The rows' keys in display order. */
  keys: string[];
  /**
   * The table's rows as assistive technology counts them (aria-rowcount): the heading row, then
   * each group's header row and its rows (or its one 'No aspects' row), rows not in the page included.
   */
  ariaRowCount: number;
  /** Each group's header row's aria-rowindex; its rows follow it. */
  ariaRows: number[];
}

/** Where each group's rows sit in the table (see GroupLayout). */
export function groupLayout(groups: { aspects: { id: string }[] }[]): GroupLayout {
  const keys: string[] = [];
  const ariaRows: number[] = [];
  let aria = 1;
  const offsets = groups.map((g) => {
    const offset = keys.length;
    for (const aspect of g.aspects) keys.push(aspect.id);
    ariaRows.push(aria + 1);
    aria += 1 + Math.max(1, g.aspects.length);
    return offset;
  });
  return { offsets, keys, ariaRowCount: aria, ariaRows };
}

/** One piece of a group's rows: a row in full (its index in the group), or a gap of rows in a row. */
export type WindowPiece = { full: true; index: number } | { full: false; from: number; to: number; height: number };

/**
 * A group's rows as the table shows them: each row in full where `full` says so, and each run of
 * the others as one gap as tall as its rows (`height` of each, by position in the group).
 */
export function windowPieces(count: number, full: (i: number) => boolean, height: (i: number) => number): WindowPiece[] {
  const pieces: WindowPiece[] = [];
  let gap: { full: false; from: number; to: number; height: number } | null = null;
  for (let i = 0; i < count; i++) {
    if (full(i)) {
      gap = null;
      pieces.push({ full: true, index: i });
    } else if (gap) {
      gap.to = i;
      gap.height += height(i);
    } else {
      gap = { full: false, from: i, to: i, height: height(i) };
      pieces.push(gap);
    }
  }
  return pieces;
}

/** The part of `range` within a group, as indices in the group; [0, -1] (the same for every group, so memoised groups stay put) when none. */
export function groupRange(range: RowRange, offset: number, length: number): [number, number] {
  const from = Math.max(0, range.start - offset);
  const to = Math.min(length - 1, range.end - offset);
  return from <= to ? [from, to] : [0, -1];
}

export interface RowWindowOptions {
  /**
   * The element of each row and gap: `tr` in a table; another element (`div`) where the rows are
   * not a table's, such as the dashboard's rows of cards.
   */
  rowTag?: string;
  /**
   * Whether the rows' first render after they were replaced (another first row, or fewer rows: a
   * search typed) holds only what is in view, FRESH_PX beyond it: for lists searched as one types.
   * The first rows of a page opened, and rows added after the last (the next page), are not
   * replacements.
   */
  fresh?: boolean;
}

/**
 * Windowed rendering for long tables: rows near the viewport are in the page, in full, and each run
 * of the others is one empty gap row as tall as they are (their last measured heights, else the
 * measured average), so hundreds of rows load, filter and scroll quickly while the table keeps its
 * length and its scrollbar (docs/decisions/0108-row-window-gaps.md). The window is placed from the
 * rows' and gaps' own boxes after each render, before the browser paints, and again on every
 * scroll (the table's own, the page's or a modal's) and resize. `keys` are the rows' keys in
 * display order.
 */
/** Subscribes to the page being printed (the print preview, window.print(), a PDF of the page). */
function subscribePrint(onChange: () => void): () => void {
  const query = window.matchMedia('print');
  query.addEventListener('change', onChange);
  window.addEventListener('beforeprint', onChange);
  window.addEventListener('afterprint', onChange);
  return () => {
    query.removeEventListener('change', onChange);
    window.removeEventListener('beforeprint', onChange);
    window.removeEventListener('afterprint', onChange);
  };
}
let beforePrint = false;
if (typeof window !== 'undefined') {
  window.addEventListener('beforeprint', () => (beforePrint = true));
  window.addEventListener('afterprint', () => (beforePrint = false));
}
const isPrinting = () => beforePrint || window.matchMedia('print').matches;

/**
 * While the page is printed every row is in it: paper has no viewport to window rows to
 * (docs/decisions/0123-print.md).
 */
export function usePrinting(): boolean {
  return useSyncExternalStore(subscribePrint, isPrinting, () => false);
}

export function useRowWindow<E extends HTMLElement = HTMLTableElement>(keys: string[], options: RowWindowOptions = {}): RowWindow<E> {
  const rowTag = options.rowTag ?? 'tr';
  const rowCount = keys.length;
  const tableRef = useRef<E | null>(null);
  const rows = useRef<NodeListOf<HTMLElement> | null>(null);
  const keysRef = useRef(keys);
  // The rows were replaced (see RowWindowOptions.fresh) and nobody has scrolled or entered them since.
  const fresh = useRef(false);
  const heights = useRef(new Map<string, number>());
  const total = useRef({ sum: 0, count: 0 });
  const [range, setRange] = useState<RowRange>({ start: 0, end: Math.min(rowCount, INITIAL_ROWS) - 1 });
  // Height of rows never measured: the measured average, updated when it moves by over a tenth.
  const [estimate, setEstimate] = useState(FALLBACK_ROW_PX);
  // The row holding the focus, and the same while it is outside the window (the state: see RowWindow.focusedKey).
  const focused = useRef<string | null>(null);
  if (keysRef.current !== keys) {
    const before = keysRef.current;
    keysRef.current = keys;
    if (options.fresh && focused.current === null && before.length > 0 && (before[0] !== keys[0] || keys.length < before.length)) {
      // The new rows' first render holds no more than a screen of them: the window is placed again
      // before the browser paints, growing it where that was too short.
      fresh.current = true;
      const fitted = fittedRange(range, (i) => heights.current.get(keys[i] ?? '') ?? estimate, window.innerHeight + FRESH_PX);
      if (fitted.end !== range.end) setRange(fitted);
    }
  }
  const rangeRef = useRef(range);
  rangeRef.current = range;
  // Renders in a row that moved the window, without a scroll between them (see settledRange).
  const unsettled = useRef(0);
  const [focusedKey, setFocusedKey] = useState<string | null>(null);
  /** Pins the focused row when it is outside `window`, and lets it go once it is in. */
  const pinFocused = useCallback((window: RowRange) => {
    const key = focused.current;
    const index = key === null ? -1 : keysRef.current.indexOf(key);
    setFocusedKey(index >= 0 && (index < window.start || index > window.end) ? key : null);
  }, []);
  // A new function when the estimate moves, so memoised gaps take the new height.
  const heightOf = useCallback((key: string) => heights.current.get(key) ?? estimate, [estimate]);

  /**
   * Records the rows' and gaps' elements, and the heights of the rows (after a render or a resize):
   * their boxes' own heights, fractions of a pixel included (rows are only ever translated while
   * dragged, never scaled, so the box is as tall as the layout's row). A gap made of heights rounded to
   * whole pixels (offsetHeight) moves every row after it a little whenever the window moves, and
   * the browser then paints everything in view again: that was most of the slow frames while
   * scrolling.
   */
  const measure = useCallback(() => {
    const table = tableRef.current;
    rows.current = table ? table.querySelectorAll<HTMLElement>(`${rowTag}[data-window-index]`) : null;
    if (!table) return;
    for (const row of table.querySelectorAll<HTMLElement>(`${rowTag}[data-window-full]`)) {
      const key = row.dataset.windowKey!;
      const height = row.getBoundingClientRect().height;
      const before = heights.current.get(key);
      if (before === height) continue;
      total.current.sum += height - (before ?? 0);
      if (before === undefined) total.current.count++;
      heights.current.set(key, height);
    }
    const { sum, count } = total.current;
    if (count) setEstimate((prev) => (Math.abs(prev - sum / count) > prev / 10 ? Math.round(sum / count) : prev));
  }, [rowTag]);

  // A window still growing toward where it should be (GROW_ROWS a frame): the next frame's step,
  // which places the window with the latest `place` (it changes with the rows' estimated height).
  const growFrame = useRef(0);
  const placeRef = useRef<(scrolling: boolean, growing?: boolean) => void>(() => {});
  /**
   * Moves the window to the rows near the viewport. While scrolling it reaches ahead (fewer
   * changes); after a render (a load, a search) it takes only what is needed, so the first frame
   * comes sooner.
   */
  const place = useCallback(
    (scrolling: boolean, growing = false) => {
      const list = rows.current;
      if (!list) return;
      const height = (i: number) => heightOf(keysRef.current[i] ?? '');
      // The row at a window edge: the element's own row, or the row within a gap at that edge.
      const rowAtEdge = (element: HTMLElement, edge: number, from: 'top' | 'bottom') => {
        const first = Number(element.dataset.windowIndex);
        const last = element.dataset.windowLast === undefined ? first : Number(element.dataset.windowLast);
        return first === last ? first : rowAt(element.getBoundingClientRect().top, first, last, height, edge, from);
      };
      const near = (margin: number): RowRange | null => {
        const first = firstWhere(list.length, (i) => list[i]!.getBoundingClientRect().bottom > -margin);
        const last = firstWhere(list.length, (i) => list[i]!.getBoundingClientRect().top >= window.innerHeight + margin) - 1;
        if (first > last) return null;
        return { start: rowAtEdge(list[first]!, -margin, 'top'), end: rowAtEdge(list[last]!, window.innerHeight + margin, 'bottom') };
      };
      // The first scroll after the rows were replaced grows the window to NEAR_PX only (a short frame).
      const first = fresh.current;
      if (scrolling) fresh.current = false;
      // Just after the rows were replaced the window is exactly what is needed, not a screenful more.
      const replaced = first && !scrolling;
      const need = near(replaced ? FRESH_PX : NEAR_PX);
      const wide = replaced ? need : near(NEAR_PX + SLACK_PX);
      const prev = rangeRef.current;
      let next = NO_ROWS;
      if (need && wide) {
        next = nextRange(prev.end < prev.start ? need : prev, need, wide, scrolling && !first ? wide : need);
        if (!scrolling) next = settledRange(prev, next, unsettled.current);
        // What is in view renders now; the rest of a larger step comes a few rows a frame. After a
        // render (this layout effect) only what is in view: the frames that follow grow it.
        const view = near(0);
        const step = view ? grownRange(prev, next, view, scrolling || growing ? GROW_ROWS : 0) : next;
        if (step !== next) {
          next = step;
          if (!growFrame.current) {
            growFrame.current = requestAnimationFrame(() => {
              growFrame.current = 0;
              placeRef.current(scrolling, true);
            });
          }
        }
      }
      if (scrolling) unsettled.current = 0;
      pinFocused(next);
      if (next.start === prev.start && next.end === prev.end) {
        unsettled.current = 0;
        return;
      }
      if (!scrolling) unsettled.current++;
      rangeRef.current = next;
      setRange(next);
    },
    [heightOf, pinFocused],
  );

  useLayoutEffect(() => {
    placeRef.current = place;
    measure();
    place(false);
  });
  // The next frame's growth is cancelled with the rows only: a new `place` (the estimate moved)
  // takes the step over, through placeRef.
  useEffect(
    () => () => {
      cancelAnimationFrame(growFrame.current);
      growFrame.current = 0;
    },
    [],
  );

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
        placeRef.current(true);
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
  }, [measure]);

  const onFocus = useCallback(
    (e: FocusEvent<HTMLElement>) => {
      const row = (e.target as HTMLElement).closest<HTMLElement>(`${rowTag}[data-window-key]`);
      focused.current = row?.dataset.windowKey ?? null;
      pinFocused(rangeRef.current);
      // The keyboard is in the rows: the window reaches as far as for scrolling.
      if (fresh.current) {
        fresh.current = false;
        place(false);
      }
    },
    [rowTag, pinFocused, place],
  );
  const onBlur = useCallback((e: FocusEvent<HTMLElement>) => {
    if (e.currentTarget.contains(e.relatedTarget as Node | null)) return;
    focused.current = null;
    setFocusedKey(null);
  }, []);

  const printing = usePrinting();
  const shown = useMemo(() => (printing ? { start: 0, end: rowCount - 1 } : range), [printing, range, rowCount]);
  return { tableRef, range: shown, focusedKey, onFocus, onBlur, heightOf };
}

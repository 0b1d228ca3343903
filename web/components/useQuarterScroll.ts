import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';

/** How the roadmap's panel shows its quarters: how many lie off-screen on each side. */
export interface QuarterView {
  /** Quarters scrolled out of view to the left (under the Aspect column, which stays in place). */
  before: number;
  /** Quarters out of view to the right, the last one in part included. */
  after: number;
  /** Whether the panel is scrolled sideways at all (the description can be out of view too). */
  scrolled: boolean;
  /** Where the quarters' view begins within the panel: the right edge of the Aspect column. */
  quartersLeft: number;
  /** The panel's scrollbars, so that the edge fade does not cover them. */
  scrollbarRight: number;
  scrollbarBottom: number;
}

const NONE: QuarterView = { before: 0, after: 0, scrolled: false, quartersLeft: 0, scrollbarRight: 0, scrollbarBottom: 0 };

/** Sub-pixel positions after a scroll can leave a column a fraction of a pixel past an edge. */
const SLACK = 1;

function measure(panel: HTMLElement) {
  const box = panel.getBoundingClientRect();
  // The Aspect column is sticky: a quarter under it is out of view.
  const left = panel.querySelector('thead .roadmap-aspect-col')?.getBoundingClientRect().right ?? box.left;
  const right = box.left + panel.clientLeft + panel.clientWidth;
  const columns = [...panel.querySelectorAll('thead .roadmap-bucket-col')].map((th) => th.getBoundingClientRect());
  return { box, left, right, columns };
}

function same(a: QuarterView, b: QuarterView) {
  return (
    a.before === b.before &&
    a.after === b.after &&
    a.scrolled === b.scrolled &&
    a.quartersLeft === b.quartersLeft &&
    a.scrollbarRight === b.scrollbarRight &&
    a.scrollbarBottom === b.scrollbarBottom
  );
}

/**
 * The roadmap's quarters scroll sideways in the table's panel. This follows which of them are out
 * of view, so the page can say so, and moves the panel one quarter at a time: from the Previous and
 * Next quarter buttons, and from the arrow keys while the panel itself has the focus.
 */
export function useQuarterScroll(quarterCount: number) {
  const panelRef = useRef<HTMLDivElement>(null);
  const [view, setView] = useState<QuarterView>(NONE);
  const lastLeft = useRef(-1);

  const update = useCallback(() => {
    const panel = panelRef.current;
    if (!panel) return;
    lastLeft.current = panel.scrollLeft;
    const { box, left, right, columns } = measure(panel);
    const next: QuarterView = {
      before: columns.filter((c) => c.left < left - SLACK).length,
      after: columns.filter((c) => c.right > right + SLACK).length,
      scrolled: panel.scrollLeft > 0,
      quartersLeft: Math.round(left - box.left),
      scrollbarRight: panel.offsetWidth - panel.clientWidth - 2 * panel.clientLeft,
      scrollbarBottom: panel.offsetHeight - panel.clientHeight - 2 * panel.clientTop,
    };
    setView((prev) => (same(prev, next) ? prev : next));
  }, []);

  // Scrolling down the rows (the common case, hundreds of rows) measures nothing.
  const onScroll = useCallback(() => {
    if (panelRef.current && panelRef.current.scrollLeft !== lastLeft.current) update();
  }, [update]);

  useEffect(() => {
    const panel = panelRef.current;
    if (!panel) return;
    update();
    const table = panel.querySelector('table');
    const observer = new ResizeObserver(update);
    observer.observe(panel);
    if (table) observer.observe(table);
    // Shift with the wheel scrolls the panel sideways natively (no wheel listener: one that may
    // cancel would hold every scroll of hundreds of rows until the page's script answers).
    return () => observer.disconnect();
  }, [update, quarterCount]);

  /** Brings the first quarter out of view on the right fully into view. */
  const next = useCallback(() => {
    const panel = panelRef.current;
    if (!panel) return;
    const { right, columns } = measure(panel);
    const target = columns.find((c) => c.right > right + SLACK);
    if (target) panel.scrollLeft += Math.ceil(target.right - right);
  }, []);

  /** Brings the last quarter out of view on the left fully into view, else back to the start. */
  const previous = useCallback(() => {
    const panel = panelRef.current;
    if (!panel) return;
    const { left, columns } = measure(panel);
    const target = columns.filter((c) => c.left < left - SLACK).at(-1);
    panel.scrollLeft = target ? panel.scrollLeft - Math.ceil(left - target.left) : 0;
  }, []);

  // The arrow keys move a quarter at a time while the panel itself has the focus (not a button in it).
  const onKeyDown = useCallback(
    (event: KeyboardEvent<HTMLElement>) => {
      if (event.target !== event.currentTarget || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      if (event.key === 'ArrowRight') next();
      else if (event.key === 'ArrowLeft') previous();
      else return;
      event.preventDefault();
    },
    [next, previous],
  );

  return { panelRef, view, onScroll, onKeyDown, next, previous };
}

/** quarters(3, 'more'): '3 more quarters'; quarters(1, 'earlier'): '1 earlier quarter'. */
export const quarters = (n: number, word = '') => `${n} ${word ? `${word} ` : ''}${n === 1 ? 'quarter' : 'quarters'}`;

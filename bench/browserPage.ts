/**
 * The page side of the browser figures (bench/browser.ts): the instrumentation added to every page
 * before its scripts run, and the scroll measured inside the page.
 */
import type { Page } from '@playwright/test';

/** What the page records; read back with page.evaluate. */
export interface LoadTimes {
  responseEnd: number;
  rendered: number;
  painted: number;
  clicked: number;
  dialogPainted: number;
}

export interface Settled {
  /** When the change started: the debounce timer fired, or the click's event time. */
  start: number;
  committed: number;
  painted: number;
}

export interface ScrollFrames {
  frames: number[];
  distance: number;
  longAnimationFrames: number;
  /** Frames in which the viewport showed an empty gap where rows should be. */
  gapFrames: number;
}

export interface PageConfig {
  debounceMs: number;
  loadRows: number;
}

/**
 * Runs in every document before the app's own scripts. Defines window.__bench: a watcher that
 * resolves when a condition on the DOM holds after a mutation, a "painted" helper, and a
 * setTimeout wrapper that records when the search's debounce timer fires.
 */
export function instrument(config: PageConfig) {
  type Bench = Record<string, any>;
  const w = window as unknown as { __bench: Bench };
  const bench: Bench = { debounceFiredAt: undefined as number | undefined, lastInputAt: -Infinity };
  w.__bench = bench;

  const painted = () => new Promise<number>((resolve) => requestAnimationFrame(() => setTimeout(() => resolve(performance.now()), 0)));
  bench.painted = painted;
  // The aspects the table holds, in the page or not: its aria-rowcount less the heading row and the category rows.
  bench.rowCount = () => {
    const table = document.querySelector('[data-testid="roadmap-table"]');
    const count = Number(table?.getAttribute('aria-rowcount') ?? 0);
    return count ? count - 1 - table!.querySelectorAll('tr.roadmap-category-row').length : 0;
  };
  // Gaps (rows not in the page, see web/components/useRowWindow.ts) inside the viewport.
  bench.gapsInView = () =>
    [...document.querySelectorAll('tr.roadmap-gap')].filter((row) => {
      const r = row.getBoundingClientRect();
      return r.bottom > 0 && r.top < innerHeight;
    }).length;

  // The search input's debounce: a timer of exactly SEARCH_DEBOUNCE_MS set right after an input event.
  document.addEventListener('input', () => (bench.lastInputAt = performance.now()), true);
  const nativeSetTimeout = window.setTimeout.bind(window);
  (window as any).setTimeout = (handler: unknown, delay?: number, ...args: unknown[]) => {
    if (typeof handler === 'function' && delay === config.debounceMs && performance.now() - bench.lastInputAt < 100) {
      const wrapped = (...a: unknown[]) => {
        bench.debounceFiredAt = performance.now();
        return (handler as (...x: unknown[]) => unknown)(...a);
      };
      return nativeSetTimeout(wrapped, delay, ...args);
    }
    return nativeSetTimeout(handler as TimerHandler, delay, ...args);
  };

  /** Resolves with the time of the first DOM change after which `ready()` holds (checked at once too). */
  bench.when = (ready: () => boolean) =>
    new Promise<number>((resolve) => {
      if (ready()) return resolve(performance.now());
      const observer = new MutationObserver(() => {
        if (!ready()) return;
        observer.disconnect();
        resolve(performance.now());
      });
      observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
    });

  // Long animation frames (Chromium's LoAF entries), counted per phase.
  bench.longFrames = [] as { start: number; duration: number; blocking: number }[];
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as (PerformanceEntry & { blockingDuration?: number })[]) {
        bench.longFrames.push({ start: e.startTime, duration: e.duration, blocking: e.blockingDuration ?? 0 });
      }
    }).observe({ type: 'long-animation-frame', buffered: true });
  } catch {
    // Browsers without LoAF: the frame counts below still come from requestAnimationFrame.
  }

  // The load measure arms itself on the catalog page: table with every row, painted, then a click.
  if (location.pathname.startsWith('/catalog/')) {
    bench.load = (async () => {
      const rendered = await bench.when(() => bench.rowCount() >= config.loadRows);
      const paintedAt = await painted();
      const button = document.querySelector<HTMLButtonElement>('[data-testid="aspect-row"] .roadmap-title-button');
      if (!button) throw new Error('no aspect title button');
      const clicked = performance.now();
      button.click();
      await bench.when(() => document.querySelector('[role="dialog"]') !== null);
      const dialogPainted = await painted();
      const entry = performance.getEntriesByType('resource').find((e) => /\/api\/services\/[^/]+\/full$/.test(new URL(e.name).pathname)) as
        PerformanceResourceTiming | undefined;
      if (!entry) throw new Error('no resource timing for /full');
      return { responseEnd: entry.responseEnd, rendered, painted: paintedAt, clicked, dialogPainted };
    })();
  }
}

/** Scrolls the page from top to bottom, `step` pixels per frame, and answers every frame's duration. */
export function scroll(page: Page, step: number): Promise<ScrollFrames> {
  return page.evaluate(async (px) => {
    const b = (window as any).__bench;
    // The table's own panel (web/components/RoadmapTable.css), from the top of the page.
    document.scrollingElement!.scrollTop = 0;
    const el = document.querySelector<HTMLElement>('.roadmap-scroll')!;
    el.scrollTop = 0;
    await b.painted();
    const firstLong = b.longFrames.length;
    const stamps: number[] = [];
    let gapFrames = 0;
    const start = performance.now();
    await new Promise<void>((resolve) => {
      const frame = (t: number) => {
        stamps.push(t);
        if (b.gapsInView() > 0) gapFrames++;
        if (el.scrollTop + el.clientHeight >= el.scrollHeight - 1) return resolve();
        el.scrollTop += px;
        requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    });
    await b.painted();
    const long = (b.longFrames as { start: number; duration: number }[]).slice(firstLong).filter((f) => f.start >= start && f.duration > 50);
    return { frames: stamps.slice(1).map((t, i) => t - stamps[i]!), distance: el.scrollTop, longAnimationFrames: long.length, gapFrames };
  }, step);
}

/**
 * The page side of the list figures (bench/lists.ts): added to every page before its scripts run.
 *
 * - shown: the first frame painted after every one of `firstTexts` is in the page's main region as
 *   the whole text of an element with a box (laid out, not hidden): the list's first row. Taken
 *   from performance.now(), whose origin is the navigation's start.
 * - keystroke: from a key's keydown (its event time) to the list settled. Settled: no search
 *   debounce timer pending, no fetch under way and no DOM change for QUIET_MS; the time is that of
 *   the first frame painted after the last DOM change (or after the key, when nothing changed),
 *   less the time spent waiting on the debounce timer (a timer of exactly SEARCH_DEBOUNCE_MS set
 *   within 500 ms of an input event, from its setting to its firing). Also answered: the key to the
 *   first frame painted after it (what typing feels like while the page works).
 *
 * "Painted" is a requestAnimationFrame callback then a task queued from it, which runs once that
 * frame's style, layout and paint are done (as in bench/browserPage.ts).
 */

export interface ListPageConfig {
  debounceMs: number;
  firstTexts: string[];
  quietMs: number;
}

export interface KeyTimes {
  /** Key down to the list settled, less the debounce wait (ms). */
  settled: number;
  /** Key down to the first frame painted after it (ms). */
  input: number;
  /** Time spent waiting on the search's debounce timer (ms). */
  debounce: number;
  /** Whether the DOM changed at all. */
  changed: boolean;
  /** Fetches started between the key and the list settled. */
  fetches: number;
  timedOut: boolean;
}

export function listInstrument(config: ListPageConfig) {
  const w = window as unknown as { __lists: Record<string, any> };
  const nativeSetTimeout = window.setTimeout.bind(window);
  const nativeClearTimeout = window.clearTimeout.bind(window);
  const b: Record<string, any> = {
    lastInputAt: -Infinity,
    pending: new Map<number, number>(),
    /** The [set, fired] times of the debounce timers that fired since the last key. */
    fired: [] as [number, number][],
    lastDebounceFired: -Infinity,
    inflight: 0,
    fetches: 0,
    lastFetchEnd: -Infinity,
    lastMutation: -Infinity,
    paintedAfterMutation: undefined as number | undefined,
    apiCalls: [] as string[],
  };
  w.__lists = b;
  const painted = () => new Promise<number>((resolve) => requestAnimationFrame(() => nativeSetTimeout(() => resolve(performance.now()), 0)));
  b.painted = painted;

  // The search's debounce timer: set right after an input event, with the debounce's delay.
  document.addEventListener('input', () => (b.lastInputAt = performance.now()), true);
  (window as any).setTimeout = (handler: unknown, delay?: number, ...args: unknown[]) => {
    if (typeof handler === 'function' && delay === config.debounceMs && performance.now() - b.lastInputAt < 500) {
      const setAt = performance.now();
      const id: number = nativeSetTimeout(
        (...a: unknown[]) => {
          b.pending.delete(id);
          b.fired.push([setAt, performance.now()]);
          b.lastDebounceFired = performance.now();
          return (handler as (...x: unknown[]) => unknown)(...a);
        },
        delay,
        ...args,
      );
      b.pending.set(id, setAt);
      return id;
    }
    return nativeSetTimeout(handler as TimerHandler, delay, ...args);
  };
  (window as any).clearTimeout = (id?: number) => {
    if (id !== undefined) b.pending.delete(id);
    return nativeClearTimeout(id);
  };

  // Fetches under way, and the API calls the page made (path and query).
  const nativeFetch = window.fetch.bind(window);
  window.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const u = new URL(url, location.href);
    if (u.pathname.startsWith('/api/')) b.apiCalls.push(u.pathname + u.search);
    b.inflight++;
    b.fetches++;
    try {
      const res = await nativeFetch(input, init);
      // A stream that stays open (the live updates' GET /api/events) is no request under way.
      if ((res.headers.get('content-type') ?? '').includes('text/event-stream') || !res.body) {
        b.inflight--;
        b.lastFetchEnd = performance.now();
        return res;
      }
      // The body is read by the caller; count the call done once it has been.
      const clone = res.clone();
      clone
        .arrayBuffer()
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => {
          b.inflight--;
          b.lastFetchEnd = performance.now();
        });
      return res;
    } catch (err) {
      b.inflight--;
      b.lastFetchEnd = performance.now();
      throw err;
    }
  }) as typeof fetch;

  const observe = () => {
    new MutationObserver(() => {
      const t = performance.now();
      b.lastMutation = t;
      void painted().then((p) => {
        if (b.lastMutation === t) b.paintedAfterMutation = p;
      });
    }).observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
  };
  observe();

  /** The element whose whole text is `text`, inside the main region, with a box; null when none. */
  const shownText = (text: string): boolean => {
    const root = document.querySelector('main') ?? document.body;
    if (!root) return false;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.nodeValue?.trim() !== text) continue;
      const el = n.parentElement;
      if (!el) continue;
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) return true;
    }
    return false;
  };
  b.shownText = shownText;

  /** Resolves with the first DOM change's time after which `ready()` holds (checked at once too). */
  const when = (ready: () => boolean) =>
    new Promise<number>((resolve) => {
      const check = () => {
        if (!ready()) return false;
        resolve(performance.now());
        return true;
      };
      if (document.documentElement && check()) return;
      const observer = new MutationObserver(() => {
        if (check()) observer.disconnect();
      });
      observer.observe(document, { childList: true, subtree: true, characterData: true, attributes: true });
    });

  b.shown = (async () => {
    const found = await when(() => config.firstTexts.every(shownText));
    return { found, painted: await painted() };
  })();

  /** Resolves once no debounce is pending, no fetch is under way and the DOM has not changed for quietMs. */
  b.idle = (since: number, limitMs = 20_000) =>
    new Promise<boolean>((resolve) => {
      const started = performance.now();
      const check = () => {
        const now = performance.now();
        const last = Math.max(b.lastMutation, b.lastFetchEnd, b.lastDebounceFired, since);
        if (b.pending.size === 0 && b.inflight === 0 && now - last >= config.quietMs) return resolve(true);
        if (now - started > limitMs) return resolve(false);
        nativeSetTimeout(check, 10);
      };
      nativeSetTimeout(check, 10);
    });

  /** Arms the measure of the next key pressed. */
  b.keystroke = () =>
    new Promise<Record<string, unknown>>((resolve) => {
      document.addEventListener(
        'keydown',
        (e) => {
          const t0 = e.timeStamp;
          b.fired = [];
          b.lastMutation = -Infinity;
          b.paintedAfterMutation = undefined;
          const fetchesBefore = b.fetches;
          const inputPainted = painted();
          void (async () => {
            const ok = await b.idle(t0);
            const changed = b.lastMutation > t0;
            const end: number = changed ? (b.paintedAfterMutation ?? (await painted())) : await inputPainted;
            // The wait on the debounce: the time during which at least one of its timers that fired was pending.
            let wait = 0;
            let reach = -Infinity;
            for (const [from, to] of (b.fired as [number, number][]).sort((x, y) => x[0] - y[0])) {
              const start = Math.max(from, reach);
              if (to > start) wait += to - start;
              reach = Math.max(reach, to);
            }
            resolve({ settled: end - t0 - wait, input: (await inputPainted) - t0, debounce: wait, changed, fetches: b.fetches - fetchesBefore, timedOut: !ok });
          })();
        },
        { capture: true, once: true },
      );
    });
}

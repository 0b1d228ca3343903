import { useEffect, useRef } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { authHeaders } from './client';
import { serviceKeys } from './services';
import { settingsKeys } from './settings';
import { storage } from './storage';

/*
 * Live updates (docs/decisions/0115-change-stream.md): every signed-in page follows GET /api/events
 * and reads again, with its own rights, what a colleague's change touched. EventSource cannot send
 * the bearer token, so the stream is read with fetch and parsed here.
 */

/** What the server's events carry: the kind of record and the ids concerned, never any content. */
export type LiveEvent =
  | { type: 'catalog'; record: string; services: string[] | null }
  | { type: 'access'; record: string; users: string[] | null }
  | { type: 'resync' }
  | { type: 'ended' };

/** One event of the stream as the Server-Sent Events format defines it. */
export interface SseMessage {
  id: string;
  event: string;
  data: string;
}

/**
 * A Server-Sent Events parser (the WHATWG format): lines end in LF, CR or CRLF; `:` starts a
 * comment; `data` lines join with a line feed; `id` is remembered for the next connection; `retry`
 * is the delay the server asks for before reconnecting.
 */
export class SseParser {
  lastEventId = '';
  retry: number | null = null;
  private buffer = '';
  private pendingCr = false;
  private data: string[] = [];
  private event = '';
  private id: string | null = null;

  constructor(private readonly dispatch: (message: SseMessage) => void) {}

  feed(chunk: string): void {
    let text = chunk;
    // A CR at the end of the previous chunk may be the first half of a CRLF.
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const c = this.buffer[i];
      if (c !== '\n' && c !== '\r') continue;
      this.line(this.buffer.slice(start, i));
      if (c === '\r') {
        if (i + 1 === this.buffer.length) this.pendingCr = true;
        else if (this.buffer[i + 1] === '\n') i++;
      }
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
  }

  private line(line: string): void {
    if (line === '') return this.end();
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        break;
      case 'event':
        this.event = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.id = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
    }
  }

  /** A blank line ends an event. */
  private end(): void {
    if (this.id !== null) this.lastEventId = this.id;
    const message = { id: this.lastEventId, event: this.event || 'message', data: this.data.join('\n') };
    const hasData = this.data.length > 0;
    this.data = [];
    this.event = '';
    this.id = null;
    if (hasData) this.dispatch(message);
  }
}

/** Reconnection: 1 s doubling to 30 s, each wait drawn between half and all of it so that browsers do not return together. */
export function backoffDelay(attempt: number, base = 1000): number {
  const ceiling = Math.min(30_000, base * 2 ** attempt);
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

/** Two missed keep-alives (every 20 s): the connection is dead even if nobody closed it. */
const SILENCE_MS = 45_000;

export interface StreamHandlers {
  onEvent: (event: LiveEvent) => void;
  /** The stream was opened again after a break that no Last-Event-ID could cover: anything may have changed. */
  onGap: () => void;
  /** The server refused the stream (401, 403) or said the caller's access ended. */
  onEnded: () => Promise<void>;
}

/**
 * Follows the event stream until `signal` aborts: reconnects with backoff, resumes from the last
 * event received, and hands over each event.
 */
export async function followEvents(signal: AbortSignal, handlers: StreamHandlers): Promise<void> {
  let lastEventId = '';
  let attempt = 0;
  let retryBase = 1000;
  let connectedBefore = false;
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });

  while (!signal.aborted) {
    const attemptAbort = new AbortController();
    const stop = () => attemptAbort.abort();
    signal.addEventListener('abort', stop, { once: true });
    let silence: ReturnType<typeof setTimeout> | undefined;
    const listen = () => {
      clearTimeout(silence);
      silence = setTimeout(stop, SILENCE_MS);
    };
    let ended = false;
    try {
      const headers: Record<string, string> = { ...authHeaders(), Accept: 'text/event-stream' };
      if (lastEventId) headers['Last-Event-ID'] = lastEventId;
      listen();
      const res = await fetch('/api/events', { headers, signal: attemptAbort.signal, cache: 'no-store' });
      if (res.status === 401 || res.status === 403) {
        ended = true;
        await res.body?.cancel().catch(() => undefined);
      } else if (res.ok && res.body) {
        const parser = new SseParser((message) => {
          if (message.event === 'ended') {
            ended = true;
            stop();
            return;
          }
          try {
            handlers.onEvent(JSON.parse(message.data) as LiveEvent);
          } catch {
            /* not an event of ours: nothing to read again */
          }
        });
        parser.lastEventId = lastEventId;
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let first = true;
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          listen();
          if (first) {
            first = false;
            attempt = 0;
            // Without an event to resume from, what changed while the stream was away is unknown.
            if (connectedBefore && !lastEventId) handlers.onGap();
            connectedBefore = true;
          }
          parser.feed(value);
          lastEventId = parser.lastEventId;
          if (parser.retry !== null) retryBase = parser.retry;
        }
      }
    } catch {
      /* a network failure, a proxy's timeout, a silent connection: tried again below */
    } finally {
      clearTimeout(silence);
      signal.removeEventListener('abort', stop);
      attemptAbort.abort();
    }
    if (signal.aborted) return;
    if (ended) await handlers.onEnded();
    if (signal.aborted) return;
    await wait(backoffDelay(attempt++, retryBase));
  }
}

/**
 * The page may be ending this session itself (Log Out, stopping an impersonation), and the stream
 * hears of it before the page's own answer arrives: the end is checked only after this moment, and
 * not at all once the page holds another token.
 */
const ENDED_GRACE_MS = 750;

/** How long events are collected before the pages read again: a paste of a hundred cells is one refetch. */
const DEBOUNCE_MS = 150;

/** What a burst of events asks to read again. */
interface Pending {
  everything: boolean;
  allServices: boolean;
  services: Set<string>;
  serviceLists: boolean;
  access: boolean;
}

const nothingPending = (): Pending => ({ everything: false, allServices: false, services: new Set(), serviceLists: false, access: false });

/** Marks the queries an event concerns. */
export function collect(pending: Pending, event: LiveEvent): void {
  switch (event.type) {
    case 'resync':
      pending.everything = true;
      break;
    case 'catalog':
      if (event.services === null) pending.allServices = true;
      else for (const id of event.services) pending.services.add(id);
      if (event.record === 'service') pending.serviceLists = true;
      break;
    case 'access':
      pending.access = true;
      break;
  }
}

/**
 * Reads again the queries a burst of events concerns. Only those on screen refetch (TanStack's
 * 'active'); the others are marked stale and read when next shown.
 */
export function invalidate(client: QueryClient, pending: Pending): Promise<unknown> {
  if (pending.everything) return client.invalidateQueries();
  const keys: (readonly unknown[])[] = [];
  if (pending.allServices) keys.push(serviceKeys.all);
  else {
    for (const id of pending.services) keys.push(serviceKeys.full(id), settingsKeys.data(id), settingsKeys.snapshots(id));
    if (pending.serviceLists) keys.push([...serviceKeys.all, 'list'], [...serviceKeys.all, 'pages']);
  }
  if (pending.access) {
    // Memberships and assignments change who sees which service and may do what on it.
    keys.push(serviceKeys.all, ['tenant-users'], ['admin']);
  }
  // Every write is in the audit log.
  if (keys.length) keys.push(['audit']);
  return Promise.all(keys.map((queryKey) => client.invalidateQueries({ queryKey })));
}

export interface LiveUpdatesOptions {
  /** The stream opens again whenever the token or the tenant changes; nothing is followed without a token. */
  token: string | null;
  tenantSlug: string | null;
  /** The person's own access changed: the session is read again. */
  onAccessChanged: () => void;
  /** The person's access ended (or the stream was refused): the session is checked, which signs out or sends back. */
  onEnded: () => Promise<void>;
}

/** Follows the live updates of the tenant in use while signed in. Mounted once, by the session provider. */
export function useLiveUpdates({ token, tenantSlug, onAccessChanged, onEnded }: LiveUpdatesOptions): void {
  const client = useQueryClient();
  const callbacks = useRef({ onAccessChanged, onEnded });
  callbacks.current = { onAccessChanged, onEnded };

  useEffect(() => {
    if (!token) return;
    const controller = new AbortController();
    let pending = nothingPending();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      timer = undefined;
      const burst = pending;
      pending = nothingPending();
      void invalidate(client, burst);
      if (burst.access || burst.everything) callbacks.current.onAccessChanged();
    };
    const hear = (event: LiveEvent) => {
      collect(pending, event);
      timer ??= setTimeout(flush, DEBOUNCE_MS);
    };
    void followEvents(controller.signal, {
      onEvent: hear,
      onGap: () => hear({ type: 'resync' }),
      onEnded: async () => {
        await new Promise((resolve) => setTimeout(resolve, ENDED_GRACE_MS));
        if (controller.signal.aborted || storage.getToken() !== token) return;
        await callbacks.current.onEnded();
      },
    });
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [client, token, tenantSlug]);
}

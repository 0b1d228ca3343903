import { request, type ClientRequest, type IncomingMessage } from 'node:http';

export interface SseEvent {
  id?: string;
  event: string;
  data: any;
}

/** A Server-Sent Events stream read as a browser would, for tests. */
export interface SseStream {
  status: number;
  headers: IncomingMessage['headers'];
  events: SseEvent[];
  /** Every byte received, to check what the stream never carried. */
  raw(): string;
  /** The first event received (from index `from` on) that `match` accepts, waiting for it when there is none yet. */
  next(match: (e: SseEvent) => boolean, timeoutMs?: number, from?: number): Promise<SseEvent>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Opens GET /api/events on a running server with a token, a tenant and, when resuming, a Last-Event-ID. */
export function openEvents(base: string, token: string, opts: { tenant?: string; lastEventId?: string } = {}): Promise<SseStream> {
  const headers: Record<string, string> = { accept: 'text/event-stream', authorization: `Bearer ${token}` };
  if (opts.tenant) headers['x-tenant-slug'] = opts.tenant;
  if (opts.lastEventId) headers['last-event-id'] = opts.lastEventId;
  return new Promise((resolve, reject) => {
    let req: ClientRequest | undefined = undefined;
    req = request(`${base}/api/events`, { headers }, (res) => {
      const events: SseEvent[] = [];
      const waiters: Array<() => void> = [];
      let text = '';
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let id: string | undefined;
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length) events.push({ id, event, data: JSON.parse(data.join('\n')) });
        }
        for (const w of waiters.splice(0)) w();
      });
      const ended = new Promise<void>((done) => res.on('close', () => done()));
      const stream: SseStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        raw: () => text,
        ended,
        close: () => req!.destroy(),
        next: (match, timeoutMs = 5000, from = 0) =>
          new Promise((found, fail) => {
            const timer = setTimeout(() => fail(new Error(`no matching event within ${timeoutMs} ms; received ${JSON.stringify(events)}`)), timeoutMs);
            const check = () => {
              const hit = events.slice(from).find(match);
              if (hit) {
                clearTimeout(timer);
                found(hit);
              } else waiters.push(check);
            };
            check();
          }),
      };
      if (res.statusCode !== 200) {
        res.resume();
        res.on('end', () => resolve(stream));
      } else resolve(stream);
    });
    req.on('error', reject);
    req.end();
  });
}

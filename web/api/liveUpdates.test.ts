import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import { SseParser, backoffDelay, collect, followEvents, invalidate, type LiveEvent, type SseMessage } from './liveUpdates';

const parse = (...chunks: string[]) => {
  const messages: SseMessage[] = [];
  const parser = new SseParser((m) => messages.push(m));
  for (const chunk of chunks) parser.feed(chunk);
  return { messages, parser };
};

describe('SseParser', () => {
  it('reads ids, event names, multi-line data, comments and retry', () => {
    const { messages, parser } = parse('retry: 1000\n: stream of abc\n\nid: a-1\nevent: catalog\ndata: {"a":\ndata: 1}\n\n: keep-alive\n\n');
    expect(messages).toEqual([{ id: 'a-1', event: 'catalog', data: '{"a":\n1}' }]);
    expect(parser.retry).toBe(1000);
    expect(parser.lastEventId).toBe('a-1');
  });

  it('takes CRLF and CR line ends, split anywhere between chunks', () => {
    const text = 'id: a-2\r\nevent: access\r\ndata: x\r\n\r\nid: a-3\rdata: y\r\r';
    for (let cut = 0; cut <= text.length; cut++) {
      const { messages } = parse(text.slice(0, cut), text.slice(cut));
      expect(messages, `cut at ${cut}`).toEqual([
        { id: 'a-2', event: 'access', data: 'x' },
        { id: 'a-3', event: 'message', data: 'y' },
      ]);
    }
  });

  it('dispatches nothing before the blank line, and keeps the last id for events without one', () => {
    const { messages } = parse('id: a-4\ndata: one\n\nevent: ended\ndata: {"type":"ended"}');
    expect(messages).toEqual([{ id: 'a-4', event: 'message', data: 'one' }]);
    const ended = parse('id: a-4\ndata: one\n\nevent: ended\ndata: {}\n\n').messages[1];
    expect(ended).toEqual({ id: 'a-4', event: 'ended', data: '{}' });
  });
});

describe('backoffDelay', () => {
  it('doubles from 1 s to at most 30 s, drawn between half and all of it', () => {
    for (let attempt = 0; attempt < 10; attempt++) {
      const ceiling = Math.min(30_000, 1000 * 2 ** attempt);
      const delay = backoffDelay(attempt);
      expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
      expect(delay).toBeLessThanOrEqual(ceiling);
    }
  });
});

describe('invalidate', () => {
  const keysInvalidated = async (events: LiveEvent[]) => {
    const client = new QueryClient();
    const spy = vi.spyOn(client, 'invalidateQueries');
    const pending = { everything: false, allServices: false, services: new Set<string>(), serviceLists: false, access: false };
    for (const event of events) collect(pending, event);
    await invalidate(client, pending);
    return spy.mock.calls.map(([filters]) => filters?.queryKey ?? 'everything');
  };

  it("reads again the named services' catalogs and settings, the lists only for a service record", async () => {
    const cells = Array.from({ length: 100 }, () => ({ type: 'catalog' as const, record: 'availability', services: ['s1'] }));
    expect(await keysInvalidated(cells)).toEqual([['services', 'full', 's1'], ['services', 'settings', 's1'], ['services', 'snapshots', 's1'], ['audit']]);
    const renamed = await keysInvalidated([{ type: 'catalog', record: 'service', services: ['s2'] }]);
    expect(renamed).toContainEqual(['services', 'list']);
    expect(renamed).toContainEqual(['services', 'pages']);
  });

  it('reads every catalog for a change of any service, the access lists for access, everything for a resync', async () => {
    expect(await keysInvalidated([{ type: 'catalog', record: 'category', services: null }])).toEqual([['services'], ['audit']]);
    expect(await keysInvalidated([{ type: 'access', record: 'membership', users: ['u1'] }])).toEqual([['services'], ['tenant-users'], ['admin'], ['audit']]);
    expect(await keysInvalidated([{ type: 'resync' }])).toEqual(['everything']);
  });
});

describe('followEvents', () => {
  const store = new Map<string, string>([['token', 't0']]);
  beforeEach(() => {
    vi.stubGlobal('localStorage', { getItem: (k: string) => store.get(k) ?? null, setItem: () => undefined, removeItem: () => undefined });
    vi.spyOn(Math, 'random').mockReturnValue(0);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  const streamOf = (text: string) =>
    new Response(new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode(text)), c.close()) }), { status: 200 });

  it('resumes from the last event after the stream ends, and stops when aborted', async () => {
    const controller = new AbortController();
    const sent: Array<Record<string, string>> = [];
    const answers = [
      streamOf('retry: 10\n\nid: b-1\nevent: catalog\ndata: {"type":"catalog","record":"aspect","services":["s1"]}\n\n'),
      streamOf('retry: 10\n\nid: b-2\nevent: resync\ndata: {"type":"resync"}\n\n'),
    ];
    vi.stubGlobal('fetch', async (_url: string, init: RequestInit) => {
      sent.push(init.headers as Record<string, string>);
      const next = answers.shift();
      if (!next) controller.abort();
      return next ?? new Response(null, { status: 503 });
    });
    const events: LiveEvent[] = [];
    await followEvents(controller.signal, { onEvent: (e) => events.push(e), onGap: () => undefined, onEnded: async () => undefined });
    expect(events.map((e) => e.type)).toEqual(['catalog', 'resync']);
    expect(sent[0]).toMatchObject({ Authorization: 'Bearer t0', Accept: 'text/event-stream' });
    expect(sent[0]).not.toHaveProperty('Last-Event-ID');
    expect(sent[1]).toMatchObject({ 'Last-Event-ID': 'b-1' });
    expect(sent[2]).toMatchObject({ 'Last-Event-ID': 'b-2' });
  });

  it('reports a gap when a stream broke before any event, and the end of access on ended or 401', async () => {
    const controller = new AbortController();
    const answers = [streamOf('retry: 10\n\n'), streamOf('retry: 10\n\nevent: ended\ndata: {"type":"ended"}\n\n'), new Response(null, { status: 401 })];
    vi.stubGlobal('fetch', async () => answers.shift() ?? (controller.abort(), new Response(null, { status: 503 })));
    let gaps = 0;
    let ends = 0;
    await followEvents(controller.signal, { onEvent: () => undefined, onGap: () => gaps++, onEnded: async () => void ends++ });
    expect(gaps).toBe(1);
    expect(ends).toBe(2);
  });
});

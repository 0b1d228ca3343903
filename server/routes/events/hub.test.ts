import type { ServerResponse } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChangeFeed } from '../../db/changes';
import type { Actor } from '../../plugins/context';
import { HEARTBEAT_MS, LiveHub } from './hub';

/**
 * What keeps a page's stream alive and whole between the events (docs/decisions/0115-change-stream.md):
 * a comment often enough that a proxy's idle timeout never closes it, and a full reload for every
 * page when the process could not hear the database for a moment.
 */
describe('the live hub of one process', () => {
  let feed: ChangeFeed;
  let hub: LiveHub;
  let written: string;

  beforeEach(() => {
    vi.useFakeTimers();
    feed = new ChangeFeed();
    hub = new LiveHub(feed);
    written = '';
    const res = {
      write: (text: string) => ((written += text), true),
      end: () => undefined,
      on: () => undefined,
      writableEnded: false,
    } as unknown as ServerResponse;
    const actor = { userId: 'user-1', superAdmin: false, impersonator: null } as unknown as Actor;
    hub.add({ req: {} as FastifyRequest, res, actor, tenantId: 'tenant-1', recheck: async () => true }, undefined);
  });
  afterEach(() => {
    hub.closeAll();
    vi.useRealTimers();
  });

  it('asks the browser to come back after a second, and keeps an idle stream open with a comment every 20 s', () => {
    expect(written).toContain('retry: 1000\n');
    const comments = () => written.split(': keep-alive\n\n').length - 1;
    vi.advanceTimersByTime(HEARTBEAT_MS - 1);
    expect(comments()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(comments()).toBe(1);
    vi.advanceTimersByTime(3 * HEARTBEAT_MS);
    expect(comments()).toBe(4);
    // Fewer than a minute between two of them: a proxy timeout of a minute never closes the stream.
    expect(HEARTBEAT_MS).toBeLessThan(60_000);
  });

  it('tells every page to read everything again once the process hears the database again, since what it missed is unknown', async () => {
    feed.lost();
    await vi.advanceTimersByTimeAsync(1);
    expect(written).not.toContain('event: resync');
    feed.regained();
    // The caller's session is checked again first (anything may have changed): a moment later.
    await vi.advanceTimersByTimeAsync(1);
    expect(written).toMatch(/id: [0-9a-f]{12}-1\nevent: resync\ndata: \{"type":"resync"\}\n\n/);
  });
});

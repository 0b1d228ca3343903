import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { M } from '../../common/messages';
import { ApiError, messageOf, request } from './client';

describe('request', () => {
  beforeEach(() => {
    vi.stubGlobal('localStorage', { getItem: () => null, setItem: () => undefined, removeItem: () => undefined });
  });
  afterEach(() => vi.unstubAllGlobals());

  it('says in words that the server could not be reached when no answer came at all', async () => {
    const dropped = new TypeError('Failed to fetch');
    vi.stubGlobal('fetch', async () => {
      throw dropped;
    });
    const err = await request('/services').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(ApiError);
    expect(messageOf(err)).toBe(M.serverUnreachable);
    expect((err as Error).cause).toBe(dropped);
  });

  it('leaves a request its caller cancelled as the cancellation it is', async () => {
    const controller = new AbortController();
    vi.stubGlobal('fetch', async () => {
      controller.abort();
      throw controller.signal.reason;
    });
    const err = await request('/services', { signal: controller.signal }).catch((e: unknown) => e);
    expect(err).toBe(controller.signal.reason);
    expect((err as DOMException).name).toBe('AbortError');
  });

  it('words an answer with an error status from its body, else the fallback', async () => {
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify({ error: 'Service not found' }), { status: 404 }));
    const err = await request('/services/x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(404);
    expect(messageOf(err)).toBe('Service not found');
    vi.stubGlobal('fetch', async () => new Response('oops', { status: 500 }));
    expect(messageOf(await request('/services', { fallback: M.failedLoadServices }).catch((e: unknown) => e))).toBe(M.failedLoadServices);
  });
});

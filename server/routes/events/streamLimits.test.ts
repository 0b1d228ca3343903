import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_EVENT_STREAMS } from '../../../common/limits';
import { M } from '../../../common/messages';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createApiToken, createWorld, signIn, type World } from '../../test/factories';
import { openEvents, type SseStream } from '../../test/sse';
import { recordFigure } from '../../test/security/figures';

/**
 * An event stream ends with its credential (an API token revoked or expired, a session expired) and
 * one person or one API token holds at most MAX_EVENT_STREAMS of them (decision 0164). On a real
 * port: app.inject cannot hold a stream open.
 */
let t: TestApp;
let w: World;
let base: string;
const open: SseStream[] = [];
const follow = async (token: string) => {
  const stream = await openEvents(base, token);
  open.push(stream);
  return stream;
};
const ended = (s: SseStream, timeoutMs: number) => s.next((e) => e.event === 'ended', timeoutMs);

beforeAll(async () => {
  t = await buildTestApp({ LOGIN_THROTTLE: 'false' });
  w = await createWorld(t.app, t.db);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}, 60_000);
const figures: { revokedEndedMs?: number; tokenLimit?: string } = {};
afterAll(async () => {
  recordFigure(
    'event-streams',
    `a revoked API token's stream ended ${figures.revokedEndedMs} ms after the revocation; expired tokens' and sessions' at their expiry; per token and per person ${figures.tokenLimit}`,
    figures,
  );
  for (const s of open) s.close();
  await t.close();
});

describe('an event stream ends with its credential', () => {
  it("ends a revoked API token's streams within a second, and only that token's", async () => {
    const revoked = await createApiToken(t.db, w.tenant.id, { role: 'reader' });
    const kept = await createApiToken(t.db, w.tenant.id, { role: 'reader' });
    const doomed = await follow(revoked.secret);
    const staying = await follow(kept.secret);
    expect([doomed.status, staying.status]).toEqual([200, 200]);
    expect((await call(t.app, 'DELETE', `/api/api-tokens/${revoked.id}`, { token: w.tokens.admin })).statusCode).toBe(204);
    // The revocation is committed once the call has answered.
    const revokedAt = Date.now();
    await ended(doomed, 1000);
    figures.revokedEndedMs = Date.now() - revokedAt;
    await doomed.ended;
    // The other token's stream goes on and still hears its tenant.
    const service = await call(t.app, 'POST', '/api/services', { token: w.tokens.admin, body: { name: 'After the revocation', slug: 'after-revocation' } });
    expect(service.statusCode).toBe(201);
    await staying.next((e) => e.event === 'catalog' && e.data.record === 'service');
    expect(staying.events.some((e) => e.event === 'ended')).toBe(false);
  });

  it("ends an API token's streams when it expires", async () => {
    const expiresAt = new Date(Date.now() + 1500);
    const expiring = await createApiToken(t.db, w.tenant.id, { role: 'editor', expiresAt });
    const stream = await follow(expiring.secret);
    expect(stream.status).toBe(200);
    await ended(stream, 3000);
    // Expiries are held in whole seconds, rounded down.
    expect(Date.now()).toBeGreaterThanOrEqual(Math.floor(expiresAt.getTime() / 1000) * 1000);
    expect((await openEvents(base, expiring.secret)).status).toBe(401);
  });

  it("ends a session's streams when the session expires", async () => {
    const session = await t.app.tokens.sign({ sub: w.users.editor.id, ttlSeconds: 2 });
    const stream = await follow(session.token);
    expect(stream.status).toBe(200);
    await ended(stream, 4000);
  });
});

describe('open streams per person and per token', () => {
  it(`lets an API token hold ${MAX_EVENT_STREAMS} streams and answers the next 429 with Retry-After, until one closes`, async () => {
    const busy = await createApiToken(t.db, w.tenant.id, { role: 'reader' });
    const streams: SseStream[] = [];
    for (let i = 0; i < MAX_EVENT_STREAMS; i++) streams.push(await follow(busy.secret));
    expect(streams.map((s) => s.status)).toEqual(Array(MAX_EVENT_STREAMS).fill(200));
    const refused = await openEvents(base, busy.secret);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    figures.tokenLimit = `${MAX_EVENT_STREAMS} streams, the next 429 with Retry-After ${refused.headers['retry-after']}`;
    await refused.ended;
    expect(JSON.parse(refused.raw()).error).toBe(M.tooManyEventStreams);
    // Another token, and a person, are counted on their own.
    const other = await createApiToken(t.db, w.tenant.id, { role: 'reader' });
    expect((await follow(other.secret)).status).toBe(200);
    // Polling is no stream: it is always answered.
    expect((await call(t.app, 'GET', '/api/events', { token: busy.secret })).statusCode).toBe(200);
    streams[0]!.close();
    await vi.waitFor(
      async () => {
        const again = await follow(busy.secret);
        expect(again.status).toBe(200);
      },
      { timeout: 5000, interval: 100 },
    );
  });

  it(`counts a person's streams across their sessions`, async () => {
    const first = await signIn(t.app, w.users.reader.email);
    const second = await signIn(t.app, w.users.reader.email);
    for (let i = 0; i < MAX_EVENT_STREAMS; i++) expect((await follow(i % 2 ? first : second)).status).toBe(200);
    const refused = await openEvents(base, first);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect((await follow(w.tokens.editor)).status).toBe(200);
  });
});

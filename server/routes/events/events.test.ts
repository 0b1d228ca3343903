import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../db/schema';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { assignServiceRole, createService, createUser, signIn } from '../../test/factories';
import { openEvents, type SseStream } from '../../test/sse';
import { createCatalogWorld, type CatalogWorld } from '../services/catalog.fixtures';

/**
 * GET /api/events (docs/decisions/0115-change-stream.md) on a real port: app.inject cannot hold a
 * stream open. Run on the embedded database and, with TEST_DATABASE_URL, on PostgreSQL.
 */
describe('live updates', () => {
  let t: TestApp;
  let w: CatalogWorld;
  let base: string;
  const open: SseStream[] = [];
  const follow = async (token: string, opts: { tenant?: string; lastEventId?: string } = {}) => {
    const stream = await openEvents(base, token, opts);
    open.push(stream);
    return stream;
  };
  let quarter: string;

  beforeAll(async () => {
    t = await buildTestApp({ LOGIN_THROTTLE: 'false' });
    w = await createCatalogWorld(t);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    quarter = (w.service.timeline as string[])[0]!;
  }, 60_000);
  afterAll(async () => {
    for (const s of open) s.close();
    await t.close();
  });

  const setCell = (token: string, aspectId: string, value: string) =>
    call(t.app, 'POST', '/api/availabilities', { token, body: { aspectId, timeBucket: quarter, value } });

  it('tells every member of the tenant which service changed, and no one else', async () => {
    const reader = await follow(w.tokens.reader);
    const otherTenant = await follow(w.tokens.otherAdmin);
    expect(reader.status).toBe(200);
    expect(reader.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(reader.headers['cache-control']).toBe('no-store');
    expect(reader.headers['content-security-policy']).toContain("default-src 'self'");

    expect((await setCell(w.tokens.editor, w.publicAspect.id, 'Pilot')).statusCode).toBe(200);
    const event = await reader.next((e) => e.event === 'catalog' && e.data.record === 'availability');
    expect(event.data).toEqual({ type: 'catalog', record: 'availability', services: [w.service.id] });
    expect(event.id).toMatch(/^[0-9a-f]{12}-\d+$/);

    // A change in the other tenant reaches its members only.
    const foreignWrite = await call(t.app, 'PUT', `/api/aspects/${w.foreignAspect.id}`, {
      token: w.tokens.otherAdmin,
      body: { title: 'Renamed abroad', description: '', isPublic: true },
    });
    expect(foreignWrite.statusCode).toBe(200);
    const abroad = await otherTenant.next((e) => e.event === 'catalog' && e.data.record === 'aspect');
    expect(abroad.data.services).toEqual([w.foreign.id]);
    await new Promise((r) => setTimeout(r, 200));
    expect(reader.events.some((e) => JSON.stringify(e.data).includes(w.foreign.id))).toBe(false);
    expect(otherTenant.events.some((e) => JSON.stringify(e.data).includes(w.service.id))).toBe(false);
  });

  it("never carries content: a reader's stream names a private aspect's service, never its words", async () => {
    const reader = await follow(w.tokens.reader);
    const secret = `Unannounced-${Date.now()}`;
    const created = await call(t.app, 'POST', '/api/aspects', {
      token: w.tokens.editor,
      body: { serviceId: w.service.id, categoryId: w.category.id, title: `${secret} title`, description: `<p>${secret} description</p>`, isPublic: false },
    });
    expect(created.statusCode).toBe(201);
    expect((await setCell(w.tokens.editor, created.json().aspect.id, `${secret} availability`)).statusCode).toBe(200);
    await reader.next((e) => e.event === 'catalog' && e.data.record === 'availability');
    expect(reader.raw()).not.toContain(secret);
    // What the reader then reads with their own rights has no private aspect either.
    const full = await call(t.app, 'GET', `/api/services/${w.service.id}/full`, { token: w.tokens.reader });
    expect(full.statusCode).toBe(200);
    expect(full.body).not.toContain(secret);
  });

  it('resumes after Last-Event-ID with what was missed, and asks for a full reload when it cannot know', async () => {
    const first = await follow(w.tokens.editor);
    expect((await setCell(w.tokens.editor, w.publicAspect.id, 'Beta')).statusCode).toBe(200);
    const seen = await first.next((e) => e.event === 'catalog');
    first.close();
    expect((await call(t.app, 'PUT', `/api/categories/${w.category.id}`, { token: w.tokens.editor, body: { name: 'Renamed while away' } })).statusCode).toBe(
      200,
    );
    expect((await setCell(w.tokens.editor, w.publicAspect.id, 'General availability')).statusCode).toBe(200);

    const resumed = await follow(w.tokens.editor, { lastEventId: seen.id });
    const category = await resumed.next((e) => e.event === 'catalog' && e.data.record === 'category', 2000);
    const cell = await resumed.next((e) => e.event === 'catalog' && e.data.record === 'availability', 2000);
    expect(Number(category.id!.split('-')[1])).toBeGreaterThan(Number(seen.id!.split('-')[1]));
    expect(Number(cell.id!.split('-')[1])).toBeGreaterThan(Number(category.id!.split('-')[1]));
    expect(resumed.events.some((e) => e.id === seen.id)).toBe(false);

    // An id of another process (or of before a restart) cannot be resumed from: everything is read again.
    const foreign = await follow(w.tokens.editor, { lastEventId: '000000000000-5' });
    expect((await foreign.next((e) => e.event === 'resync', 2000, 0)).data).toEqual({ type: 'resync' });
  });

  it('answers a caller that does not stream with the events after its last id, as JSON', async () => {
    const start = await call(t.app, 'GET', '/api/events', { token: w.tokens.reader });
    expect(start.statusCode).toBe(200);
    const { events, last_event_id } = start.json();
    expect(events).toEqual([]);
    expect((await setCell(w.tokens.editor, w.publicAspect.id, 'Polled')).statusCode).toBe(200);
    // On PostgreSQL the change reaches the process through LISTEN/NOTIFY a moment after the write
    // answers, so the caller polls as a client would until the event is there.
    const polled = async () =>
      (await call(t.app, 'GET', '/api/events', { token: w.tokens.reader, query: { lastEventId: last_event_id } })).json().events as unknown[];
    await expect
      .poll(polled, { timeout: 5000, interval: 50 })
      .toContainEqual(expect.objectContaining({ type: 'catalog', record: 'availability', services: [w.service.id] }));
  });

  it('refuses callers without a session or outside the tenant', async () => {
    const anonymous = await fetch(`${base}/api/events`, { headers: { accept: 'text/event-stream' } });
    expect(anonymous.status).toBe(401);
    const foreign = await follow(w.tokens.otherAdmin, { tenant: w.tenant.slug });
    expect(foreign.status).toBe(403);
    expect(foreign.raw()).not.toContain('event:');
  });

  it('gives a reader raised to admin on a service the same tenant stream, and nothing of other tenants', async () => {
    const raised = await createUser(t.db, w.tenant.id, { role: 'reader' });
    await assignServiceRole(t.db, w.tenant.id, w.service.id, raised.id, 'admin');
    const stream = await follow(await signIn(t.app, raised.email));
    expect(stream.status).toBe(200);
    const foreignService = await createService(t.db, w.other.id);
    expect((await call(t.app, 'PUT', `/api/services/${w.service.id}`, { token: w.tokens.admin, body: { name: 'Renamed service' } })).statusCode).toBe(200);
    const renamed = await stream.next((e) => e.event === 'catalog' && e.data.record === 'service');
    expect(renamed.data.services).toContain(w.service.id);
    expect(stream.raw()).not.toContain(foreignService.id);
    expect(stream.raw()).not.toContain('Renamed service');
  });

  it('ends the stream of a session signed out, and of a user deleted, at once', async () => {
    const member = await createUser(t.db, w.tenant.id, { role: 'editor' });
    const token = await signIn(t.app, member.email);
    const stream = await follow(token);
    expect((await call(t.app, 'POST', '/api/auth/logout', { token })).statusCode).toBeLessThan(300);
    await stream.next((e) => e.event === 'ended');
    await stream.ended;

    const deleted = await createUser(t.db, w.tenant.id, { role: 'reader' });
    const doomed = await follow(await signIn(t.app, deleted.email));
    const colleague = await follow(w.tokens.reader);
    await t.db.delete(users).where(eq(users.id, deleted.id));
    await doomed.next((e) => e.event === 'ended');
    await doomed.ended;
    // Others are told that the tenant's people changed, and go on.
    await colleague.next((e) => e.event === 'access' && e.data.record === 'user');
  });
});

describe('live updates when access ends and when the server stops', () => {
  let t: TestApp;
  let w: CatalogWorld;
  let base: string;
  beforeAll(async () => {
    t = await buildTestApp({ LOGIN_THROTTLE: 'false' });
    w = await createCatalogWorld(t);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  }, 60_000);
  // The last test stops the server itself; when it did not get that far, it is stopped here.
  let stopping: Promise<void> | undefined;
  afterAll(() => stopping ?? t.close());

  it("ends the streams of an archived tenant's members, and no one else's", async () => {
    const member = await openEvents(base, w.tokens.reader);
    const abroad = await openEvents(base, w.tokens.otherAdmin);
    try {
      expect((await call(t.app, 'PATCH', `/api/tenants/${w.tenant.id}/archive`, { token: w.tokens.superAdmin })).statusCode).toBe(200);
      await member.next((e) => e.event === 'ended');
      await member.ended;
      await new Promise((r) => setTimeout(r, 200));
      expect(abroad.events.some((e) => e.event === 'ended')).toBe(false);
    } finally {
      member.close();
      abroad.close();
    }
  });

  it('ends every open stream when the server stops, so that browsers reconnect elsewhere, and stops at once', async () => {
    const stream = await openEvents(base, w.tokens.otherAdmin);
    expect(stream.status).toBe(200);
    const start = performance.now();
    // A stream left open would hold the server's close until the connection went away.
    stopping = t.close();
    await Promise.race([stopping, new Promise((_, fail) => setTimeout(() => fail(new Error('the server did not stop within 5 s')), 5000))]);
    await stream.ended;
    expect(performance.now() - start).toBeLessThan(5000);
  });
});

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { INTEGRATION_MESSAGES } from '../../../common/schemas/integrations';
import { call } from '../../test/app';
import { createAspect, createCategory, createService, createTenant, setAvailability } from '../../test/factories';
import { webhookReceiver } from '../../test/webhookReceiver';
import { auditLog, services, webhookEndpoints } from '../../db/schema';
import { refuseAddress, refuseUrl } from '../../integrations/targets';
import { SEND_ERRORS, sendWebhook } from '../../integrations/send';
import { defaultTimeline } from '../../../common/quarters';

/** The quarters of a service's default timeline, which the writes below must fall in. */
const TIMELINE = defaultTimeline();

const h = webhookReceiver();
const MISSING = '00000000-0000-4000-8000-000000000000';

describe('webhook endpoints', () => {
  it('answers the signing secret once, lists endpoints without it, and refuses the wrong people', async () => {
    const { webhook, secret } = await h.register(['service.updated']);
    expect(secret).toMatch(/^whsec_/);
    const list = await call(h.t.app, 'GET', '/api/webhooks', { token: h.w.tokens.admin });
    expect(list.json().webhooks.map((x: { id: string }) => x.id)).toContain(webhook.id);
    expect(list.body).not.toContain(secret);
    for (const token of [h.w.tokens.reader, h.w.tokens.editor]) expect((await call(h.t.app, 'GET', '/api/webhooks', { token })).statusCode).toBe(403);
    const theirs = await call(h.t.app, 'POST', '/api/webhooks', { token: h.w.tokens.otherAdmin, body: { url: h.url, events: ['service.updated'] } });
    const theirId = theirs.json().webhook.id as string;
    for (const [method, url] of [
      ['PUT', `/api/webhooks/${theirId}`],
      ['DELETE', `/api/webhooks/${theirId}`],
      ['GET', `/api/webhooks/${theirId}/deliveries`],
      ['GET', `/api/webhooks/${MISSING}/deliveries`],
      ['POST', `/api/webhooks/${theirId}/deliveries/${MISSING}/retry`],
    ] as const) {
      expect((await call(h.t.app, method, url, { token: h.w.tokens.admin, body: method === 'GET' || method === 'DELETE' ? undefined : {} })).statusCode).toBe(
        404,
      );
    }
    const bad = await call(h.t.app, 'POST', '/api/webhooks', { token: h.w.tokens.admin, body: { url: h.url, events: ['no.such'] } });
    expect(bad.statusCode).toBe(400);
    const none = await call(h.t.app, 'POST', '/api/webhooks', { token: h.w.tokens.admin, body: { url: h.url, events: [] } });
    expect(none.json().error).toBe(INTEGRATION_MESSAGES.webhookUrlRequired);
    await h.remove(webhook.id);
    await call(h.t.app, 'DELETE', `/api/webhooks/${theirId}`, { token: h.w.tokens.otherAdmin });
  });

  it('refuses link-local targets even when private targets are allowed', async () => {
    const res = await call(h.t.app, 'POST', '/api/webhooks', {
      token: h.w.tokens.admin,
      body: { url: 'http://169.254.169.254/latest', events: ['service.updated'] },
    });
    expect(res.statusCode).toBe(400);
    const metadata = await call(h.t.app, 'POST', '/api/webhooks', {
      token: h.w.tokens.admin,
      body: { url: 'https://[fe80::1]/x', events: ['service.updated'] },
    });
    expect(metadata.json().error).toBe(INTEGRATION_MESSAGES.webhookUrlPrivate);
  });

  it('refuses an http:// target off this machine with a message naming the setting that allows one for testing', async () => {
    const res = await call(h.t.app, 'POST', '/api/webhooks', {
      token: h.w.tokens.admin,
      body: { url: 'http://example.com/hook', events: ['service.updated'] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ field: 'url', error: INTEGRATION_MESSAGES.webhookUrlInvalid });
    expect(res.json().error).toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS=true');
    expect(INTEGRATION_MESSAGES.webhookUrlPrivate).toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS=true');
  });
});

describe('deliveries', () => {
  it('sends a signed Standard Webhooks delivery for a committed change, with ids, versions and content', async () => {
    const service = await createService(h.t.db, h.w.tenant.id);
    const { webhook, secret } = await h.register(['service.updated', 'service.archived']);
    expect((await call(h.t.app, 'PUT', `/api/services/${service.id}`, { token: h.w.tokens.admin, body: { name: 'Renamed for hooks' } })).statusCode).toBe(200);
    expect(await h.t.app.webhooks.drain()).toBe(1);
    expect(h.received).toHaveLength(1);
    const event = h.verified(secret, h.received[0]!);
    expect(event.type).toBe('service.updated');
    expect(event.data).toMatchObject({ service_id: service.id, service: { id: service.id, name: 'Renamed for hooks' } });
    expect(event.data.version).toEqual(expect.any(Number));
    expect(h.received[0]!.headers['webhook-id']).toMatch(/^msg_/);
    // Someone else's tampering is caught by the signature.
    expect(() => h.verified(secret, { ...h.received[0]!, body: h.received[0]!.body.replace('Renamed', 'Renamef') })).toThrow();
    const [row] = await h.deliveriesOf(webhook.id);
    expect(row).toMatchObject({ status: 'succeeded', responseStatus: 200, attempts: 1 });
    await h.remove(webhook.id);
  });

  it('gives a reader-level endpoint no private aspect, and an editor-level one its value', async () => {
    const service = await createService(h.t.db, h.w.tenant.id);
    const category = await createCategory(h.t.db, h.w.tenant.id, service.id);
    const open = await createAspect(h.t.db, h.w.tenant.id, service.id, category.id, { isPublic: true, title: 'Open aspect' });
    const hidden = await createAspect(h.t.db, h.w.tenant.id, service.id, category.id, { isPublic: false, title: 'Hidden aspect' });
    const reader = await h.register(['availability.changed'], 'reader');
    const editor = await h.register(['availability.changed'], 'editor');
    for (const aspectId of [hidden.id, open.id]) {
      const res = await call(h.t.app, 'POST', '/api/availabilities', {
        token: h.w.tokens.editor,
        body: { aspectId, timeBucket: TIMELINE[0], value: `Value of ${aspectId}` },
      });
      expect(res.statusCode, res.body).toBeLessThan(300);
    }
    await h.t.app.webhooks.drain();
    const bodies = h.received.map((r) => r.body);
    const forReader = h.signedWith(reader.secret);
    const forEditor = h.signedWith(editor.secret);
    expect(forReader).toHaveLength(1);
    expect(forReader[0]!.body).not.toContain(hidden.id);
    expect(h.verified(reader.secret, forReader[0]!).data.cells).toEqual([
      expect.objectContaining({ aspect_id: open.id, value: `Value of ${open.id}`, aspect_title: 'Open aspect' }),
    ]);
    expect(forEditor).toHaveLength(2);
    expect(bodies.join()).toContain('Hidden aspect');
    const notSent = (await h.deliveriesOf(reader.webhook.id)).find((d) => d.responseStatus === null);
    expect(notSent).toMatchObject({ status: 'succeeded', error: expect.stringContaining('not sent') });
    await h.remove(reader.webhook.id);
    await h.remove(editor.webhook.id);
  });

  it('tells a cell set, changed and cleared, and a batch of cells as one event per service, with the cells and their versions', async () => {
    const service = await createService(h.t.db, h.w.tenant.id);
    const category = await createCategory(h.t.db, h.w.tenant.id, service.id);
    const aspect = await createAspect(h.t.db, h.w.tenant.id, service.id, category.id, { isPublic: true });
    const other = await createAspect(h.t.db, h.w.tenant.id, service.id, category.id, { isPublic: true });
    const { webhook, secret } = await h.register(['availability.changed', 'service.updated']);
    for (const value of ['Beta', 'Live', '']) {
      const res = await call(h.t.app, 'POST', '/api/availabilities', {
        token: h.w.tokens.editor,
        body: { aspectId: aspect.id, timeBucket: TIMELINE[1], value },
      });
      expect(res.statusCode, res.body).toBe(200);
      await h.t.app.webhooks.drain();
    }
    const batch = await call(h.t.app, 'POST', '/api/availabilities/batch', {
      token: h.w.tokens.editor,
      body: {
        serviceId: service.id,
        cells: [
          { aspectId: aspect.id, timeBucket: TIMELINE[2], value: 'GA' },
          { aspectId: other.id, timeBucket: TIMELINE[2], value: 'GA' },
        ],
      },
    });
    expect(batch.statusCode, batch.body).toBeLessThan(300);
    await h.t.app.webhooks.drain();
    const events = h.received.map((r) => h.verified(secret, r));
    // The service's version goes up with each write: not a change of its details.
    expect(events.map((e) => e.type)).toEqual(['availability.changed', 'availability.changed', 'availability.changed', 'availability.changed']);
    const cells = events.map((e) =>
      (e.data.cells as Record<string, unknown>[]).map(({ aspect_id, time_bucket, version, deleted }) => ({ aspect_id, time_bucket, version, deleted })),
    );
    expect(cells.slice(0, 3)).toEqual([
      [{ aspect_id: aspect.id, time_bucket: TIMELINE[1], version: 1, deleted: false }],
      [{ aspect_id: aspect.id, time_bucket: TIMELINE[1], version: 2, deleted: false }],
      [{ aspect_id: aspect.id, time_bucket: TIMELINE[1], version: null, deleted: true }],
    ]);
    expect(cells[3]!.map((c) => c.aspect_id).sort()).toEqual([aspect.id, other.id].sort());
    expect(events[3]!.data).toMatchObject({ service_id: service.id, count: 2 });
    await h.remove(webhook.id);
  });

  it('retries a failed delivery with backoff, and keeps later events of the service waiting in order', async () => {
    const service = await createService(h.t.db, h.w.tenant.id);
    const { webhook, secret } = await h.register(['service.updated']);
    h.answers = [500];
    await call(h.t.app, 'PUT', `/api/services/${service.id}`, { token: h.w.tokens.admin, body: { name: 'First name' } });
    await h.t.app.webhooks.drain();
    await call(h.t.app, 'PUT', `/api/services/${service.id}`, { token: h.w.tokens.admin, body: { name: 'Second name' } });
    await h.t.app.webhooks.drain();
    expect(h.received).toHaveLength(1);
    const [first, second] = await h.deliveriesOf(webhook.id);
    expect(first).toMatchObject({ status: 'pending', attempts: 1, responseStatus: 500 });
    const wait = first!.nextAttemptAt.getTime() - first!.lastAttemptAt!.getTime();
    expect(wait).toBeGreaterThanOrEqual(4000);
    expect(second).toMatchObject({ status: 'pending', attempts: 0 });
    await h.dueNow();
    await h.t.app.webhooks.drain();
    const names = h.received.slice(1).map((r) => h.verified(secret, r).data.service.name as string);
    expect(names).toEqual(['Second name', 'Second name']);
    const ids = h.received.map((r) => r.headers['webhook-id']);
    expect(ids[1]).toBe(ids[0]);
    expect((await h.deliveriesOf(webhook.id)).map((d) => [d.status, d.attempts])).toEqual([
      ['succeeded', 2],
      ['succeeded', 1],
    ]);
    await h.remove(webhook.id);
  });

  it("sends a service's waiting events in one round, in order, and holds back those after one that failed, uncounted", async () => {
    const service = await createService(h.t.db, h.w.tenant.id);
    const { webhook, secret } = await h.register(['service.updated']);
    for (const name of ['One', 'Two', 'Three']) await call(h.t.app, 'PUT', `/api/services/${service.id}`, { token: h.w.tokens.admin, body: { name } });
    // The first fails: the other two wait behind it, not attempted.
    h.answers = [500];
    await h.t.app.webhooks.drain();
    expect(h.received).toHaveLength(1);
    const after = await h.deliveriesOf(webhook.id);
    expect(after.map((d) => [d.status, d.attempts, d.lastAttemptAt === null])).toEqual([
      ['pending', 1, false],
      ['pending', 0, true],
      ['pending', 0, true],
    ]);
    // Once due, the three go in order in one round.
    h.received = [];
    await h.dueNow();
    await h.t.app.webhooks.drain();
    expect(h.received.map((r) => h.verified(secret, r).data.service.name)).toEqual(['Three', 'Three', 'Three']);
    expect(h.received.map((r) => r.headers['webhook-id'])).toEqual(after.map((d) => d.eventId));
    expect((await h.deliveriesOf(webhook.id)).map((d) => [d.status, d.attempts])).toEqual([
      ['succeeded', 2],
      ['succeeded', 1],
      ['succeeded', 1],
    ]);
    await h.remove(webhook.id);
  });

  it('shows the delivery log and sends a delivery again', async () => {
    const service = await createService(h.t.db, h.w.tenant.id);
    const { webhook, secret } = await h.register(['service.archived']);
    await call(h.t.app, 'PATCH', `/api/services/${service.id}/archive`, { token: h.w.tokens.admin, body: {} });
    await h.t.app.webhooks.drain();
    const log = await call(h.t.app, 'GET', `/api/webhooks/${webhook.id}/deliveries`, { token: h.w.tokens.admin });
    expect(log.statusCode).toBe(200);
    const [entry] = log.json().deliveries;
    expect(entry).toMatchObject({ event_type: 'service.archived', status: 'succeeded', response_status: 200, attempts: 1, duration_ms: expect.any(Number) });
    const again = await call(h.t.app, 'POST', `/api/webhooks/${webhook.id}/deliveries/${entry.id}/retry`, { token: h.w.tokens.admin, body: {} });
    expect(again.statusCode).toBe(202);
    await h.t.app.webhooks.drain();
    expect(h.received).toHaveLength(2);
    expect(h.received[1]!.headers['webhook-id']).toBe(h.received[0]!.headers['webhook-id']);
    expect(h.verified(secret, h.received[1]!).type).toBe('service.archived');
    expect((await call(h.t.app, 'POST', `/api/webhooks/${webhook.id}/deliveries/${entry.id}/retry`, { token: h.w.tokens.reader, body: {} })).statusCode).toBe(
      403,
    );
    await h.remove(webhook.id);
  });

  it('tells publishing and unpublishing as their own events, never as a details update', async () => {
    const { webhook, secret } = await h.register(['service.created', 'service.published', 'service.unpublished', 'service.updated']);
    const detailsOnly = await h.register(['service.updated']);
    const created = await call(h.t.app, 'POST', '/api/services', {
      token: h.w.tokens.admin,
      body: { name: 'Published later', slug: `published-later-${Date.now()}` },
    });
    expect(created.statusCode, created.body).toBe(201);
    const service = created.json().service as { id: string };
    for (const action of ['publish', 'publish', 'unpublish']) {
      expect((await call(h.t.app, 'PATCH', `/api/services/${service.id}/${action}`, { token: h.w.tokens.admin, body: {} })).statusCode).toBe(200);
    }
    await h.t.app.webhooks.drain();
    const events = h.received.map((r) => h.verified(secret, r));
    // Publishing what is already published changes nothing and tells nothing.
    expect(events.map((e) => [e.type, e.data.service_id])).toEqual([
      ['service.created', service.id],
      ['service.published', service.id],
      ['service.unpublished', service.id],
    ]);
    expect(events[1]!.data.version).toBeLessThan(events[2]!.data.version as number);
    // The content is read when sending: the service as it is now, unpublished.
    expect(events[2]!.data.service).toMatchObject({ id: service.id, published: false });
    expect(await h.deliveriesOf(detailsOnly.webhook.id)).toHaveLength(0);
    await h.remove(webhook.id);
    await h.remove(detailsOnly.webhook.id);
  });

  it('tells each kind of change of one statement, and a move of a published service unpublishes it where it was', async () => {
    const service = await createService(h.t.db, h.w.tenant.id);
    const category = await createCategory(h.t.db, h.w.tenant.id, service.id);
    const aspect = await createAspect(h.t.db, h.w.tenant.id, service.id, category.id);
    await setAvailability(h.t.db, h.w.tenant.id, service.id, aspect.id, TIMELINE[0], 'Moves along');
    const { webhook, secret } = await h.register([
      'service.published',
      'service.unpublished',
      'service.updated',
      'service.moved',
      'availability.changed',
      'catalog.changed',
    ]);
    await h.t.db.update(services).set({ published: true, name: 'Renamed while published' }).where(eq(services.id, service.id));
    await h.t.app.webhooks.drain();
    expect(h.received.map((r) => h.verified(secret, r).type).sort()).toEqual(['service.published', 'service.updated']);
    h.received = [];
    const target = await createTenant(h.t.db);
    const moved = await call(h.t.app, 'PATCH', `/api/services/${service.id}/move-tenant`, {
      token: h.w.tokens.superAdmin,
      body: { targetTenantId: target.id },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    await h.t.app.webhooks.drain();
    const events = h.received.map((r) => h.verified(secret, r));
    // The catalog and the cells that went with the service are told as the move only.
    expect(events.map((e) => e.type).sort()).toEqual(['service.moved', 'service.unpublished']);
    expect(events.find((e) => e.type === 'service.unpublished')!.data).toMatchObject({ service_id: service.id });
    await h.remove(webhook.id);
  });

  it('disables an endpoint failing for a day and tells the admins through the audit log', async () => {
    const service = await createService(h.t.db, h.w.tenant.id);
    const { webhook } = await h.register(['service.updated']);
    await h.t.db
      .update(webhookEndpoints)
      .set({ failingSince: new Date(Date.now() - 25 * 3600 * 1000) })
      .where(eq(webhookEndpoints.id, webhook.id));
    h.answers = [503];
    await call(h.t.app, 'PUT', `/api/services/${service.id}`, { token: h.w.tokens.admin, body: { name: 'Never arrives' } });
    await h.t.app.webhooks.drain();
    const list = await call(h.t.app, 'GET', '/api/webhooks', { token: h.w.tokens.admin });
    expect(list.json().webhooks.find((x: { id: string }) => x.id === webhook.id)).toMatchObject({ enabled: false, disabled_reason: 'failing' });
    expect((await h.deliveriesOf(webhook.id)).map((d) => d.status)).toEqual(['failed']);
    const [failed] = await h.deliveriesOf(webhook.id);
    const refused = await call(h.t.app, 'POST', `/api/webhooks/${webhook.id}/deliveries/${failed!.id}/retry`, { token: h.w.tokens.admin, body: {} });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toBe(INTEGRATION_MESSAGES.enableBeforeSending);
    const audit = await h.t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'webhook.disable'), eq(auditLog.targetId, webhook.id)));
    expect(audit).toHaveLength(1);
    // A disabled endpoint queues nothing more; started again by hand, it does.
    await call(h.t.app, 'PUT', `/api/services/${service.id}`, { token: h.w.tokens.admin, body: { name: 'Still nothing' } });
    expect(await h.deliveriesOf(webhook.id)).toHaveLength(1);
    expect((await call(h.t.app, 'PUT', `/api/webhooks/${webhook.id}`, { token: h.w.tokens.admin, body: { enabled: true } })).json().webhook.enabled).toBe(true);
    await h.remove(webhook.id);
  });

  it('signs with the old and the new secret for a day after a rotation', async () => {
    const service = await createService(h.t.db, h.w.tenant.id);
    const { webhook, secret } = await h.register(['service.updated']);
    const rotated = await call(h.t.app, 'PUT', `/api/webhooks/${webhook.id}`, { token: h.w.tokens.admin, body: { rotateSecret: true } });
    const fresh = rotated.json().secret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(secret);
    await call(h.t.app, 'PUT', `/api/services/${service.id}`, { token: h.w.tokens.admin, body: { name: 'Rotated' } });
    await h.t.app.webhooks.drain();
    expect(String(h.received[0]!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(h.verified(fresh, h.received[0]!).type).toBe('service.updated');
    expect(h.verified(secret, h.received[0]!).type).toBe('service.updated');
    await h.remove(webhook.id);
  });
});

describe('outgoing requests cannot reach the product network', () => {
  it('refuses private, loopback and link-local addresses, link-local always', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '192.168.0.1', '172.16.5.5', '::1', 'fd00::1', '::ffff:127.0.0.1']) {
      expect(refuseAddress(a, false)).toBe('private');
      expect(refuseAddress(a, true)).toBeNull();
    }
    for (const a of ['169.254.169.254', 'fe80::1', '::ffff:169.254.169.254']) expect(refuseAddress(a, true)).toBe('link-local');
    expect(refuseAddress('93.184.216.34', false)).toBeNull();
    expect(refuseUrl('http://example.com/hook', false)).toBe('scheme');
    expect(refuseUrl('http://localhost:3000/hook', true)).toBeNull();
    expect(refuseUrl('https://localhost/hook', false)).toBe('private');
    expect(refuseUrl('https://user:pw@example.com/hook', false)).toBe('scheme');
    expect(refuseUrl('https://example.com/hook', false)).toBeNull();
  });

  it('checks the addresses a name resolves to when connecting, and never follows a redirect', async () => {
    const viaName = h.url.replace('127.0.0.1', 'localhost');
    // Allowed, the name is called (and the connection kept for the next delivery)...
    expect(await sendWebhook(viaName, {}, '{}', { timeoutMs: 2000, allowPrivate: true })).toMatchObject({ ok: true, status: 200 });
    expect(h.received).toHaveLength(1);
    // ...which never serves a call where private targets are refused: the name is looked up and refused.
    const refused = await sendWebhook(viaName, {}, '{}', { timeoutMs: 2000, allowPrivate: false });
    expect(refused).toMatchObject({ ok: false, status: null, error: SEND_ERRORS.refused });
    expect(h.received).toHaveLength(1);
    h.answers = [302];
    const redirected = await sendWebhook(h.url, {}, '{}', { timeoutMs: 2000, allowPrivate: true });
    expect(redirected).toMatchObject({ ok: false, status: 302, error: 'redirect not followed' });
    expect(h.received).toHaveLength(2);
  });

  it('gives up on a receiver that does not answer in time', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`;
      const result = await sendWebhook(url, {}, '{}', { timeoutMs: 300, allowPrivate: true });
      expect(result).toMatchObject({ ok: false, status: null });
      expect(result.durationMs).toBeLessThan(2000);
    } finally {
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
  });
});

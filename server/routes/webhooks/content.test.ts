import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { call } from '../../test/app';
import { createAspect, createCategory, createService } from '../../test/factories';
import { webhookReceiver } from '../../test/webhookReceiver';
import { defaultTimeline } from '../../../common/quarters';

/** The quarters of a service's default timeline, which the writes below must fall in. */
const TIMELINE = defaultTimeline();

const h = webhookReceiver();

/** Calls the API as the world's editor (or the given token) and expects a success. */
async function ok(method: 'POST' | 'PUT', url: string, body: unknown, token = h.w.tokens.editor) {
  const res = await call(h.t.app, method, url, { token, body });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
}

describe('what a delivery carries', () => {
  it("names the catalog's changes with what the endpoint's role may see, read for every service of the round at once", async () => {
    const first = await createService(h.t.db, h.w.tenant.id);
    const second = await createService(h.t.db, h.w.tenant.id);
    const secondCategory = await createCategory(h.t.db, h.w.tenant.id, second.id);
    const reader = await h.register(['catalog.changed'], 'reader');
    const editor = await h.register(['catalog.changed'], 'editor');
    const category = await ok('POST', '/api/categories', { serviceId: first.id, name: 'Named category', position: 0 }, h.w.tokens.admin);
    const categoryId = (category.category ?? category).id as string;
    const open = await ok('POST', '/api/aspects', { serviceId: first.id, categoryId, title: 'Open change', description: '', isPublic: true });
    const hidden = await ok('POST', '/api/aspects', { serviceId: second.id, categoryId: secondCategory.id, title: 'Hidden change', description: '' });
    // One round sends them all.
    await h.t.app.webhooks.drain();
    const forReader = h.signedWith(reader.secret).map((r) => h.verified(reader.secret, r).data);
    const forEditor = h.signedWith(editor.secret).map((r) => h.verified(editor.secret, r).data);
    expect(forReader.flatMap((d) => d.changes)).toEqual([
      expect.objectContaining({ kind: 'category', category_id: categoryId, name: 'Named category' }),
      expect.objectContaining({ kind: 'aspect', aspect_id: (open.aspect ?? open).id, title: 'Open change', is_public: true }),
    ]);
    expect(forReader.map((d) => d.service_id)).toEqual([first.id, first.id]);
    expect(forEditor.flatMap((d) => d.changes).map((c: { title?: string; name?: string }) => c.title ?? c.name)).toEqual([
      'Named category',
      'Open change',
      'Hidden change',
    ]);
    expect(forEditor.at(-1)).toMatchObject({
      service_id: second.id,
      changes: [expect.objectContaining({ aspect_id: (hidden.aspect ?? hidden).id, is_public: false })],
    });
    // The reader-level endpoint's delivery of the private aspect is recorded, not sent.
    const notSent = (await h.deliveriesOf(reader.webhook.id)).filter((d) => d.responseStatus === null);
    expect(notSent.map((d) => d.error)).toEqual([expect.stringContaining('not sent')]);
    await h.remove(reader.webhook.id);
    await h.remove(editor.webhook.id);
  });

  it('tells a reader-level endpoint of public snapshots only, and an editor-level one of every snapshot', async () => {
    const reader = await h.register(['snapshot.taken'], 'reader');
    const editor = await h.register(['snapshot.taken'], 'editor');
    const service = await createService(h.t.db, h.w.tenant.id);
    for (const [label, visibility] of [
      ['Internal review', 'internal'],
      ['Published plan', 'public'],
    ]) {
      await ok('POST', '/api/snapshots', { serviceId: service.id, label, visibility }, h.w.tokens.admin);
    }
    await h.t.app.webhooks.drain();
    expect(h.signedWith(reader.secret).map((r) => h.verified(reader.secret, r).data)).toEqual([
      expect.objectContaining({ service_id: service.id, label: 'Published plan', visibility: 'public' }),
    ]);
    expect(h.signedWith(editor.secret).map((r) => h.verified(editor.secret, r).data.label)).toEqual(['Internal review', 'Published plan']);
    await h.remove(reader.webhook.id);
    await h.remove(editor.webhook.id);
  });

  it('sends each cell with its value now, for cells of several services in one round', async () => {
    const { webhook, secret } = await h.register(['availability.changed'], 'editor');
    const cells: { aspectId: string; value: string }[] = [];
    for (const n of [1, 2, 3]) {
      const service = await createService(h.t.db, h.w.tenant.id);
      const category = await createCategory(h.t.db, h.w.tenant.id, service.id);
      const aspect = await createAspect(h.t.db, h.w.tenant.id, service.id, category.id, { isPublic: n !== 2, title: `Aspect ${n}` });
      cells.push({ aspectId: aspect.id, value: `Value ${n}` });
    }
    for (const c of cells) await ok('POST', '/api/availabilities', { aspectId: c.aspectId, timeBucket: TIMELINE[0], value: c.value });
    // The last value written before the round is the one sent.
    await ok('POST', '/api/availabilities', { aspectId: cells[0]!.aspectId, timeBucket: TIMELINE[0], value: 'Value 1, changed' });
    await h.t.app.webhooks.drain();
    const sent = h.received.map((r) => h.verified(secret, r).data.cells[0]);
    expect(sent.map((c: { aspect_id: string; value: string; aspect_title: string }) => [c.aspect_id, c.value, c.aspect_title])).toEqual([
      [cells[0]!.aspectId, 'Value 1, changed', 'Aspect 1'],
      [cells[1]!.aspectId, 'Value 2', 'Aspect 2'],
      [cells[2]!.aspectId, 'Value 3', 'Aspect 3'],
      [cells[0]!.aspectId, 'Value 1, changed', 'Aspect 1'],
    ]);
    await h.remove(webhook.id);
  });

  it("names at most 100 of a statement's cells and counts them all, in one event every endpoint gets under the same id", async () => {
    const first = await h.register(['availability.changed'], 'editor');
    const second = await h.register(['availability.changed'], 'editor');
    const service = await createService(h.t.db, h.w.tenant.id);
    const category = await createCategory(h.t.db, h.w.tenant.id, service.id);
    const cells: { aspectId: string; timeBucket: string; value: string }[] = [];
    for (let i = 0; i < 30; i++) {
      const aspect = await createAspect(h.t.db, h.w.tenant.id, service.id, category.id, { title: `Aspect ${i}` });
      for (const q of [1, 2, 3, 4]) cells.push({ aspectId: aspect.id, timeBucket: TIMELINE[q - 1]!, value: `Plan ${i}.${q}` });
    }
    await ok('POST', '/api/availabilities/batch', { serviceId: service.id, cells });
    await h.t.app.webhooks.drain();
    const [toFirst, toSecond] = [first, second].map(({ secret }) => h.signedWith(secret));
    expect([toFirst!.length, toSecond!.length]).toEqual([1, 1]);
    expect(toFirst![0]!.headers['webhook-id']).toBe(toSecond![0]!.headers['webhook-id']);
    const data = h.verified(first.secret, toFirst![0]!).data;
    expect(data).toMatchObject({ service_id: service.id, count: 120 });
    const named = data.cells as { aspect_id: string; time_bucket: string; value: string }[];
    expect(named).toHaveLength(100);
    const written = new Map(cells.map((c) => [`${c.aspectId} ${c.timeBucket}`, c.value]));
    expect(new Set(named.map((c) => `${c.aspect_id} ${c.time_bucket}`)).size).toBe(100);
    for (const c of named) expect(c.value).toBe(written.get(`${c.aspect_id} ${c.time_bucket}`));
    await h.remove(first.webhook.id);
    await h.remove(second.webhook.id);
  });

  it('sends a payload too large to send without its content, marked truncated, and still without what the role may not see', async () => {
    const { webhook, secret } = await h.register(['availability.changed'], 'reader');
    const service = await createService(h.t.db, h.w.tenant.id);
    const category = await createCategory(h.t.db, h.w.tenant.id, service.id);
    const hidden = await createAspect(h.t.db, h.w.tenant.id, service.id, category.id, { isPublic: false, title: 'Hidden' });
    const cells = [{ aspectId: hidden.id, timeBucket: TIMELINE[0]!, value: 'Private plan' }];
    // 27 values of 10,000 characters: with their values the payload passes 256 KiB.
    for (let i = 0; i < 27; i++) {
      const aspect = await createAspect(h.t.db, h.w.tenant.id, service.id, category.id, { title: `Aspect ${i}` });
      cells.push({ aspectId: aspect.id, timeBucket: TIMELINE[0]!, value: `${i}`.padEnd(10_000, '.') });
    }
    await ok('POST', '/api/availabilities/batch', { serviceId: service.id, cells });
    await h.t.app.webhooks.drain();
    const [received] = h.signedWith(secret);
    const data = h.verified(secret, received!).data;
    expect(data).toMatchObject({ service_id: service.id, count: 28, truncated: true, service_version: expect.any(Number) });
    const named = data.cells as Record<string, unknown>[];
    expect(named.map((c) => c.aspect_id).sort()).toEqual(
      cells
        .slice(1)
        .map((c) => c.aspectId)
        .sort(),
    );
    for (const c of named) expect(Object.keys(c).sort()).toEqual(['aspect_id', 'deleted', 'time_bucket', 'version']);
    await h.remove(webhook.id);
  });
});

describe('how a round sends', () => {
  it("sends an endpoint's deliveries one at a time: a failure holds back its service only, no answer at all the rest of the endpoint", async () => {
    const services = [await createService(h.t.db, h.w.tenant.id), await createService(h.t.db, h.w.tenant.id)];
    const rename = (i: number, name: string) => ok('PUT', `/api/services/${services[i]!.id}`, { name }, h.w.tokens.admin);
    const { webhook } = await h.register(['service.updated']);
    // The first service's event is answered 500: its next event waits, the other service's goes.
    h.answers = [500];
    await rename(0, 'First, failing');
    await rename(0, 'First, waiting');
    await rename(1, 'Second, sent');
    await h.t.app.webhooks.drain();
    expect(h.received.map((r) => JSON.parse(r.body).data.service.name)).toEqual(['First, waiting', 'Second, sent']);
    expect((await h.deliveriesOf(webhook.id)).map((d) => [d.status, d.attempts])).toEqual([
      ['pending', 1],
      ['pending', 0],
      ['succeeded', 1],
    ]);
    await h.remove(webhook.id);

    // An endpoint that does not answer at all: its first delivery is tried, the rest wait uncounted.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/hook`;
    await new Promise((r) => closed.close(r));
    const gone = await h.register(['service.updated'], 'reader', { url });
    await rename(0, 'Nobody hears this');
    await rename(1, 'Nor this');
    await h.t.app.webhooks.drain();
    const tried = (await h.deliveriesOf(gone.webhook.id)).map((d) => [d.status, d.attempts, d.responseStatus, d.error !== null]);
    expect(tried).toEqual([
      ['pending', 1, null, true],
      ['pending', 0, null, false],
    ]);
    await h.remove(gone.webhook.id);
  });
});

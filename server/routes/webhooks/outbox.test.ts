import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { call } from '../../test/app';
import { createAspect, createCategory, createService } from '../../test/factories';
import { webhookReceiver } from '../../test/webhookReceiver';
import { OUTBOX_VACUUM_EVERY } from '../../integrations/webhooks';
import { defaultTimeline } from '../../../common/quarters';

/** The quarters of a service's default timeline, which the writes below must fall in. */
const TIMELINE = defaultTimeline();

/**
 * The outbox (docs/decisions/0138-webhook-outbox.md): a write queues one event, whatever the number
 * of endpoints, and the sender makes the deliveries, on both databases.
 */
const h = webhookReceiver();

async function outbox(): Promise<{ tenant_id: string; event_type: string }[]> {
  const res = await h.t.db.execute(sql`select tenant_id, event_type from webhook_events order by seq`);
  return (res as unknown as { rows: { tenant_id: string; event_type: string }[] }).rows;
}

/** A cell of a new service of the tenant, written by its admin (the world's tenant unless told). */
async function writeCell(tenantId = h.w.tenant.id, token = h.w.tokens.admin) {
  const service = await createService(h.t.db, tenantId);
  const category = await createCategory(h.t.db, tenantId, service.id);
  const aspect = await createAspect(h.t.db, tenantId, service.id, category.id);
  const res = await call(h.t.app, 'POST', '/api/availabilities', { token, body: { aspectId: aspect.id, timeBucket: TIMELINE[0], value: 'Planned' } });
  expect(res.statusCode, res.body).toBe(200);
  return service;
}

const setEnabled = (id: string, enabled: boolean) => call(h.t.app, 'PUT', `/api/webhooks/${id}`, { token: h.w.tokens.admin, body: { enabled } });

describe('the webhook outbox', () => {
  it('holds one event per write whatever the number of endpoints, and none for a tenant without one, until the sender makes the deliveries', async () => {
    const first = await h.register(['availability.changed'], 'editor');
    const second = await h.register(['availability.changed'], 'editor');
    const service = await writeCell();
    await writeCell(h.w.other.id, h.w.tokens.otherAdmin);
    expect(await outbox()).toEqual([{ tenant_id: h.w.tenant.id, event_type: 'availability.changed' }]);
    const queued = await h.t.db.execute(sql`select count(*)::int as n from webhook_deliveries where data->>'service_id' = ${service.id}`);
    expect((queued as unknown as { rows: { n: number }[] }).rows[0]!.n).toBe(0);

    h.received.length = 0;
    await h.t.app.webhooks.drain();
    expect(await outbox()).toEqual([]);
    const [toFirst, toSecond] = [first, second].map(({ secret }) => h.signedWith(secret));
    expect([toFirst!.length, toSecond!.length]).toEqual([1, 1]);
    expect(toFirst![0]!.headers['webhook-id']).toBe(toSecond![0]!.headers['webhook-id']);
    expect(h.verified(first.secret, toFirst![0]!).data).toMatchObject({ service_id: service.id });
    await h.remove(first.webhook.id);
    await h.remove(second.webhook.id);
  });

  it('tells an endpoint only of what happened once it existed, and drops what no enabled endpoint takes', async () => {
    const early = await h.register(['availability.changed'], 'editor');
    await writeCell();
    const late = await h.register(['availability.changed'], 'editor');
    h.received.length = 0;
    await h.t.app.webhooks.drain();
    expect([h.signedWith(early.secret).length, h.signedWith(late.secret).length]).toEqual([1, 0]);
    expect(await h.deliveriesOf(late.webhook.id)).toEqual([]);

    // Disabled before the sender came round: the events are dropped, and not sent once enabled again.
    await writeCell();
    expect(await outbox()).toHaveLength(1);
    for (const { webhook } of [early, late]) expect((await setEnabled(webhook.id, false)).statusCode).toBe(200);
    await h.t.app.webhooks.drain();
    expect(await outbox()).toEqual([]);
    for (const { webhook } of [early, late]) expect((await setEnabled(webhook.id, true)).statusCode).toBe(200);
    h.received.length = 0;
    await h.t.app.webhooks.drain();
    expect(h.received).toEqual([]);
    expect((await h.deliveriesOf(early.webhook.id)).map((d) => d.status)).toEqual(['succeeded']);
    await h.remove(early.webhook.id);
    await h.remove(late.webhook.id);
  });

  it("tells a service's own change, not the version every catalog write bumps", async () => {
    const hook = await h.register(['service.updated', 'availability.changed'], 'editor');
    const service = await writeCell();
    expect((await outbox()).map((e) => e.event_type)).toEqual(['availability.changed']);
    const renamed = await call(h.t.app, 'PUT', `/api/services/${service.id}`, { token: h.w.tokens.admin, body: { name: 'Renamed' } });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect((await outbox()).map((e) => e.event_type)).toEqual(['availability.changed', 'service.updated']);
    await h.t.app.webhooks.drain();
    await h.remove(hook.webhook.id);
  });

  it(`takes no more room after many rounds of events than after the first, being vacuumed every ${OUTBOX_VACUUM_EVERY} events`, async () => {
    const hook = await h.register(['availability.changed'], 'editor');
    const size = async () => {
      const res = await h.t.db.execute(sql`select pg_total_relation_size('webhook_events')::int as n`);
      return (res as unknown as { rows: { n: number }[] }).rows[0]!.n;
    };
    const before = await size();
    let oneRound = 0;
    const sizes: number[] = [];
    for (let round = 0; round < 10; round++) {
      // Events no endpoint takes: the sender drops them, as many as a busy day's writes.
      await h.t.db.execute(sql`
        insert into webhook_events (tenant_id, event_id, event_type, data)
        select ${h.w.tenant.id}::uuid, 'msg_outbox_' || g, 'service.updated', jsonb_build_object('service_id', gen_random_uuid(), 'version', g)
          from generate_series(1, ${OUTBOX_VACUUM_EVERY}) g`);
      if (round === 0) oneRound = (await size()) - before;
      await h.t.app.webhooks.drain();
      expect(await outbox()).toEqual([]);
      sizes.push(await size());
    }
    // Without the vacuum every round adds the room one round's events take: ten rounds, ten times
    // it. With it the room is used again. On the embedded database the outbox stops growing after
    // the first rounds; on PostgreSQL a vacuum cannot free rows that an older snapshot elsewhere
    // may still see, so under load a few rounds grow before the room comes back. Either way the
    // outbox ends far below what it would take unvacuumed.
    expect(sizes.at(-1)! - before, String([before, oneRound, ...sizes])).toBeLessThanOrEqual(oneRound * 2);
    if (!process.env.TEST_DATABASE_URL) expect(Math.max(...sizes.slice(5)), String(sizes)).toBeLessThanOrEqual(Math.max(...sizes.slice(0, 5)));
    await h.remove(hook.webhook.id);
  });
});

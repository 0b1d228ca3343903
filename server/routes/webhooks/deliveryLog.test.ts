import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { call } from '../../test/app';
import { assignServiceRole, createService } from '../../test/factories';
import { webhookReceiver } from '../../test/webhookReceiver';

const h = webhookReceiver();

/** Queues `count` deliveries for the endpoint straight into the log, as the triggers would, `daysAgo` old with `status`. */
async function queue(endpointId: string, count: number, opts: { daysAgo?: number; status?: 'pending' | 'succeeded' | 'failed' } = {}) {
  await h.t.db.execute(sql`
    INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_id, event_type, service_key, data, status, created_at)
    SELECT e.tenant_id, e.id, 'msg_log' || g, 'service.updated', '', jsonb_build_object('n', g), ${opts.status ?? 'succeeded'},
           now() - make_interval(days => ${opts.daysAgo ?? 0})
      FROM webhook_endpoints e CROSS JOIN generate_series(1, ${count}) g
     WHERE e.id = ${endpointId}::uuid`);
}

async function logPage(endpointId: string, query = '', token = h.w.tokens.admin) {
  return call(h.t.app, 'GET', `/api/webhooks/${endpointId}/deliveries${query}`, { token });
}

describe('the delivery log', () => {
  it('is read newest first a page at a time, every delivery once, and only by the tenant admins of its endpoint', async () => {
    const { webhook } = await h.register(['service.updated']);
    await queue(webhook.id, 250);
    const ids = (await h.deliveriesOf(webhook.id)).map((d) => d.id).reverse();
    const seen: string[] = [];
    let before: number | null = null;
    const sizes: number[] = [];
    do {
      const res = await logPage(webhook.id, before === null ? '' : `?before=${before}`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as { deliveries: { id: string }[]; next_before: number | null };
      sizes.push(body.deliveries.length);
      seen.push(...body.deliveries.map((d) => d.id));
      before = body.next_before;
    } while (before !== null);
    expect(sizes).toEqual([100, 100, 50]);
    expect(seen).toEqual(ids);
    const whole = (await logPage(webhook.id, '?limit=500')).json();
    expect([whole.deliveries.length, whole.next_before]).toEqual([250, null]);
    const exact = (await logPage(webhook.id, '?limit=50')).json();
    expect(exact.deliveries.map((d: { id: string }) => d.id)).toEqual(ids.slice(0, 50));

    for (const query of ['?before=abc', '?before=0', '?limit=0', '?limit=501']) expect((await logPage(webhook.id, query)).statusCode, query).toBe(400);
    expect((await logPage(webhook.id, '?before=abc')).json().error).toBe('before must be a delivery log entry id');
    // Another tenant's admin does not find it; a service's admin role does not make a tenant editor an integration manager.
    expect((await logPage(webhook.id, '', h.w.tokens.otherAdmin)).statusCode).toBe(404);
    const service = await createService(h.t.db, h.w.tenant.id);
    await assignServiceRole(h.t.db, h.w.tenant.id, service.id, h.w.users.editor.id, 'admin');
    expect((await logPage(webhook.id, '', h.w.tokens.editor)).statusCode).toBe(403);
    await h.remove(webhook.id);
  });

  it('keeps every attempt of a delivery, oldest first, and none for a delivery held back', async () => {
    const service = await createService(h.t.db, h.w.tenant.id);
    const { webhook } = await h.register(['service.updated']);
    for (const name of ['One', 'Two']) await call(h.t.app, 'PUT', `/api/services/${service.id}`, { token: h.w.tokens.admin, body: { name } });
    h.answers = [500, 503];
    await h.t.app.webhooks.drain();
    await h.dueNow();
    await h.t.app.webhooks.drain();
    await h.dueNow();
    await h.t.app.webhooks.drain();
    const res = await logPage(webhook.id);
    expect(res.statusCode, res.body).toBe(200);
    type Attempt = { at: string; response_status: number | null; error: string | null; duration_ms: number | null };
    const [second, first] = res.json().deliveries as { attempts: number; attempt_log: Attempt[] }[];
    expect(first!.attempts).toBe(3);
    expect(first!.attempt_log.map((a) => [a.response_status, a.error])).toEqual([
      [500, 'answered 500'],
      [503, 'answered 503'],
      [200, null],
    ]);
    for (const a of first!.attempt_log) expect(a.duration_ms).toEqual(expect.any(Number));
    const times = first!.attempt_log.map((a) => Date.parse(a.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // The second waited behind the first twice without being attempted: one attempt, one entry.
    expect(second!.attempt_log.map((a) => a.response_status)).toEqual([200]);
    expect(second!.attempts).toBe(1);
    await h.remove(webhook.id);
  });

  it(`keeps finished deliveries for WEBHOOK_LOG_DAYS, and those still waiting whatever their age`, async () => {
    const { webhook } = await h.register(['service.updated']);
    const other = await h.register(['service.updated']);
    // Older than the default 30 days: more than one pruning statement's worth, sent or failed for good; and some still waiting.
    await queue(webhook.id, 1200, { daysAgo: 40 });
    await queue(webhook.id, 30, { daysAgo: 35, status: 'failed' });
    await queue(webhook.id, 5, { daysAgo: 45, status: 'pending' });
    await queue(other.webhook.id, 20, { daysAgo: 31 });
    // Within the 30 days.
    await queue(webhook.id, 40, { daysAgo: 29 });
    await queue(other.webhook.id, 10, { daysAgo: 1, status: 'failed' });
    const removed = await h.t.app.webhooks.prune();
    expect(removed).toBe(1250);
    const kept = await h.deliveriesOf(webhook.id);
    expect(kept.filter((d) => d.status === 'pending')).toHaveLength(5);
    expect(kept.filter((d) => d.status === 'succeeded')).toHaveLength(40);
    expect(kept.filter((d) => d.status === 'failed')).toHaveLength(0);
    expect((await h.deliveriesOf(other.webhook.id)).map((d) => d.status)).toEqual(Array(10).fill('failed'));
    // The log shows what is kept; pruning again removes nothing.
    expect((await logPage(webhook.id, '?limit=500')).json().deliveries).toHaveLength(45);
    expect(await h.t.app.webhooks.prune()).toBe(0);
    await h.remove(webhook.id);
    await h.remove(other.webhook.id);
  });

  it('takes no more room for a month of deliveries pruned than for the one before', async () => {
    const { webhook } = await h.register(['service.updated']);
    const size = async () => {
      const res = await h.t.db.execute<{ n: string }>(sql`select pg_relation_size('webhook_deliveries') as n`);
      return Number((res as unknown as { rows: { n: string }[] }).rows[0]!.n);
    };
    await queue(webhook.id, 3000, { daysAgo: 40 });
    expect(await h.t.app.webhooks.prune()).toBe(3000);
    const before = await size();
    await queue(webhook.id, 3000, { daysAgo: 40 });
    expect(await h.t.app.webhooks.prune()).toBe(3000);
    expect(await size()).toBeLessThanOrEqual(before);
    await h.remove(webhook.id);
  });
});

import { describe, expect, it } from 'vitest';
import { call } from '../../test/app';
import { webhookReceiver } from '../../test/webhookReceiver';

/** "Send test event": a signed webhook.test event sent at once to an endpoint, at the receiver on this machine. */
const h = webhookReceiver();
const MISSING = '00000000-0000-4000-8000-000000000000';

describe('POST /api/webhooks/{id}/test', () => {
  it('sends a signed webhook.test event at once and answers the outcome, without a delivery in the log', async () => {
    const { webhook, secret } = await h.register(['service.updated']);
    const res = await call(h.t.app, 'POST', `/api/webhooks/${webhook.id}/test`, { token: h.w.tokens.admin, body: {} });
    expect(res.statusCode).toBe(200);
    expect(res.json().result).toMatchObject({ ok: true, status: 200, error: null });
    expect(h.received).toHaveLength(1);
    const event = h.verified(secret, h.received[0]!);
    expect(event.type).toBe('webhook.test');
    expect(event.data).toEqual({ webhook_id: webhook.id, test: true });
    const log = await call(h.t.app, 'GET', `/api/webhooks/${webhook.id}/deliveries`, { token: h.w.tokens.admin });
    expect(log.json().deliveries).toEqual([]);

    // A receiver's refusal is answered as it is.
    h.answers.push(500);
    const failed = await call(h.t.app, 'POST', `/api/webhooks/${webhook.id}/test`, { token: h.w.tokens.admin, body: {} });
    expect(failed.json().result).toMatchObject({ ok: false, status: 500 });
    await h.remove(webhook.id);
  });

  it('answers 401 without a token, 403 to an editor, and 404 for another tenant’s endpoint or none', async () => {
    const { webhook } = await h.register(['service.updated']);
    const url = `/api/webhooks/${webhook.id}/test`;
    expect((await call(h.t.app, 'POST', url, { token: null, body: {} })).statusCode).toBe(401);
    expect((await call(h.t.app, 'POST', url, { token: h.w.tokens.editor, body: {} })).statusCode).toBe(403);
    expect((await call(h.t.app, 'POST', url, { token: h.w.tokens.otherAdmin, body: {} })).statusCode).toBe(404);
    expect((await call(h.t.app, 'POST', `/api/webhooks/${MISSING}/test`, { token: h.w.tokens.admin, body: {} })).statusCode).toBe(404);
    expect(h.received).toHaveLength(0);
    await h.remove(webhook.id);
  });
});

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTEGRATION_MESSAGES } from '../../../common/schemas/integrations';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createService, createWorld, type World } from '../../test/factories';
import { insertWebhook } from '../../db/queries/integrations';
import { embeddedIpv4, refuseAddress, refuseUrl } from '../../integrations/targets';
import { SEND_ERRORS, sendWebhook } from '../../integrations/send';
import { newWebhookSecret } from '../../integrations/signing';

/** IPv6 forms that carry 127.0.0.1: compatible, mapped, translated, NAT64 (both prefixes), 6to4 and Teredo (client 127.0.0.1 behind a documentation server). */
const LOOPBACK_INSIDE = [
  '::127.0.0.1',
  '::7f00:1',
  '::ffff:127.0.0.1',
  '::ffff:0:127.0.0.1',
  '64:ff9b::127.0.0.1',
  '64:ff9b:1:7f00:0:100::',
  '64:ff9b:1::7f00:1',
  '2002:7f00:1::1',
  '2001:0:c000:201:0:0:80ff:fffe',
];

let t: TestApp;
let w: World;
beforeAll(async () => {
  // Private targets refused, as in production.
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

describe('an IPv6 address that carries an IPv4 address', () => {
  it('is judged by the IPv4 inside it', () => {
    for (const a of LOOPBACK_INSIDE) {
      expect(embeddedIpv4(a), a).toContain('127.0.0.1');
      expect(refuseAddress(a, false), a).toBe('private');
      expect(refuseAddress(a, true), a).toBeNull();
    }
    for (const a of ['::169.254.169.254', '::ffff:0:169.254.169.254', '64:ff9b::169.254.169.254', '2002:a9fe:a9fe::', '2001:0:a9fe:a9fe::ffff:ffff']) {
      expect(refuseAddress(a, true), a).toBe('link-local');
    }
    for (const a of ['::10.1.2.3', '64:ff9b::192.168.0.1', '2002:ac10:505::1']) expect(refuseAddress(a, false), a).toBe('private');
    // A documentation address inside is judged as it would be on its own; an address embedding none is judged as IPv6.
    for (const a of ['::ffff:192.0.2.1', '64:ff9b::192.0.2.1', '2002:c000:201::1']) expect(refuseAddress(a, false), a).toBeNull();
    expect(embeddedIpv4('2001:db8::1')).toEqual([]);
    expect(refuseAddress('2001:db8::1', false)).toBeNull();
  });

  it('is refused as a webhook URL when the IPv4 inside is refused', async () => {
    for (const a of LOOPBACK_INSIDE) {
      expect(refuseUrl(`https://[${a}]/hook`, false), a).toBe('private');
      const res = await call(t.app, 'POST', '/api/webhooks', { token: w.tokens.admin, body: { url: `https://[${a}]:8443/hook`, events: ['service.updated'] } });
      expect(res.statusCode, a).toBe(400);
      expect(res.json().error).toBe(INTEGRATION_MESSAGES.webhookUrlPrivate);
    }
    expect(refuseUrl('https://[::ffff:169.254.169.254]/latest', true)).toBe('link-local');
  });
});

describe('the delivery log', () => {
  it('says a refused target is not a public address, never what it resolved to', async () => {
    const secret = newWebhookSecret();
    const endpoint = await insertWebhook(t.db, { tenantId: w.tenant.id, url: 'https://localhost:9/hook', events: ['service.updated'], role: 'reader', secret });
    const literal = await insertWebhook(t.db, {
      tenantId: w.tenant.id,
      url: 'https://[::ffff:0:127.0.0.1]:9/hook',
      events: ['service.updated'],
      role: 'reader',
      secret,
    });
    const service = await createService(t.db, w.tenant.id);
    await call(t.app, 'PUT', `/api/services/${service.id}`, { token: w.tokens.admin, body: { name: 'Renamed' } });
    await t.app.webhooks.drain();
    for (const id of [endpoint.id, literal.id]) {
      const log = await call(t.app, 'GET', `/api/webhooks/${id}/deliveries`, { token: w.tokens.admin });
      expect(log.statusCode).toBe(200);
      expect(log.json().deliveries[0]).toMatchObject({ status: 'pending', error: SEND_ERRORS.refused });
      expect(log.body).not.toMatch(/127\.0\.0\.1|::1|7f00/);
    }
  });

  it('says "could not connect" for a failed connection or handshake, never the error text', async () => {
    // A port nothing listens on, on this machine.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const refused = await sendWebhook(`http://127.0.0.1:${port}/`, {}, '{}', { timeoutMs: 2000, allowPrivate: true });
    expect(refused).toMatchObject({ ok: false, status: null, error: SEND_ERRORS.unreachable });
    // TLS spoken to a plain HTTP server fails in the handshake.
    const plain = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    try {
      const tls = await sendWebhook(`https://127.0.0.1:${(plain.address() as AddressInfo).port}/`, {}, '{}', { timeoutMs: 2000, allowPrivate: true });
      expect(tls).toMatchObject({ ok: false, status: null, error: SEND_ERRORS.unreachable });
    } finally {
      plain.closeAllConnections();
      await new Promise((r) => plain.close(r));
    }
  });
});

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { webhookDeliveries } from '../db/schema';
import { fanOutEventsInTurn } from '../db/queries/integrations';
import { buildTestApp, call, type TestApp } from './app';
import { createWorld, type World } from './factories';

/** A request the receiver got. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A test app that may call loopback endpoints, its world, and a real HTTP receiver on 127.0.0.1
 * that records what arrives and answers the statuses the test queues in `answers` (200 otherwise;
 * a 3xx points at the cloud metadata address). Registers the suite's hooks; read the fields inside
 * the tests.
 */
export function webhookReceiver() {
  let receiver: Server;
  const h = {
    t: undefined as unknown as TestApp,
    w: undefined as unknown as World,
    url: '',
    received: [] as Received[],
    answers: [] as number[],
    /** Registers an endpoint of the world's tenant (its admin by default) for the events, at the receiver unless told. */
    async register(events: string[], role = 'reader', opts: { token?: string; url?: string } = {}) {
      const res = await call(h.t.app, 'POST', '/api/webhooks', { token: opts.token ?? h.w.tokens.admin, body: { url: opts.url ?? h.url, events, role } });
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as { webhook: { id: string }; secret: string };
    },
    remove: (id: string) => call(h.t.app, 'DELETE', `/api/webhooks/${id}`, { token: h.w.tokens.admin }),
    /** The delivery checked against the secret (throws when it was not signed with it). */
    verified(secret: string, r: Received): { type: string; data: Record<string, any> } {
      return new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as never;
    },
    /** Those of the received requests signed with the secret. */
    signedWith(secret: string): Received[] {
      return h.received.filter((r) => {
        try {
          h.verified(secret, r);
          return true;
        } catch {
          return false;
        }
      });
    },
    /** An endpoint's deliveries, in order, once the outbox's events are turned into deliveries (as the sender does first). */
    deliveriesOf: async (endpointId: string) => {
      await fanOutEventsInTurn(h.t.db);
      return h.t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId)).orderBy(webhookDeliveries.seq);
    },
    /** Makes every waiting delivery due now (the test does not wait out the backoff). */
    dueNow: () =>
      h.t.db
        .update(webhookDeliveries)
        .set({ nextAttemptAt: sql`now()` })
        .where(eq(webhookDeliveries.status, 'pending')),
  };
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        h.received.push({ headers: req.headers, body });
        const status = h.answers.shift() ?? 200;
        if (status >= 300 && status < 400) res.setHeader('location', 'http://169.254.169.254/latest/meta-data/');
        res.statusCode = status;
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    h.url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    h.t = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_TIMEOUT_MS: '2000' });
    h.w = await createWorld(h.t.app, h.t.db);
  });
  afterAll(async () => {
    await h.t.close();
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
  });
  beforeEach(() => {
    h.received = [];
    h.answers = [];
  });
  return h;
}

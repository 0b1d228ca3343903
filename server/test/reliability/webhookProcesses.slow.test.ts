import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, createPostgresDatabase, freePort, startServer, stopServer, type RunningServer } from './server';
import { defaultTimeline } from '../../../common/quarters';

/** The quarters of a service's default timeline, which the writes below must fall in. */
const TIMELINE = defaultTimeline();

/**
 * Webhooks sent by several server processes on one PostgreSQL database
 * (docs/decisions/0132-webhook-delivery.md, 0138-webhook-outbox.md): three real processes write to
 * two services at once and all send deliveries. The receiver must get every event once, each
 * service's in the order of its writes, and the outbox must end empty.
 *
 * PostgreSQL only: the embedded database serves one process by design.
 */
const PROCESSES = 3;
const WRITES = 20;
const base = process.env.TEST_DATABASE_URL;

interface Arrival {
  id: string;
  serviceId: string;
  versions: number[];
}

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe.skipIf(!base)('webhooks sent by several server processes', () => {
  const servers: RunningServer[] = [];
  let databaseUrl = '';
  let receiver: Server;
  let hookUrl = '';
  const arrivals: Arrival[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const { data } = JSON.parse(body) as { data: { service_id: string; cells: { version: number }[] } };
        arrivals.push({ id: String(req.headers['webhook-id']), serviceId: data.service_id, versions: data.cells.map((c) => c.version) });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => receiver.close(() => r())));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    const database = await createPostgresDatabase(base!, 'catalog_hooks');
    cleanups.push(() => database.drop());
    databaseUrl = database.url;
    for (let i = 0; i < PROCESSES; i++) {
      const dataDir = mkdtempSync(join(tmpdir(), 'catalog-hooks-'));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      // One after the other: the first sets the database up.
      const server = await startServer({ port: await freePort(), dataDir, databaseUrl, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
      cleanups.push(() => stopServer(server));
      servers.push(server);
    }
  }, 180_000);

  it('tells every write once, in order per service, whichever process wrote and sent it', async () => {
    const clients = servers.map((s) => new ApiClient(s.base));
    for (const c of clients) await c.signIn();
    const ok = async (client: ApiClient, method: string, path: string, body: unknown) => {
      const res = await client.request(method, path, body);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      return res.body;
    };
    const cells: { serviceId: string; aspectId: string }[] = [];
    for (const name of ['Hooks A', 'Hooks B']) {
      const { service } = await ok(clients[0]!, 'POST', '/api/services', { name, slug: name.toLowerCase().replace(' ', '-') });
      const category = await ok(clients[0]!, 'POST', '/api/categories', { serviceId: service.id, name: 'Hooks', position: 0 });
      const aspect = await ok(clients[0]!, 'POST', '/api/aspects', {
        serviceId: service.id,
        categoryId: (category.category ?? category).id,
        title: 'Hooked',
        description: '',
        isPublic: true,
      });
      cells.push({ serviceId: service.id, aspectId: (aspect.aspect ?? aspect).id });
    }
    await ok(clients[1]!, 'POST', '/api/webhooks', { url: hookUrl, events: ['availability.changed'], role: 'editor' });

    // Each process writes both services' cell, all processes at once.
    await Promise.all(
      clients.map(async (client, p) => {
        for (let i = 0; i < WRITES; i++) {
          for (const cell of cells) await ok(client, 'POST', '/api/availabilities', { aspectId: cell.aspectId, timeBucket: TIMELINE[0], value: `p${p} w${i}` });
        }
      }),
    );
    const last = PROCESSES * WRITES;
    const done = () => cells.every((c) => arrivals.some((a) => a.serviceId === c.serviceId && a.versions.includes(last)));
    for (let waited = 0; !done() && waited < 30_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    expect(done(), 'the last write of each service arrives').toBe(true);

    // Once each (an event's id is the same on every attempt), and each service's versions in order.
    expect(new Set(arrivals.map((a) => a.id)).size).toBe(arrivals.length);
    for (const cell of cells) {
      const versions = arrivals.filter((a) => a.serviceId === cell.serviceId).flatMap((a) => a.versions);
      expect(versions, 'in the order of the writes').toEqual([...versions].sort((x, y) => x - y));
      expect(new Set(versions).size).toBe(versions.length);
      expect(versions.at(-1)).toBe(last);
    }
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ status: string; n: string }>('select status, count(*) as n from webhook_deliveries group by status');
      expect(rows.map((r) => [r.status, Number(r.n)])).toEqual([['succeeded', arrivals.length]]);
      expect(Number((await client.query('select count(*) as n from webhook_events')).rows[0].n)).toBe(0);
    } finally {
      await client.end();
    }
  }, 120_000);
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiClient, createPostgresDatabase, freePort, startServer, stopServer, type RunningServer } from './server';

/**
 * Unpublishing across processes (docs/decisions/0120-public-pages.md): two real server processes on
 * one PostgreSQL database, their caches' backstop ten minutes, so only the change stream can make a
 * public page that one process holds answer 404 after the other process unpublished it.
 */
const base = process.env.TEST_DATABASE_URL;
/** Not a speed target: a bound far above the stream's delay, which a process never told would not meet. */
const BOUND_MS = 1000;

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function statusOf(server: RunningServer, path: string): Promise<number> {
  const res = await fetch(server.base + path);
  await res.arrayBuffer();
  return res.status;
}

describe.skipIf(!base)('publishing across two server processes on one PostgreSQL database', () => {
  it('answers 404 on every process once the service is unpublished, and 200 again once published', async () => {
    const database = await createPostgresDatabase(base!, 'catalog_publish');
    cleanups.push(() => database.drop());
    const servers: RunningServer[] = [];
    for (let i = 0; i < 2; i++) {
      const dataDir = mkdtempSync(join(tmpdir(), 'catalog-publish-'));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      servers.push(
        await startServer({ port: await freePort(), dataDir, databaseUrl: database.url, env: { CACHE_MAX_AGE_MS: '600000', LOGIN_THROTTLE: 'false' } }),
      );
    }
    cleanups.push(async () => {
      for (const s of servers) await stopServer(s);
    });
    const [writer, other] = servers as [RunningServer, RunningServer];
    const admin = new ApiClient(writer.base);
    await admin.signIn();
    const me = (await admin.request('GET', '/api/auth/me')).body;
    const tenant = me.tenant.slug as string;
    const send = async (method: string, path: string, body?: unknown) => {
      const res = await admin.request(method, `/api${path}`, body);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      return res.body;
    };
    const { service } = await send('POST', '/services', { name: 'Across', slug: 'across' });
    const { category } = await send('POST', '/categories', { serviceId: service.id, name: 'Core', position: 0 });
    await send('POST', '/aspects', { serviceId: service.id, categoryId: category.id, title: 'Shown', description: '', isPublic: true });
    await send('POST', '/snapshots', { serviceId: service.id, label: 'First', visibility: 'public', note: '' });
    await send('PATCH', `/services/${service.id}/publish`);
    const path = `/p/${tenant}/across`;
    // Both processes read and hold the page.
    for (const s of servers) {
      expect(await statusOf(s, path)).toBe(200);
      expect(await statusOf(s, path)).toBe(200);
    }

    await send('PATCH', `/services/${service.id}/unpublish`);
    // The process that wrote answers 404 on the very next request.
    expect(await statusOf(writer, path)).toBe(404);
    const start = performance.now();
    while ((await statusOf(other, path)) !== 404) {
      expect(performance.now() - start, 'the other process still serves the unpublished page').toBeLessThan(BOUND_MS);
      await new Promise((r) => setTimeout(r, 2));
    }
    expect(await statusOf(other, `${path}/feed.atom`)).toBe(404);

    await send('PATCH', `/services/${service.id}/publish`);
    expect(await statusOf(writer, path)).toBe(200);
    const again = performance.now();
    while ((await statusOf(other, path)) !== 200) {
      expect(performance.now() - again).toBeLessThan(BOUND_MS);
      await new Promise((r) => setTimeout(r, 2));
    }
  }, 180_000);
});

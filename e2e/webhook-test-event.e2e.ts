import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, expect, ADMIN, apiAs, expectAccessible, loginThroughPage } from './fixtures';
import { unique } from './catalogHelpers';

test.describe('Tenant Settings: a webhook test event', () => {
  test('"Send test event" on an endpoint sends one now and says what came of it', async ({ page, request }) => {
    test.setTimeout(60_000);
    // A receiver on this machine (the browser tests' server allows private targets): it records what arrives.
    const received: { headers: IncomingMessage['headers']; body: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const u = unique();
      const admin = await apiAs(request, ADMIN.email, ADMIN.password);
      const { tenant } = await admin.send('POST', '/tenants', { name: `Test Event Org ${u}`, slug: `test-event-${u}` });
      const email = `test-event-admin-${u}@example.com`;
      await admin.send('POST', '/admin/users', { email, name: `Test Event Admin ${u}`, role: 'admin', tenant_id: tenant.id, password: 'secret-pass' });
      const tenantAdmin = await apiAs(request, email, 'secret-pass');
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/catalog`;
      await tenantAdmin.send('POST', '/webhooks', { url, events: ['service.created'] });

      await loginThroughPage(page, email, 'secret-pass');
      await expect(page).toHaveURL(/\/$/);
      await page.goto('/tenant-settings');
      const hooks = page.getByRole('region', { name: 'Webhooks', exact: true });
      await hooks.getByRole('button', { name: `Send test event to ${url}` }).click();
      await expect(page.getByRole('status').filter({ hasText: 'Test event delivered: the endpoint answered HTTP 204' })).toBeVisible({ timeout: 15_000 });
      expect(received).toHaveLength(1);
      expect(JSON.parse(received[0]!.body)).toMatchObject({ type: 'webhook.test', data: { test: true } });
      expect(received[0]!.headers['webhook-signature']).toMatch(/^v1,/);
      await expectAccessible(page, 'tenant settings, test event delivered');
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});

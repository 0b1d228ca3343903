import { test, expect, expectAccessible, type KnownViolation } from './fixtures';

/** Scalar's markup that its settings cannot change. */
const SCALAR_KNOWN: KnownViolation[] = [
  {
    id: 'landmark-unique',
    html: 'response-card',
    why: "Scalar makes each operation's example responses a region named by its status codes, so two operations with the same codes share a name",
  },
];

test.describe('API reference', () => {
  test('the interactive reference at /api/docs shows the operations and tries one, loading nothing from elsewhere and breaking no policy', async ({
    page,
    baseURL,
  }) => {
    // axe over Scalar's page is the slow part.
    test.setTimeout(180_000);
    const origin = new URL(baseURL!).origin;
    const consoleErrors: string[] = [];
    const elsewhere: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text().slice(0, 300));
    });
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.protocol.startsWith('http') && url.origin !== origin) elsewhere.push(r.url());
    });
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
    });

    const res = await page.goto('/api/docs');
    expect(res!.url()).toBe(`${origin}/api/docs/`);
    const policy = res!.headers()['content-security-policy']!;
    expect(policy).toContain("script-src 'self';");
    expect(policy).not.toMatch(/unsafe-eval|https?:/);
    const main = page.getByRole('main');
    await expect(main.getByRole('heading', { name: 'Service Catalog API', exact: true })).toBeVisible({ timeout: 30_000 });
    await expectAccessible(page, 'interactive API reference', SCALAR_KNOWN);

    // An operation, found through its group in the sidebar, as the document describes it.
    await page.getByRole('button', { name: 'Open Group - Webhooks' }).click();
    await page.getByRole('link', { name: /The tenant's webhook endpoints/ }).click();
    await expect(main.getByRole('heading', { name: "The tenant's webhook endpoints" })).toBeVisible();

    // Tried from the page, a request goes to this server and its answer is shown.
    await page.goto('/api/docs/#tag/health/GET/api/health');
    await page
      .getByRole('button', { name: /Test Request/ })
      .first()
      .click();
    const client = page.getByRole('dialog');
    await expect(client).toBeVisible();
    const answered = page.waitForResponse((r) => r.url() === `${origin}/api/health`);
    await page.keyboard.press('Control+Enter');
    expect((await answered).status()).toBe(200);
    await expect(client.getByText('200', { exact: false }).first()).toBeVisible();

    expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(elsewhere).toEqual([]);
  });

  test('without script, the reference points to the one rendered on the server', async ({ browser }) => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto('/api/docs');
    await page.getByRole('link', { name: 'the reference without script' }).click();
    await expect(page).toHaveURL(/\/api\/docs\/plain$/);
    await expect(page.getByRole('heading', { name: 'POST /api/webhooks', exact: true })).toBeVisible();
    await context.close();
  });
});

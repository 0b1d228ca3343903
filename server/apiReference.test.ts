import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, call, type TestApp } from './test/app';
import { securityHeaders } from './plugins/security';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('the interactive API reference', () => {
  it('is at /api/docs without a token, under the same strict policy as every answer, with no inline script', async () => {
    const moved = await call(t.app, 'GET', '/api/docs');
    expect(moved.statusCode).toBe(301);
    expect(moved.headers.location).toBe('/api/docs/');
    const res = await call(t.app, 'GET', '/api/docs/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.headers['content-security-policy']).toBe(securityHeaders(false)['content-security-policy']);
    expect(res.body).toContain('<html lang="en">');
    // Every script is a file of this origin, or data the browser does not run.
    const scripts = [...res.body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(2);
    for (const [, attributes, body] of scripts)
      expect(/\bsrc="\/api\/docs\//.test(attributes!) || (/type="application\/json"/.test(attributes!) && body === '')).toBe(true);
    expect(res.body).not.toMatch(/https?:\/\//);
    // Without script, the reader is sent to the reference rendered on the server.
    expect(res.body).toMatch(/<noscript>[\s\S]*href="\/api\/docs\/plain"[\s\S]*<\/noscript>/);
    const settings = JSON.parse(
      res.body
        .match(/data-configuration="([^"]*)"/)![1]!
        .replaceAll('&quot;', '"')
        .replaceAll('&amp;', '&'),
    ) as Record<string, unknown>;
    expect(settings).toMatchObject({ url: '/api/openapi.json', withDefaultFonts: false, telemetry: false, persistAuth: false });
  });

  it('serves Scalar from this server, compressed, to be kept for its version, told never to compile code', async () => {
    const page = (await call(t.app, 'GET', '/api/docs/')).body;
    const src = page.match(/<script src="([^"]+)"/)![1]!;
    const res = await call(t.app, 'GET', src, { headers: { 'accept-encoding': 'gzip, br' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['cache-control']).toMatch(/immutable/);
    const script = gunzipSync(res.rawPayload).toString();
    expect(script.startsWith('globalThis.__zod_globalConfig')).toBe(true);
    expect(script).toContain('createApiReference');
    const plain = await call(t.app, 'GET', src);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(script);
  });

  it('is no API operation: the OpenAPI document leaves the reference pages out', async () => {
    const doc = (await call(t.app, 'GET', '/api/openapi.json')).json();
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/api/docs'))).toEqual([]);
  });
});

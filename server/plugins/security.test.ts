import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config';
import { buildApp } from '../app';
import { openTestDatabase } from '../test/db';
import { TEST_SECRET } from '../test/app';
import { HSTS_MAX_AGE } from './security';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db';

/** Security headers, the SPA fallback and body limits, on an app that serves a (tiny) built web app. */
let app: FastifyInstance;
let dispose: () => Promise<void>;
let database: Database;
const webRoot = mkdtempSync(join(tmpdir(), 'catalog-web-'));

beforeAll(async () => {
  mkdirSync(join(webRoot, 'assets'));
  writeFileSync(join(webRoot, 'index.html'), '<!doctype html><title>Service Catalog</title><div id="root"></div>');
  writeFileSync(join(webRoot, 'assets', 'app-123.js'), 'console.log(1)');
  const db = await openTestDatabase();
  dispose = db.dispose;
  database = db.database;
  app = await buildApp({
    config: loadConfig({ LOG_LEVEL: 'silent', API_RATE_LIMIT: '3' }),
    database: db.database,
    jwtSecret: TEST_SECRET,
    webRoot,
    logger: false,
  });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await dispose();
  rmSync(webRoot, { recursive: true, force: true });
});

describe('security headers', () => {
  it('sends a strict Content-Security-Policy without inline script, and the usual headers', async () => {
    const res = await app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it('keeps CORS closed: no Access-Control headers, even for a preflight', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/api/auth/login',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const get = await app.inject({ method: 'GET', url: '/api/health', headers: { origin: 'https://evil.example' } });
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });

  it("turns the browsers' legacy XSS filter off (X-XSS-Protection: 0) and sends no HSTS over plain HTTP", async () => {
    const res = await app.inject({ method: 'GET', url: '/' });
    expect(res.headers['x-xss-protection']).toBe('0');
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });

  it('sends Strict-Transport-Security for a year, subdomains left out, when the public address is https', async () => {
    // No rate limit here: on PostgreSQL both apps count calls in the one database, and these would
    // use up the other app's limit of 3 for this address.
    const config = loadConfig({ LOG_LEVEL: 'silent', PUBLIC_URL: 'https://catalog.example.com', API_RATE_LIMIT: '0' });
    const secure = await buildApp({ config, database, jwtSecret: TEST_SECRET, webRoot, logger: false });
    try {
      for (const url of ['/', '/api/health', '/api/services']) {
        const res = await secure.inject({ method: 'GET', url });
        expect(res.headers['strict-transport-security'], url).toBe(`max-age=${HSTS_MAX_AGE}`);
      }
      expect(HSTS_MAX_AGE).toBe(31_536_000);
    } finally {
      await secure.close();
    }
  });

  it('answers API calls with no-store and a request id', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/health' });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-request-id']).toEqual(expect.any(String));
  });
});

describe('single-page app', () => {
  it('answers client routes with index.html and never caches it', async () => {
    for (const url of ['/', '/login', '/catalog/abc', '/super-admin']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toContain('<div id="root">');
      expect(res.headers['cache-control']).toBe('no-cache');
    }
  });

  it('caches hashed assets for a year and answers a missing file with 404', async () => {
    const asset = await app.inject({ method: 'GET', url: '/assets/app-123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');
    expect((await app.inject({ method: 'GET', url: '/assets/missing.js' })).statusCode).toBe(404);
  });

  it('answers unknown API paths with a JSON 404, not the app', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/no-such-thing' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Not found', code: 'not_found' });
  });
});

describe('limits', () => {
  it('refuses a body over 1 MB with 413', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(1_100_000) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toBe('The request body is too large');
  });

  it('limits requests per address with 429 and a message (API_RATE_LIMIT)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await app.inject({ method: 'GET', url: '/api/health', remoteAddress: '10.9.9.9' })).statusCode);
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses.slice(3)).toEqual([429, 429]);
    const res = await app.inject({ method: 'GET', url: '/api/health', remoteAddress: '10.9.9.9' });
    expect(res.json().error).toMatch(/Too many requests/);
  });
});

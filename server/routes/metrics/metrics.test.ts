import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createWorld, type World } from '../../test/factories';
import { BENCH_METRICS_ENV } from '.';

/** Builds an app with or without the benchmark's metrics; the variable is read at registration. */
function appWithMetrics(enabled: boolean) {
  const ctx = {} as { t: TestApp; w: World };
  beforeAll(async () => {
    if (enabled) process.env[BENCH_METRICS_ENV] = '1';
    try {
      ctx.t = await buildTestApp();
    } finally {
      delete process.env[BENCH_METRICS_ENV];
    }
    ctx.w = await createWorld(ctx.t.app, ctx.t.db);
  });
  afterAll(() => ctx.t?.close());
  return ctx;
}

describe('GET /api/metrics without BENCH_METRICS', () => {
  const c = appWithMetrics(false);
  it('does not exist', async () => {
    expect((await call(c.t.app, 'GET', '/api/metrics', { token: c.w.tokens.superAdmin })).statusCode).toBe(404);
  });
});

describe('GET /api/metrics with BENCH_METRICS=1', () => {
  const c = appWithMetrics(true);
  it('answers 401 without a token and 403 to an admin', async () => {
    expect((await call(c.t.app, 'GET', '/api/metrics')).statusCode).toBe(401);
    expect((await call(c.t.app, 'GET', '/api/metrics', { token: c.w.tokens.admin })).statusCode).toBe(403);
  });

  it('answers memory and event-loop figures to a super admin', async () => {
    const res = await call(c.t.app, 'GET', '/api/metrics', { token: c.w.tokens.superAdmin });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      rss_bytes: expect.any(Number),
      heap_used_bytes: expect.any(Number),
      event_loop: { max_ms: expect.any(Number), p99_ms: expect.any(Number), mean_ms: expect.any(Number) },
    });
  });
});

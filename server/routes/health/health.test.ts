import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, call, type TestApp } from '../../test/app';

describe('health and readiness', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t?.close());

  it('is ready while the database answers and the change stream is heard, without a session', async () => {
    const ready = await call(t.app, 'GET', '/api/health/ready');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', database: t.app.database.kind, changes: 'live' });
    expect((await call(t.app, 'GET', '/api/health')).json()).toEqual({ status: 'ok', database: t.app.database.kind });
  });

  it('is not ready while the change stream is lost, and ready again once it is heard', async () => {
    t.app.database.changes.lost();
    try {
      const down = await call(t.app, 'GET', '/api/health/ready');
      expect(down.statusCode).toBe(503);
      expect(JSON.stringify(down.json())).toContain('The change stream is reconnecting');
      // Still alive: the process answers, reading everything again.
      expect((await call(t.app, 'GET', '/api/health')).statusCode).toBe(200);
    } finally {
      t.app.database.changes.regained();
    }
    expect((await call(t.app, 'GET', '/api/health/ready')).statusCode).toBe(200);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, call, type TestApp } from '../test/app';
import { createWorld, type World } from '../test/factories';
import { services } from '../db/schema';
import { NULL_CHARACTER_MESSAGE } from './errors';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
}, 60_000);
afterAll(() => t?.close());

describe('error handler', () => {
  it('answers 400 with a message for text holding a null character, and writes nothing', async () => {
    const res = await call(t.app, 'POST', '/api/services', { token: w.tokens.admin, body: { name: 'Bad\u0000name', slug: 'bad-name' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: NULL_CHARACTER_MESSAGE, code: 'validation' });
    expect(await t.db.select().from(services)).toEqual([]);
    const ok = await call(t.app, 'POST', '/api/services', { token: w.tokens.admin, body: { name: 'Good name', slug: 'good-name' } });
    expect(ok.statusCode).toBe(201);
  });
});

import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../common/messages';
import { aspects, services } from '../../db/schema';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createAspect, createCategory, createService, createWorld, setAvailability, type World } from '../../test/factories';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

const as = (token: string, tenant = w.tenant.slug) => ({ token, tenant });

async function catalog() {
  const s = await createService(t.db, w.tenant.id);
  const c = await createCategory(t.db, w.tenant.id, s.id, 'Core');
  const pub = await createAspect(t.db, w.tenant.id, s.id, c.id, { title: 'Public one', isPublic: true });
  const priv = await createAspect(t.db, w.tenant.id, s.id, c.id, { title: 'Private one', isPublic: false, position: 1 });
  await setAvailability(t.db, w.tenant.id, s.id, pub.id, s.timeline[0]!, 'Beta');
  return { s, c, pub, priv };
}

async function snap(serviceId: string, visibility: 'internal' | 'public', label = 'Q1 plan') {
  const res = await call(t.app, 'POST', '/api/snapshots', { ...as(w.tokens.editor), body: { serviceId, label, visibility, note: 'For the board' } });
  expect(res.statusCode).toBe(201);
  return res.json().snapshot;
}

describe('snapshots', () => {
  it('freezes the whole catalog and never changes afterwards', async () => {
    const { s, pub, priv } = await catalog();
    const snapshot = await snap(s.id, 'internal');
    expect(snapshot).toMatchObject({ label: 'Q1 plan', visibility: 'internal', note: 'For the board', created_by: w.users.editor.name });
    expect(snapshot.data.resolved_data.aspects.map((a: { id: string }) => a.id)).toEqual([pub.id, priv.id]);
    expect(snapshot.data.resolved_data.aspects[0].availabilities).toEqual({ [s.timeline[0]!]: 'Beta' });
    expect(snapshot.data.resolved_data.timeline).toEqual(s.timeline);
    await t.db.update(aspects).set({ title: 'Renamed' }).where(eq(aspects.id, pub.id));
    const again = await call(t.app, 'GET', `/api/snapshots/${snapshot.id}`, as(w.tokens.editor));
    expect(again.json().snapshot.data.resolved_data.aspects[0].title).toBe('Public one');
  });

  it('keeps only public aspects in a public snapshot', async () => {
    const { s, pub } = await catalog();
    const snapshot = await snap(s.id, 'public');
    expect(snapshot.data.resolved_data.aspects.map((a: { id: string }) => a.id)).toEqual([pub.id]);
  });

  it('lists snapshots newest first; readers see public snapshots only', async () => {
    const { s } = await catalog();
    const internal = await snap(s.id, 'internal', 'Internal');
    const pub = await snap(s.id, 'public', 'Public');
    const editor = await call(t.app, 'GET', `/api/snapshots/service/${s.id}`, as(w.tokens.editor));
    expect(editor.json().snapshots.map((x: { id: string }) => x.id)).toEqual([pub.id, internal.id]);
    expect(editor.json().snapshots[0]).toEqual({
      id: pub.id,
      service_id: s.id,
      label: 'Public',
      visibility: 'public',
      note: 'For the board',
      created_by: w.users.editor.name,
      created_at: expect.any(String),
    });
    const reader = await call(t.app, 'GET', `/api/snapshots/service/${s.id}`, as(w.tokens.reader));
    expect(reader.json().snapshots.map((x: { id: string }) => x.id)).toEqual([pub.id]);
    expect((await call(t.app, 'GET', `/api/snapshots/${pub.id}`, as(w.tokens.reader))).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/api/snapshots/${internal.id}`, as(w.tokens.reader))).statusCode).toBe(404);
  });

  it('answers 400 for a missing label or a wrong visibility', async () => {
    const { s } = await catalog();
    const noLabel = await call(t.app, 'POST', '/api/snapshots', { ...as(w.tokens.editor), body: { serviceId: s.id, label: ' ' } });
    expect(noLabel.json()).toMatchObject({ error: M.snapshotLabelRequired, field: 'label' });
    const vis = await call(t.app, 'POST', '/api/snapshots', { ...as(w.tokens.editor), body: { serviceId: s.id, label: 'x', visibility: 'secret' } });
    expect(vis.statusCode).toBe(400);
    const noService = await call(t.app, 'POST', '/api/snapshots', { ...as(w.tokens.editor), body: { label: 'x' } });
    expect(noService.statusCode).toBe(400);
  });

  it('answers 401, 403 to a reader creating, and 404 to another tenant', async () => {
    const { s } = await catalog();
    const snapshot = await snap(s.id, 'public');
    const body = { serviceId: s.id, label: 'x' };
    expect((await call(t.app, 'POST', '/api/snapshots', { body })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', `/api/snapshots/service/${s.id}`)).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/api/snapshots', { ...as(w.tokens.reader), body })).statusCode).toBe(403);
    const o = as(w.tokens.otherAdmin, w.other.slug);
    expect((await call(t.app, 'POST', '/api/snapshots', { ...o, body })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/api/snapshots/service/${s.id}`, o)).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/api/snapshots/${snapshot.id}`, o)).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/api/snapshots/nope', as(w.tokens.editor))).statusCode).toBe(404);
  });

  it('still takes a snapshot of an archived service, which is read-only but readable', async () => {
    const { s } = await catalog();
    await t.db.update(services).set({ archived: true }).where(eq(services.id, s.id));
    await snap(s.id, 'internal');
  });
});

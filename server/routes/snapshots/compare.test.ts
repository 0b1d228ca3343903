import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addQuarters, quarterOf } from '../../../common/quarters';
import { aspects, availabilities, services } from '../../db/schema';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { assignServiceRole, createAspect, createCategory, createService, createWorld, setAvailability, type World } from '../../test/factories';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

const as = (token: string, tenant = w.tenant.slug) => ({ token, tenant });

async function snap(serviceId: string, visibility: 'internal' | 'public', label: string) {
  const res = await call(t.app, 'POST', '/api/snapshots', { ...as(w.tokens.editor), body: { serviceId, label, visibility, note: '' } });
  expect(res.statusCode).toBe(201);
  return res.json().snapshot as { id: string };
}

const compare = (token: string, from: string, to: string, tenant = w.tenant.slug) =>
  call(t.app, 'GET', '/api/snapshots/compare', { ...as(token, tenant), query: { from, to } });

/** A service whose timeline starts last quarter, so that two of its quarters have begun. */
async function catalog() {
  const now = quarterOf(new Date());
  const last = addQuarters(now, -1);
  const s = await createService(t.db, w.tenant.id, { timeline: [last, now, addQuarters(now, 1), addQuarters(now, 2)] });
  const core = await createCategory(t.db, w.tenant.id, s.id, 'Core', 0);
  const extras = await createCategory(t.db, w.tenant.id, s.id, 'Extras', 1);
  const kept = await createAspect(t.db, w.tenant.id, s.id, core.id, { title: 'Kept promise', isPublic: true });
  const slipped = await createAspect(t.db, w.tenant.id, s.id, core.id, { title: 'Slipped promise', isPublic: true, position: 1 });
  const secret = await createAspect(t.db, w.tenant.id, s.id, core.id, { title: 'Secret plan', isPublic: false, position: 2 });
  const goner = await createAspect(t.db, w.tenant.id, s.id, extras.id, { title: 'Dropped idea', isPublic: true });
  await setAvailability(t.db, w.tenant.id, s.id, kept.id, last, 'Done');
  await setAvailability(t.db, w.tenant.id, s.id, slipped.id, now, 'Launch');
  await setAvailability(t.db, w.tenant.id, s.id, secret.id, now, 'Hush');
  return { s, core, extras, kept, slipped, secret, goner, now, last };
}

describe('GET /api/snapshots/compare', () => {
  it('answers added, removed, renamed and moved aspects, changed cells and descriptions, with counts', async () => {
    const c = await catalog();
    const before = await snap(c.s.id, 'internal', 'Plan');
    await t.db.update(aspects).set({ title: 'Kept promise (renamed)', categoryId: c.extras.id }).where(eq(aspects.id, c.kept.id));
    await t.db.update(aspects).set({ description: '<p>Now explained</p>' }).where(eq(aspects.id, c.slipped.id));
    await t.db.update(availabilities).set({ value: 'Delayed' }).where(eq(availabilities.aspectId, c.slipped.id));
    await t.db.delete(aspects).where(eq(aspects.id, c.goner.id));
    const added = await createAspect(t.db, w.tenant.id, c.s.id, c.core.id, { title: 'Brand new', isPublic: true, position: 5 });
    const after = await snap(c.s.id, 'internal', 'Later');

    const res = await compare(w.tokens.editor, before.id, after.id);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.from).toMatchObject({ id: before.id, label: 'Plan' });
    expect(body.to).toMatchObject({ id: after.id, label: 'Later' });
    expect(body.labels).toEqual({ from: 'Before', to: 'After' });
    expect(body.diff.counts).toEqual({ added: 1, removed: 1, renamed: 1, moved: 1, cells: 1, descriptions: 1, total: 6 });
    expect(body.diff.added).toEqual([{ id: added.id, title: 'Brand new', category: 'Core' }]);
    expect(body.diff.removed).toEqual([{ id: c.goner.id, title: 'Dropped idea', category: 'Extras' }]);
    expect(body.diff.renamed[0]).toMatchObject({ id: c.kept.id, from_title: 'Kept promise', title: 'Kept promise (renamed)' });
    expect(body.diff.moved[0]).toMatchObject({ id: c.kept.id, from_category: 'Core', category: 'Extras' });
    expect(body.diff.descriptions[0]).toMatchObject({ id: c.slipped.id, from: '', to: '<p>Now explained</p>' });
    expect(body.diff.cells).toEqual([
      { aspect_id: c.slipped.id, title: 'Slipped promise', category: 'Core', quarter: c.now, from: 'Launch', to: 'Delayed', started: true },
    ]);
    expect(body.summary).toBe('1 aspect added, 1 aspect removed, 1 aspect renamed, 1 aspect moved, 1 availability changed, 1 description changed');
  });

  it('compares a snapshot with the live catalog as "what was planned" against "what is recorded"', async () => {
    const c = await catalog();
    const plan = await snap(c.s.id, 'internal', 'Plan');
    await t.db.update(availabilities).set({ value: 'Next quarter' }).where(eq(availabilities.aspectId, c.slipped.id));
    const res = await compare(w.tokens.editor, plan.id, 'current');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.to).toMatchObject({ id: 'current', label: 'Live catalog' });
    expect(body.labels).toEqual({ from: 'What was planned', to: 'What is recorded' });
    expect(body.diff.started_quarters).toEqual([c.last, c.now]);
    // Kept in the last quarter, Launch slipped this quarter; the secret one held too (editors see it).
    expect(body.diff.commitments).toEqual({ held: 2, slipped: 1 });
  });

  it('gives readers public snapshots only, and never a private aspect', async () => {
    const c = await catalog();
    const internal = await snap(c.s.id, 'internal', 'Internal');
    const pub = await snap(c.s.id, 'public', 'Public');
    await t.db.update(availabilities).set({ value: 'Changed in secret' }).where(eq(availabilities.aspectId, c.secret.id));
    await createAspect(t.db, w.tenant.id, c.s.id, c.core.id, { title: 'Another secret', isPublic: false, position: 9 });
    expect((await compare(w.tokens.reader, internal.id, pub.id)).statusCode).toBe(404);
    expect((await compare(w.tokens.reader, pub.id, internal.id)).statusCode).toBe(404);
    const live = await compare(w.tokens.reader, pub.id, 'current');
    expect(live.statusCode).toBe(200);
    expect(live.json().to.visibility).toBe('public');
    expect(JSON.stringify(live.json())).not.toMatch(/secret|Hush/i);
    expect(live.json().diff.counts.total).toBe(0);
    // Editors compare a public snapshot with the live catalog as public too: like with like.
    expect((await compare(w.tokens.editor, pub.id, 'current')).json().diff.counts.total).toBe(0);
    expect((await compare(w.tokens.editor, internal.id, 'current')).json().diff.counts.cells).toBe(1);
  });

  it('compares an internal snapshot with a public one on their public aspects: a private aspect is not reported as removed', async () => {
    const c = await catalog();
    const internal = await snap(c.s.id, 'internal', 'Internal');
    await t.db.update(availabilities).set({ value: 'Soon' }).where(eq(availabilities.aspectId, c.slipped.id));
    const pub = await snap(c.s.id, 'public', 'Public');
    for (const [from, to] of [
      [internal.id, pub.id],
      [pub.id, internal.id],
    ] as const) {
      const body = (await compare(w.tokens.editor, from, to)).json();
      expect(body.diff.counts).toMatchObject({ added: 0, removed: 0, cells: 1, total: 1 });
      expect(JSON.stringify(body)).not.toMatch(/Secret plan|Hush/);
    }
  });

  it('lets a reader assigned editor on the service compare its internal snapshots', async () => {
    const c = await catalog();
    const internal = await snap(c.s.id, 'internal', 'Internal');
    const u = await call(t.app, 'GET', `/api/snapshots/${internal.id}`, as(w.tokens.reader));
    expect(u.statusCode).toBe(404);
    await assignServiceRole(t.db, w.tenant.id, c.s.id, w.users.reader.id, 'editor');
    expect((await compare(w.tokens.reader, internal.id, 'current')).statusCode).toBe(200);
  });

  it("answers 404 for another tenant's snapshot, a snapshot of another service and a missing one; 400 for a bad query", async () => {
    const c = await catalog();
    const a = await snap(c.s.id, 'public', 'A');
    const other = await createService(t.db, w.tenant.id);
    const b = await snap(other.id, 'public', 'B');
    expect((await compare(w.tokens.editor, a.id, b.id)).statusCode).toBe(404);
    expect((await compare(w.tokens.otherAdmin, a.id, 'current', w.other.slug)).statusCode).toBe(404);
    expect((await compare(w.tokens.editor, '00000000-0000-4000-8000-000000000000', 'current')).statusCode).toBe(404);
    const bad = await compare(w.tokens.editor, 'nope', 'current');
    expect(bad.statusCode).toBe(400);
    expect((await compare(w.tokens.editor, a.id, 'tomorrow')).statusCode).toBe(400);
    expect((await call(t.app, 'GET', '/api/snapshots/compare', { query: { from: a.id, to: 'current' } })).statusCode).toBe(401);
  });

  it('copes with the oldest stored snapshots, whatever their data lacks', async () => {
    const c = await catalog();
    const a = await snap(c.s.id, 'internal', 'A');
    const { snapshots } = await import('../../db/schema');
    await t.db
      .update(snapshots)
      .set({ data: { aspects: [] } })
      .where(eq(snapshots.id, a.id));
    const res = await compare(w.tokens.editor, a.id, 'current');
    expect(res.statusCode).toBe(200);
    expect(res.json().diff.counts.added).toBe(4);
    await t.db.update(services).set({ archived: true }).where(eq(services.id, c.s.id));
    expect((await compare(w.tokens.editor, a.id, 'current')).statusCode).toBe(200);
  });
});

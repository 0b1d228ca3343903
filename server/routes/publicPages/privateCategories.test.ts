import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quarterOf } from '../../../common/quarters';
import { services, snapshots } from '../../db/schema';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createAspect, createCategory, createService, createWorld, setAvailability, type World } from '../../test/factories';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

const visit = (url: string) => call(t.app, 'GET', url, {});
const HIDDEN = ['Vendor talks', 'Nothing here yet', 'Secret vendor deal'];

async function snap(serviceId: string, label: string) {
  const res = await call(t.app, 'POST', '/api/snapshots', {
    token: w.tokens.editor,
    tenant: w.tenant.slug,
    body: { serviceId, label, visibility: 'public', note: '' },
  });
  expect(res.statusCode).toBe(201);
  return res.json().snapshot as { id: string };
}

describe('a category that holds no public aspect', () => {
  it('is left out of public pages, older editions and both feeds, also those of editions taken before', async () => {
    const s = await createService(t.db, w.tenant.id, { name: 'Printing' });
    const lending = await createCategory(t.db, w.tenant.id, s.id, 'Lending');
    const vendor = await createCategory(t.db, w.tenant.id, s.id, 'Vendor talks');
    await createCategory(t.db, w.tenant.id, s.id, 'Nothing here yet');
    const pub = await createAspect(t.db, w.tenant.id, s.id, lending.id, { title: 'Colour prints', isPublic: true });
    const priv = await createAspect(t.db, w.tenant.id, s.id, vendor.id, { title: 'Secret vendor deal', isPublic: false });
    const q = quarterOf(new Date());
    await setAvailability(t.db, w.tenant.id, s.id, pub.id, q, 'Beta');
    await setAvailability(t.db, w.tenant.id, s.id, priv.id, q, 'Confidential');
    await t.db.update(services).set({ published: true }).where(eq(services.id, s.id));
    const first = await snap(s.id, 'First edition');
    // The frozen public catalog names only the category of the public aspect.
    const [stored] = await t.db.select().from(snapshots).where(eq(snapshots.id, first.id));
    expect((stored!.data as { categories: { name: string }[] }).categories.map((c) => c.name)).toEqual(['Lending']);

    // An edition frozen before, naming every category, as public snapshots did.
    const all = [lending, vendor].map((c, i) => ({ id: c.id, name: c.name, position: i }));
    await t.db.insert(snapshots).values({
      tenantId: w.tenant.id,
      serviceId: s.id,
      label: 'Older style edition',
      visibility: 'public',
      note: '',
      createdBy: 'someone@example.com',
      data: { ...(stored!.data as object), categories: [...all, { id: crypto.randomUUID(), name: 'Nothing here yet', position: 2 }] },
    });
    await setAvailability(t.db, w.tenant.id, s.id, pub.id, s.timeline[1]!, 'Available');
    await snap(s.id, 'Latest edition');

    const path = `/p/${w.tenant.slug}/${s.slug}`;
    const page = await visit(path);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('>Lending</th>');
    // The two older editions, linked from the latest.
    const older = [...new Set([...page.body.matchAll(/editions\/([0-9a-f-]{36})/g)].map((m) => m[1]!))];
    expect(older).toHaveLength(2);
    const answers = [page, await visit(`${path}/feed.atom`), await visit(`/p/${w.tenant.slug}/feed.atom`)];
    for (const id of older) answers.push(await visit(`${path}/editions/${id}`));
    for (const res of answers) {
      expect(res.statusCode).toBe(200);
      for (const name of HIDDEN) expect(res.body, res.body.slice(0, 200)).not.toContain(name);
    }
  });
});

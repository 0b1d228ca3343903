import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { M } from '../../common/messages';
import { SETTINGS_MESSAGES } from '../../common/schemas/settings';
import { services } from '../db/schema';
import { buildTestApp, call, type TestApp } from './app';
import { assignServiceRole, createService, createWorld, type World } from './factories';

/**
 * Actor roles and quick templates are the same kind of resource: an ordered list of short texts
 * per service, edited by editors. This suite states their behaviour once for both.
 */
export interface ServiceListSpec {
  /** 'actor roles' */
  title: string;
  /** '/api/actor-roles' */
  path: string;
  /** Request field of the text: 'roleName' */
  field: string;
  /** Request field of a reorder: 'roleIds' */
  idsField: string;
  /** Response field of the text: 'role_name' */
  readField: string;
  /** Wrapper of one record: 'role'; of a list: 'roles' */
  singular: string;
  plural: string;
  requiredMessage: string;
}

export function describeServiceList(spec: ServiceListSpec) {
  let t: TestApp;
  let w: World;
  beforeAll(async () => {
    t = await buildTestApp();
    w = await createWorld(t.app, t.db);
  });
  afterAll(() => t.close());

  const as = (token: string, tenant = w.tenant.slug) => ({ token, tenant });
  const text = (value: unknown) => ({ [spec.field]: value });
  type Item = { id: string; position: number } & Record<string, unknown>;

  async function add(serviceId: string, value: string, token = w.tokens.editor): Promise<Item> {
    const res = await call(t.app, 'POST', spec.path, { ...as(token), body: { serviceId, ...text(value) } });
    expect(res.statusCode).toBe(201);
    return res.json()[spec.singular];
  }

  describe(spec.title, () => {
    it('lets an editor create, list, change and delete items in order', async () => {
      const s = await createService(t.db, w.tenant.id);
      const a = await add(s.id, '  First ');
      const b = await add(s.id, 'Second');
      expect(a).toMatchObject({ [spec.readField]: 'First', position: 0 });
      expect(b.position).toBe(1);
      const changed = await call(t.app, 'PUT', `${spec.path}/${a.id}`, { ...as(w.tokens.editor), body: text('Changed') });
      expect(changed.statusCode).toBe(200);
      expect(changed.json()[spec.singular]).toMatchObject({ id: a.id, [spec.readField]: 'Changed' });
      const del = await call(t.app, 'DELETE', `${spec.path}/${b.id}`, as(w.tokens.editor));
      expect(del.statusCode).toBe(204);
      expect(del.body).toBe('');
      const list = await call(t.app, 'GET', `${spec.path}/service/${s.id}`, as(w.tokens.editor));
      expect(list.json()).toEqual({ [spec.plural]: [{ id: a.id, [spec.readField]: 'Changed', position: 0 }] });
    });

    it('bumps the service version on a change', async () => {
      const s = await createService(t.db, w.tenant.id);
      await add(s.id, 'Staff');
      const res = await call(t.app, 'GET', `/api/services/${s.id}/settings-data`, as(w.tokens.editor));
      expect(res.json().service.version).toBeGreaterThan(s.version);
    });

    it('reorders items and rejects a list with missing, foreign or repeated ids', async () => {
      const s = await createService(t.db, w.tenant.id);
      const other = await createService(t.db, w.tenant.id);
      const [a, b, c] = [await add(s.id, 'A'), await add(s.id, 'B'), await add(s.id, 'C')];
      const foreign = await add(other.id, 'X');
      const reorder = (ids: unknown) =>
        call(t.app, 'PATCH', `${spec.path}/reorder`, { ...as(w.tokens.editor), body: { serviceId: s.id, [spec.idsField]: ids } });
      const ok = await reorder([c.id, a.id, b.id]);
      expect(ok.statusCode).toBe(200);
      expect(ok.json()[spec.plural].map((r: Item) => r[spec.readField])).toEqual(['C', 'A', 'B']);
      for (const ids of [[c.id, a.id], [c.id, a.id, foreign.id], [c.id, a.id, b.id, b.id], 'nope']) {
        expect((await reorder(ids)).statusCode).toBe(400);
      }
      expect((await reorder([a.id])).json().error).toBe(SETTINGS_MESSAGES.reorderMismatch);
    });

    it(`answers 400 "${spec.requiredMessage}" for a blank or missing text`, async () => {
      const s = await createService(t.db, w.tenant.id);
      for (const body of [{ serviceId: s.id }, { serviceId: s.id, ...text('   ') }, { serviceId: s.id, ...text(7) }]) {
        const res = await call(t.app, 'POST', spec.path, { ...as(w.tokens.editor), body });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ error: spec.requiredMessage, field: spec.field });
      }
      const item = await add(s.id, 'R');
      const put = await call(t.app, 'PUT', `${spec.path}/${item.id}`, { ...as(w.tokens.editor), body: text('') });
      expect(put.json().error).toBe(spec.requiredMessage);
      const noService = await call(t.app, 'POST', spec.path, { ...as(w.tokens.editor), body: text('x') });
      expect(noService.statusCode).toBe(400);
    });

    it('answers 401 without a session', async () => {
      const s = await createService(t.db, w.tenant.id);
      expect((await call(t.app, 'GET', `${spec.path}/service/${s.id}`)).statusCode).toBe(401);
      expect((await call(t.app, 'POST', spec.path, { body: { serviceId: s.id, ...text('x') } })).statusCode).toBe(401);
    });

    it('answers 403 to a reader, and lets a reader with an editor assignment in', async () => {
      const s = await createService(t.db, w.tenant.id);
      const item = await add(s.id, 'R');
      const r = as(w.tokens.reader);
      expect((await call(t.app, 'GET', `${spec.path}/service/${s.id}`, r)).statusCode).toBe(403);
      expect((await call(t.app, 'POST', spec.path, { ...r, body: { serviceId: s.id, ...text('x') } })).statusCode).toBe(403);
      expect((await call(t.app, 'PUT', `${spec.path}/${item.id}`, { ...r, body: text('x') })).statusCode).toBe(403);
      expect((await call(t.app, 'DELETE', `${spec.path}/${item.id}`, r)).statusCode).toBe(403);
      await assignServiceRole(t.db, w.tenant.id, s.id, w.users.reader.id, 'editor');
      expect((await call(t.app, 'POST', spec.path, { ...r, body: { serviceId: s.id, ...text('x') } })).statusCode).toBe(201);
    });

    it("answers 404 for another tenant's service and item, and for malformed ids", async () => {
      const s = await createService(t.db, w.tenant.id);
      const item = await add(s.id, 'R');
      const o = as(w.tokens.otherAdmin, w.other.slug);
      expect((await call(t.app, 'GET', `${spec.path}/service/${s.id}`, o)).statusCode).toBe(404);
      expect((await call(t.app, 'POST', spec.path, { ...o, body: { serviceId: s.id, ...text('x') } })).statusCode).toBe(404);
      expect((await call(t.app, 'PUT', `${spec.path}/${item.id}`, { ...o, body: text('x') })).statusCode).toBe(404);
      expect((await call(t.app, 'DELETE', `${spec.path}/${item.id}`, o)).statusCode).toBe(404);
      expect((await call(t.app, 'DELETE', `${spec.path}/not-a-uuid`, as(w.tokens.editor))).statusCode).toBe(404);
    });

    it('answers 409 on an archived service, and still lists', async () => {
      const s = await createService(t.db, w.tenant.id);
      const item = await add(s.id, 'R');
      await t.db.update(services).set({ archived: true }).where(eq(services.id, s.id));
      const e = as(w.tokens.editor);
      const post = await call(t.app, 'POST', spec.path, { ...e, body: { serviceId: s.id, ...text('x') } });
      expect(post.statusCode).toBe(409);
      expect(post.json().error).toBe(M.serviceArchivedConflict);
      expect((await call(t.app, 'PUT', `${spec.path}/${item.id}`, { ...e, body: text('x') })).statusCode).toBe(409);
      expect((await call(t.app, 'DELETE', `${spec.path}/${item.id}`, e)).statusCode).toBe(409);
      expect((await call(t.app, 'PATCH', `${spec.path}/reorder`, { ...e, body: { serviceId: s.id, [spec.idsField]: [item.id] } })).statusCode).toBe(409);
      expect((await call(t.app, 'GET', `${spec.path}/service/${s.id}`, e)).statusCode).toBe(200);
    });
  });
}

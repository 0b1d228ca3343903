import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../common/messages';
import { SETTINGS_MESSAGES } from '../../../common/schemas/settings';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { assignServiceRole, createService, createWorld, type World } from '../../test/factories';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

const as = (token: string, tenant = w.tenant.slug) => ({ token, tenant });

async function addRole(serviceId: string, roleName: string, token = w.tokens.editor) {
  const res = await call(t.app, 'POST', '/api/actor-roles', { ...as(token), body: { serviceId, roleName } });
  expect(res.statusCode).toBe(201);
  return res.json().role as { id: string; role_name: string; position: number };
}

describe('actor roles', () => {
  it('lets an editor create, list, rename and delete roles in order', async () => {
    const s = await createService(t.db, w.tenant.id);
    const a = await addRole(s.id, '  Student ');
    const b = await addRole(s.id, 'Teacher');
    expect(a).toMatchObject({ role_name: 'Student', position: 0 });
    expect(b.position).toBe(1);
    const renamed = await call(t.app, 'PUT', `/api/actor-roles/${a.id}`, { ...as(w.tokens.editor), body: { roleName: 'Pupil' } });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().role).toMatchObject({ id: a.id, role_name: 'Pupil' });
    const del = await call(t.app, 'DELETE', `/api/actor-roles/${b.id}`, as(w.tokens.editor));
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    const list = await call(t.app, 'GET', `/api/actor-roles/service/${s.id}`, as(w.tokens.editor));
    expect(list.json()).toEqual({ roles: [{ id: a.id, role_name: 'Pupil', position: 0 }] });
  });

  it('bumps the service version on a change', async () => {
    const s = await createService(t.db, w.tenant.id);
    await addRole(s.id, 'Staff');
    const res = await call(t.app, 'GET', `/api/services/${s.id}/settings-data`, as(w.tokens.editor));
    expect(res.json().service.version).toBeGreaterThan(s.version);
  });

  it('reorders roles and rejects a list with missing or foreign ids', async () => {
    const s = await createService(t.db, w.tenant.id);
    const other = await createService(t.db, w.tenant.id);
    const a = await addRole(s.id, 'A');
    const b = await addRole(s.id, 'B');
    const c = await addRole(s.id, 'C');
    const foreign = await addRole(other.id, 'X');
    const ok = await call(t.app, 'PATCH', '/api/actor-roles/reorder', { ...as(w.tokens.editor), body: { serviceId: s.id, roleIds: [c.id, a.id, b.id] } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().roles.map((r: { role_name: string }) => r.role_name)).toEqual(['C', 'A', 'B']);
    for (const roleIds of [[c.id, a.id], [c.id, a.id, foreign.id], [c.id, a.id, b.id, b.id], 'nope']) {
      const bad = await call(t.app, 'PATCH', '/api/actor-roles/reorder', { ...as(w.tokens.editor), body: { serviceId: s.id, roleIds } });
      expect(bad.statusCode).toBe(400);
    }
    const missing = await call(t.app, 'PATCH', '/api/actor-roles/reorder', { ...as(w.tokens.editor), body: { serviceId: s.id, roleIds: [a.id] } });
    expect(missing.json().error).toBe(SETTINGS_MESSAGES.reorderMismatch);
  });

  it('answers 400 "Role name is required" for a blank or missing name', async () => {
    const s = await createService(t.db, w.tenant.id);
    for (const body of [{ serviceId: s.id }, { serviceId: s.id, roleName: '   ' }, { serviceId: s.id, roleName: 7 }]) {
      const res = await call(t.app, 'POST', '/api/actor-roles', { ...as(w.tokens.editor), body });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: M.roleNameRequired, field: 'roleName' });
    }
    const role = await addRole(s.id, 'R');
    const put = await call(t.app, 'PUT', `/api/actor-roles/${role.id}`, { ...as(w.tokens.editor), body: { roleName: '' } });
    expect(put.json().error).toBe(M.roleNameRequired);
    const noService = await call(t.app, 'POST', '/api/actor-roles', { ...as(w.tokens.editor), body: { roleName: 'x' } });
    expect(noService.statusCode).toBe(400);
  });

  it('answers 401 without a session', async () => {
    const s = await createService(t.db, w.tenant.id);
    expect((await call(t.app, 'GET', `/api/actor-roles/service/${s.id}`)).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/api/actor-roles', { body: { serviceId: s.id, roleName: 'x' } })).statusCode).toBe(401);
  });

  it('answers 403 to a reader, and lets a reader with an editor assignment in', async () => {
    const s = await createService(t.db, w.tenant.id);
    const role = await addRole(s.id, 'R');
    const r = as(w.tokens.reader);
    expect((await call(t.app, 'GET', `/api/actor-roles/service/${s.id}`, r)).statusCode).toBe(403);
    expect((await call(t.app, 'POST', '/api/actor-roles', { ...r, body: { serviceId: s.id, roleName: 'x' } })).statusCode).toBe(403);
    expect((await call(t.app, 'PUT', `/api/actor-roles/${role.id}`, { ...r, body: { roleName: 'x' } })).statusCode).toBe(403);
    expect((await call(t.app, 'DELETE', `/api/actor-roles/${role.id}`, r)).statusCode).toBe(403);
    await assignServiceRole(t.db, w.tenant.id, s.id, w.users.reader.id, 'editor');
    expect((await call(t.app, 'POST', '/api/actor-roles', { ...r, body: { serviceId: s.id, roleName: 'x' } })).statusCode).toBe(201);
  });

  it("answers 404 for another tenant's service and role, and for malformed ids", async () => {
    const s = await createService(t.db, w.tenant.id);
    const role = await addRole(s.id, 'R');
    const o = as(w.tokens.otherAdmin, w.other.slug);
    expect((await call(t.app, 'GET', `/api/actor-roles/service/${s.id}`, o)).statusCode).toBe(404);
    expect((await call(t.app, 'POST', '/api/actor-roles', { ...o, body: { serviceId: s.id, roleName: 'x' } })).statusCode).toBe(404);
    expect((await call(t.app, 'PUT', `/api/actor-roles/${role.id}`, { ...o, body: { roleName: 'x' } })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/api/actor-roles/${role.id}`, o)).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', '/api/actor-roles/not-a-uuid', as(w.tokens.editor))).statusCode).toBe(404);
  });

  it('answers 409 on an archived service', async () => {
    const s = await createService(t.db, w.tenant.id);
    const role = await addRole(s.id, 'R');
    const { services } = await import('../../db/schema');
    const { eq } = await import('drizzle-orm');
    await t.db.update(services).set({ archived: true }).where(eq(services.id, s.id));
    const e = as(w.tokens.editor);
    const post = await call(t.app, 'POST', '/api/actor-roles', { ...e, body: { serviceId: s.id, roleName: 'x' } });
    expect(post.statusCode).toBe(409);
    expect(post.json().error).toBe(M.serviceArchivedConflict);
    expect((await call(t.app, 'PUT', `/api/actor-roles/${role.id}`, { ...e, body: { roleName: 'x' } })).statusCode).toBe(409);
    expect((await call(t.app, 'DELETE', `/api/actor-roles/${role.id}`, e)).statusCode).toBe(409);
    expect((await call(t.app, 'PATCH', '/api/actor-roles/reorder', { ...e, body: { serviceId: s.id, roleIds: [role.id] } })).statusCode).toBe(409);
    expect((await call(t.app, 'GET', `/api/actor-roles/service/${s.id}`, e)).statusCode).toBe(200);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../common/messages';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { assignServiceRole, createService, createUser, createWorld, type World } from '../../test/factories';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

const as = (token: string, tenant = w.tenant.slug) => ({ token, tenant });

describe('/api/service-roles', () => {
  it('lets an admin assign by email, list, change and remove', async () => {
    const s = await createService(t.db, w.tenant.id);
    const u = await createUser(t.db, w.tenant.id);
    const add = await call(t.app, 'POST', '/api/service-roles', {
      ...as(w.tokens.admin),
      body: { serviceId: s.id, userEmail: u.email.toUpperCase(), role: 'reader' },
    });
    expect(add.statusCode).toBe(201);
    const id = add.json().assignment.id;
    expect(add.json().assignment).toMatchObject({ user_email: u.email, user_name: u.name, role: 'reader' });
    const list = await call(t.app, 'GET', `/api/service-roles/service/${s.id}`, as(w.tokens.admin));
    expect(list.json().assignments).toEqual([expect.objectContaining({ id, role: 'reader' })]);
    const put = await call(t.app, 'PUT', `/api/service-roles/${id}`, { ...as(w.tokens.admin), body: { role: 'editor' } });
    expect(put.json().assignment.role).toBe('editor');
    expect((await call(t.app, 'DELETE', `/api/service-roles/${id}`, as(w.tokens.admin))).statusCode).toBe(204);
    expect((await call(t.app, 'GET', `/api/service-roles/service/${s.id}`, as(w.tokens.admin))).json().assignments).toEqual([]);
  });

  it('answers 400 for a missing user or role, 404 for a user outside the tenant', async () => {
    const s = await createService(t.db, w.tenant.id);
    const noUser = await call(t.app, 'POST', '/api/service-roles', { ...as(w.tokens.admin), body: { serviceId: s.id, role: 'reader' } });
    expect(noUser.json().error).toBe(M.selectUser);
    const noRole = await call(t.app, 'POST', '/api/service-roles', { ...as(w.tokens.admin), body: { serviceId: s.id, userEmail: w.users.reader.email } });
    expect(noRole.json().error).toBe(M.selectRole);
    const outside = await call(t.app, 'POST', '/api/service-roles', {
      ...as(w.tokens.admin),
      body: { serviceId: s.id, userEmail: w.users.otherAdmin.email, role: 'reader' },
    });
    expect(outside.statusCode).toBe(404);
  });

  it('answers 401, 403 to an editor and 404 to another tenant', async () => {
    const s = await createService(t.db, w.tenant.id);
    const a = await assignServiceRole(t.db, w.tenant.id, s.id, w.users.reader.id, 'editor');
    expect((await call(t.app, 'GET', `/api/service-roles/service/${s.id}`)).statusCode).toBe(401);
    expect((await call(t.app, 'GET', `/api/service-roles/service/${s.id}`, as(w.tokens.editor))).statusCode).toBe(403);
    expect((await call(t.app, 'PUT', `/api/service-roles/${a.id}`, { ...as(w.tokens.editor), body: { role: 'admin' } })).statusCode).toBe(403);
    const o = as(w.tokens.otherAdmin, w.other.slug);
    expect((await call(t.app, 'GET', `/api/service-roles/service/${s.id}`, o)).statusCode).toBe(404);
    expect((await call(t.app, 'PUT', `/api/service-roles/${a.id}`, { ...o, body: { role: 'admin' } })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/api/service-roles/${a.id}`, o)).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', '/api/service-roles/zzz', as(w.tokens.admin))).statusCode).toBe(404);
  });
});

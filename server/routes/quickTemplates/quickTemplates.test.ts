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

async function addTemplate(serviceId: string, templateText: string, token = w.tokens.editor) {
  const res = await call(t.app, 'POST', '/api/quick-templates', { ...as(token), body: { serviceId, templateText } });
  expect(res.statusCode).toBe(201);
  return res.json().template as { id: string; template_text: string; position: number };
}

describe('quick templates', () => {
  it('lets an editor create, list, edit and delete templates in order', async () => {
    const s = await createService(t.db, w.tenant.id);
    const a = await addTemplate(s.id, '  Available ');
    const b = await addTemplate(s.id, 'Teacher');
    expect(a).toMatchObject({ template_text: 'Available', position: 0 });
    expect(b.position).toBe(1);
    const renamed = await call(t.app, 'PUT', `/api/quick-templates/${a.id}`, { ...as(w.tokens.editor), body: { templateText: 'Planned' } });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().template).toMatchObject({ id: a.id, template_text: 'Planned' });
    const del = await call(t.app, 'DELETE', `/api/quick-templates/${b.id}`, as(w.tokens.editor));
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    const list = await call(t.app, 'GET', `/api/quick-templates/service/${s.id}`, as(w.tokens.editor));
    expect(list.json()).toEqual({ templates: [{ id: a.id, template_text: 'Planned', position: 0 }] });
  });

  it('bumps the service version on a change', async () => {
    const s = await createService(t.db, w.tenant.id);
    await addTemplate(s.id, 'Staff');
    const res = await call(t.app, 'GET', `/api/services/${s.id}/settings-data`, as(w.tokens.editor));
    expect(res.json().service.version).toBeGreaterThan(s.version);
  });

  it('reorders templates and rejects a list with missing or foreign ids', async () => {
    const s = await createService(t.db, w.tenant.id);
    const other = await createService(t.db, w.tenant.id);
    const a = await addTemplate(s.id, 'A');
    const b = await addTemplate(s.id, 'B');
    const c = await addTemplate(s.id, 'C');
    const foreign = await addTemplate(other.id, 'X');
    const ok = await call(t.app, 'PATCH', '/api/quick-templates/reorder', { ...as(w.tokens.editor), body: { serviceId: s.id, templateIds: [c.id, a.id, b.id] } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().templates.map((r: { template_text: string }) => r.template_text)).toEqual(['C', 'A', 'B']);
    for (const templateIds of [[c.id, a.id], [c.id, a.id, foreign.id], [c.id, a.id, b.id, b.id], 'nope']) {
      const bad = await call(t.app, 'PATCH', '/api/quick-templates/reorder', { ...as(w.tokens.editor), body: { serviceId: s.id, templateIds } });
      expect(bad.statusCode).toBe(400);
    }
    const missing = await call(t.app, 'PATCH', '/api/quick-templates/reorder', { ...as(w.tokens.editor), body: { serviceId: s.id, templateIds: [a.id] } });
    expect(missing.json().error).toBe(SETTINGS_MESSAGES.reorderMismatch);
  });

  it('answers 400 "Template text is required" for a blank or missing name', async () => {
    const s = await createService(t.db, w.tenant.id);
    for (const body of [{ serviceId: s.id }, { serviceId: s.id, templateText: '   ' }, { serviceId: s.id, templateText: 7 }]) {
      const res = await call(t.app, 'POST', '/api/quick-templates', { ...as(w.tokens.editor), body });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: M.templateTextRequired, field: 'templateText' });
    }
    const role = await addTemplate(s.id, 'R');
    const put = await call(t.app, 'PUT', `/api/quick-templates/${role.id}`, { ...as(w.tokens.editor), body: { templateText: '' } });
    expect(put.json().error).toBe(M.templateTextRequired);
    const noService = await call(t.app, 'POST', '/api/quick-templates', { ...as(w.tokens.editor), body: { templateText: 'x' } });
    expect(noService.statusCode).toBe(400);
  });

  it('answers 401 without a session', async () => {
    const s = await createService(t.db, w.tenant.id);
    expect((await call(t.app, 'GET', `/api/quick-templates/service/${s.id}`)).statusCode).toBe(401);
    expect((await call(t.app, 'POST', '/api/quick-templates', { body: { serviceId: s.id, templateText: 'x' } })).statusCode).toBe(401);
  });

  it('answers 403 to a reader, and lets a reader with an editor assignment in', async () => {
    const s = await createService(t.db, w.tenant.id);
    const role = await addTemplate(s.id, 'R');
    const r = as(w.tokens.reader);
    expect((await call(t.app, 'GET', `/api/quick-templates/service/${s.id}`, r)).statusCode).toBe(403);
    expect((await call(t.app, 'POST', '/api/quick-templates', { ...r, body: { serviceId: s.id, templateText: 'x' } })).statusCode).toBe(403);
    expect((await call(t.app, 'PUT', `/api/quick-templates/${role.id}`, { ...r, body: { templateText: 'x' } })).statusCode).toBe(403);
    expect((await call(t.app, 'DELETE', `/api/quick-templates/${role.id}`, r)).statusCode).toBe(403);
    await assignServiceRole(t.db, w.tenant.id, s.id, w.users.reader.id, 'editor');
    expect((await call(t.app, 'POST', '/api/quick-templates', { ...r, body: { serviceId: s.id, templateText: 'x' } })).statusCode).toBe(201);
  });

  it("answers 404 for another tenant's service and template, and for malformed ids", async () => {
    const s = await createService(t.db, w.tenant.id);
    const role = await addTemplate(s.id, 'R');
    const o = as(w.tokens.otherAdmin, w.other.slug);
    expect((await call(t.app, 'GET', `/api/quick-templates/service/${s.id}`, o)).statusCode).toBe(404);
    expect((await call(t.app, 'POST', '/api/quick-templates', { ...o, body: { serviceId: s.id, templateText: 'x' } })).statusCode).toBe(404);
    expect((await call(t.app, 'PUT', `/api/quick-templates/${role.id}`, { ...o, body: { templateText: 'x' } })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/api/quick-templates/${role.id}`, o)).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', '/api/quick-templates/not-a-uuid', as(w.tokens.editor))).statusCode).toBe(404);
  });

  it('answers 409 on an archived service', async () => {
    const s = await createService(t.db, w.tenant.id);
    const role = await addTemplate(s.id, 'R');
    const { services } = await import('../../db/schema');
    const { eq } = await import('drizzle-orm');
    await t.db.update(services).set({ archived: true }).where(eq(services.id, s.id));
    const e = as(w.tokens.editor);
    const post = await call(t.app, 'POST', '/api/quick-templates', { ...e, body: { serviceId: s.id, templateText: 'x' } });
    expect(post.statusCode).toBe(409);
    expect(post.json().error).toBe(M.serviceArchivedConflict);
    expect((await call(t.app, 'PUT', `/api/quick-templates/${role.id}`, { ...e, body: { templateText: 'x' } })).statusCode).toBe(409);
    expect((await call(t.app, 'DELETE', `/api/quick-templates/${role.id}`, e)).statusCode).toBe(409);
    expect((await call(t.app, 'PATCH', '/api/quick-templates/reorder', { ...e, body: { serviceId: s.id, templateIds: [role.id] } })).statusCode).toBe(409);
    expect((await call(t.app, 'GET', `/api/quick-templates/service/${s.id}`, e)).statusCode).toBe(200);
  });
});

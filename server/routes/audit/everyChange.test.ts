import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { assignServiceRole, createAspect, createCategory, createService, createUser, createWorld, type World } from '../../test/factories';
import { writeAudit } from '../../commands/audit';
import { auditLog, availabilityHistory, users } from '../../db/schema';

/** The quarters the cells below are written in: every service of this file plans them. */
const QUARTERS = ['2030-Q1', '2030-Q2', '2030-Q3', '2030-Q4', '2031-Q1', '2031-Q2', '2031-Q3', '2031-Q4'];

let t: TestApp;
let w: World;

beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

type Entry = {
  id: number;
  action: string;
  actor_kind: string;
  actor_label: string;
  service_id: string | null;
  request_id: string | null;
  target_name: string | null;
  changes: { label: string; from: string | null; to: string | null }[];
  details: Record<string, unknown> | null;
};

const admin = (path: string, query: Record<string, string> = {}) => call(t.app, 'GET', `/api/${path}`, { token: w.tokens.admin, tenant: w.tenant.slug, query });
const entries = async (query: Record<string, string> = {}): Promise<Entry[]> => {
  const res = await admin('audit', { limit: '100', ...query });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().entries;
};
const write = async (method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown, token = w.tokens.editor) => {
  const res = await call(t.app, method, `/api${path}`, { token, tenant: w.tenant.slug, body });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.statusCode === 204 ? null : res.json();
};

describe('every write to the catalog is on the record', () => {
  it('categories, aspects, actor roles, quick templates, snapshots and the service itself, each naming who did it', async () => {
    const service = await createService(t.db, w.tenant.id, { timeline: QUARTERS });
    await assignServiceRole(t.db, w.tenant.id, service.id, w.users.editor.id, 'admin');
    const { category } = await write('POST', '/categories', { serviceId: service.id, name: 'Security' });
    await write('PUT', `/categories/${category.id}`, { name: 'Safety' });
    const { aspect } = await write('POST', '/aspects', { serviceId: service.id, categoryId: category.id, title: 'Backups', description: '' });
    await write('PUT', `/aspects/${aspect.id}`, { title: 'Nightly backups', description: '' });
    await write('PATCH', '/aspects/reorder', { categoryId: category.id, aspectIds: [aspect.id] });
    const { role } = await write('POST', '/actor-roles', { serviceId: service.id, roleName: 'Owner' });
    await write('PUT', `/actor-roles/${role.id}`, { roleName: 'Steward' });
    await write('PATCH', '/actor-roles/reorder', { serviceId: service.id, roleIds: [role.id] });
    await write('DELETE', `/actor-roles/${role.id}`);
    const { template } = await write('POST', '/quick-templates', { serviceId: service.id, templateText: 'GA' });
    await write('PUT', `/quick-templates/${template.id}`, { templateText: 'Beta' });
    await write('DELETE', `/quick-templates/${template.id}`);
    await write('POST', '/snapshots', { serviceId: service.id, label: 'Before the launch' });
    await write('PUT', `/services/${service.id}`, { name: 'Renamed service' });

    const log = await entries({ serviceId: service.id });
    const actions = log.map((e) => e.action).reverse();
    expect(actions).toEqual([
      'category.create',
      'category.update',
      'aspect.create',
      'aspect.update',
      'aspect.reorder',
      'actor_role.create',
      'actor_role.update',
      'actor_role.reorder',
      'actor_role.delete',
      'quick_template.create',
      'quick_template.update',
      'quick_template.delete',
      'snapshot.create',
      'service.update',
    ]);
    const editorName = w.users.editor.name || w.users.editor.email;
    for (const e of log) expect(e).toMatchObject({ actor_kind: 'person', actor_label: editorName, service_id: service.id });
    const byAction = (a: string) => log.find((e) => e.action === a)!;
    expect(byAction('category.update').changes).toEqual([{ label: 'Name', from: 'Security', to: 'Safety' }]);
    expect(byAction('aspect.update').changes).toEqual([{ label: 'Title', from: 'Backups', to: 'Nightly backups' }]);
    expect(byAction('actor_role.update').changes).toEqual([{ label: 'Text', from: 'Owner', to: 'Steward' }]);
    expect(byAction('quick_template.delete').changes).toEqual([{ label: 'Text', from: 'Beta', to: null }]);
    expect(byAction('snapshot.create').changes).toEqual([{ label: 'Snapshot', from: null, to: 'Before the launch' }]);
    expect(byAction('service.update').changes[0]).toEqual({ label: 'Name', from: service.name, to: 'Renamed service' });
  });

  it('a single cell write has its entry, with the text before and after, and the request its history row carries', async () => {
    const service = await createService(t.db, w.tenant.id, { timeline: QUARTERS });
    const category = await createCategory(t.db, w.tenant.id, service.id);
    const aspect = (await createAspect(t.db, w.tenant.id, service.id, category.id, { title: 'Support' }))!;
    await write('POST', '/availabilities', { aspectId: aspect.id, timeBucket: '2030-Q1', value: 'Beta' });
    await write('POST', '/availabilities', { aspectId: aspect.id, timeBucket: '2030-Q1', value: 'GA', expectedValue: 'Beta' });
    const log = await entries({ serviceId: service.id, kind: 'cells' });
    expect(log.map((e) => e.action)).toEqual(['availability.set', 'availability.set']);
    expect(log[0]!.changes).toEqual([
      { label: 'Cells changed', from: null, to: '1' },
      { label: 'Cells', from: null, to: 'Support 2030-Q1' },
      { label: 'Text', from: 'Beta', to: 'GA' },
    ]);
    const history = await t.db.select().from(availabilityHistory).where(eq(availabilityHistory.aspectId, aspect.id));
    expect(new Set(history.map((h) => h.requestId))).toEqual(new Set(log.map((e) => e.request_id)));
    const cells = await admin(`audit/${log[0]!.id}/cells`);
    expect(cells.json().cells).toMatchObject([{ aspect_id: aspect.id, aspect_title: 'Support', time_bucket: '2030-Q1', value: 'GA' }]);
  });

  it('single cell writes sent together in one statement each keep their own entry and request', async () => {
    const service = await createService(t.db, w.tenant.id, { timeline: QUARTERS });
    const category = await createCategory(t.db, w.tenant.id, service.id);
    const aspect = (await createAspect(t.db, w.tenant.id, service.id, category.id))!;
    const quarters = ['2030-Q1', '2030-Q2', '2030-Q3', '2030-Q4', '2031-Q1', '2031-Q2'];
    await Promise.all(quarters.map((q) => write('POST', '/availabilities', { aspectId: aspect.id, timeBucket: q, value: q })));
    const log = await entries({ serviceId: service.id });
    expect(log).toHaveLength(quarters.length);
    const history = await t.db.select().from(availabilityHistory).where(eq(availabilityHistory.aspectId, aspect.id));
    for (const e of log) {
      const rows = history.filter((h) => h.requestId === e.request_id);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.timeBucket).toBe((e.details!.first as { timeBucket: string }).timeBucket);
    }
  });

  it('a paste of 128 cells is one entry with the count and the range, which opens exactly those cells', async () => {
    const service = await createService(t.db, w.tenant.id, { timeline: QUARTERS });
    const category = await createCategory(t.db, w.tenant.id, service.id);
    const aspects = [];
    for (let i = 0; i < 16; i++) aspects.push((await createAspect(t.db, w.tenant.id, service.id, category.id, { title: `Row ${i}` }))!);
    const quarters = ['2030-Q1', '2030-Q2', '2030-Q3', '2030-Q4', '2031-Q1', '2031-Q2', '2031-Q3', '2031-Q4'];
    const cells = aspects.flatMap((a) => quarters.map((q) => ({ aspectId: a.id, timeBucket: q, value: `${a.title} ${q}` })));
    expect(cells).toHaveLength(128);
    await write('POST', '/availabilities/batch', { serviceId: service.id, cells });
    const log = await entries({ serviceId: service.id });
    expect(log).toHaveLength(1);
    const [entry] = log;
    expect(entry!.action).toBe('availability.batch');
    expect(entry!.changes).toEqual([
      { label: 'Cells changed', from: null, to: '128' },
      { label: 'Cells', from: null, to: 'Row 0 2030-Q1 to Row 15 2031-Q4 (16 aspects, 2030-Q1 to 2031-Q4)' },
    ]);
    const opened = (await admin(`audit/${entry!.id}/cells`)).json();
    expect(opened.truncated).toBe(false);
    expect(opened.cells).toHaveLength(128);
    expect(new Set(opened.cells.map((c: { aspect_id: string; time_bucket: string }) => `${c.aspect_id}|${c.time_bucket}`))).toEqual(
      new Set(cells.map((c) => `${c.aspectId}|${c.timeBucket}`)),
    );
    // Another tenant's admin, an editor and an entry that is no cell write get nothing.
    expect((await call(t.app, 'GET', `/api/audit/${entry!.id}/cells`, { token: w.tokens.otherAdmin, tenant: w.other.slug })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/api/audit/${entry!.id}/cells`, { token: w.tokens.editor, tenant: w.tenant.slug })).statusCode).toBe(403);
    const other = (await entries({ kind: 'catalog' }))[0]!;
    expect((await admin(`audit/${other.id}/cells`)).statusCode).toBe(404);
    expect((await admin('audit/abc/cells')).statusCode).toBe(400);
    // The super admin opens it from the panel's audit view.
    const panel = await call(t.app, 'GET', `/api/admin/audit/${entry!.id}/cells`, { token: w.tokens.superAdmin });
    expect(panel.json().cells).toHaveLength(128);
  });

  it('names an API token by name, a super admin impersonating someone, and the system', async () => {
    const service = await createService(t.db, w.tenant.id, { timeline: QUARTERS });
    const category = await createCategory(t.db, w.tenant.id, service.id);
    const aspect = (await createAspect(t.db, w.tenant.id, service.id, category.id))!;
    const token = (await call(t.app, 'POST', '/api/api-tokens', { token: w.tokens.admin, body: { name: 'Release bot', role: 'editor' } })).json();
    await write('POST', '/availabilities/batch', { serviceId: service.id, cells: [{ aspectId: aspect.id, timeBucket: '2030-Q1', value: 'x' }] }, token.secret);
    const imp = await call(t.app, 'POST', '/api/impersonation/start', {
      token: w.tokens.superAdmin,
      body: { userId: w.users.editor.id, tenantId: w.tenant.id },
    });
    expect(imp.statusCode, imp.body).toBe(200);
    await write('POST', '/categories', { serviceId: service.id, name: 'Under impersonation' }, imp.json().token);
    await writeAudit(t.db, { system: 'Import' }, { tenantId: w.tenant.id, action: 'service.import', targetType: 'service', targetId: service.id });
    const log = await entries({ serviceId: service.id });
    const superName = w.users.superAdmin.name || w.users.superAdmin.email;
    const editorName = w.users.editor.name || w.users.editor.email;
    expect(log.map((e) => [e.actor_kind, e.actor_label])).toEqual([
      ['system', 'System (Import)'],
      ['person', `${superName} impersonating ${editorName}`],
      ['api_token', 'API token "Release bot"'],
    ]);
    // The filter by actor finds the token's entries, and the list of actors names it.
    const byToken = await entries({ actorId: token.token.id });
    expect(byToken.map((e) => e.action)).toEqual(['availability.batch']);
    const actors = (await admin('audit/actors')).json().actors;
    expect(actors).toContainEqual({ id: token.token.id, kind: 'api_token', label: 'API token "Release bot"' });
  });

  it('a service role entry names the person, by email once they are gone', async () => {
    const service = await createService(t.db, w.tenant.id, { timeline: QUARTERS });
    const person = await createUser(t.db, w.tenant.id, { role: 'reader' });
    const added = await call(t.app, 'POST', `/api/services/${service.id}/users`, {
      token: w.tokens.admin,
      tenant: w.tenant.slug,
      body: { userId: person.id, role: 'editor' },
    });
    expect(added.statusCode, added.body).toBe(201);
    await t.db.delete(users).where(eq(users.id, person.id));
    const [entry] = await entries({ serviceId: service.id, kind: 'access' });
    expect(entry!.changes).toContainEqual({ label: 'User', from: null, to: person.email });
  });
});

describe('filters and the CSV export', () => {
  it('narrows by service, actor and kind, refuses bad filters, and exports what it shows as CSV', async () => {
    const one = await createService(t.db, w.tenant.id, { timeline: QUARTERS });
    const two = await createService(t.db, w.tenant.id, { timeline: QUARTERS });
    await write('POST', '/categories', { serviceId: one.id, name: '=SUM(A1)' }, w.tokens.admin);
    await write('POST', '/categories', { serviceId: two.id, name: 'Two' }, w.tokens.editor);
    expect((await entries({ serviceId: one.id })).map((e) => e.target_name)).toEqual(['=SUM(A1)']);
    expect((await entries({ serviceId: two.id, actorId: w.users.admin.id })).length).toBe(0);
    expect((await entries({ serviceId: two.id, actorId: w.users.editor.id })).length).toBe(1);
    expect((await entries({ serviceId: two.id, kind: 'cells' })).length).toBe(0);
    expect((await entries({ kind: 'catalog' })).every((e) => /^(category|aspect|actor_role|quick_template)\./.test(e.action))).toBe(true);
    for (const query of [{ serviceId: 'x' }, { actorId: '1' }, { kind: 'everything' }] as Record<string, string>[])
      expect((await admin('audit', query)).statusCode).toBe(400);
    // Other tenants' entries stay out whatever the filter names.
    await write(
      'POST',
      '/categories',
      { serviceId: (await createService(t.db, w.other.id, { timeline: QUARTERS })).id, name: 'Theirs' },
      w.tokens.otherAdmin,
    ).catch(() => null);
    expect((await entries({ actorId: w.users.otherAdmin.id })).length).toBe(0);

    const csv = await admin('audit/export', { serviceId: one.id });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.headers['content-disposition']).toContain('audit-log.csv');
    const lines = csv.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('Time,Actor,Actor kind,Action,Target,Service,Changes,Action code,Target id,Details');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain("'=SUM(A1)");
    expect(lines[1]).toContain('category.create');
    expect((await call(t.app, 'GET', '/api/audit/export', { token: w.tokens.editor, tenant: w.tenant.slug })).statusCode).toBe(403);
    const panel = await call(t.app, 'GET', '/api/admin/audit/export', { token: w.tokens.superAdmin, query: { tenantId: w.tenant.id, kind: 'catalog' } });
    expect(panel.statusCode).toBe(200);
    expect(panel.body).toContain("'=SUM(A1)");
    const rows = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.tenantId, w.tenant.id), eq(auditLog.serviceId, one.id)));
    expect(rows).toHaveLength(1);
  });
});

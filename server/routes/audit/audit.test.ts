import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createAspect, createCategory, createService, createWorld, type World } from '../../test/factories';
import { writeAudit } from '../../commands/audit';

let t: TestApp;
let w: World;

beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
  for (let i = 0; i < 5; i++) {
    await writeAudit(t.db, null, { tenantId: w.tenant.id, action: 'tenant.update', targetType: 'tenant', targetId: w.tenant.id, details: { n: i } });
  }
  await writeAudit(t.db, null, { tenantId: w.other.id, action: 'tenant.update', targetType: 'tenant', targetId: w.other.id, details: { secret: 'other' } });
  await writeAudit(t.db, null, { tenantId: null, action: 'auth.login_failed', details: { platform: true } });
});
afterAll(() => t.close());

describe('GET /api/audit', () => {
  it('answers 401 without a token', async () => {
    expect((await call(t.app, 'GET', '/api/audit', { tenant: w.tenant.slug })).statusCode).toBe(401);
  });

  it('answers 403 to readers and editors', async () => {
    for (const token of [w.tokens.reader, w.tokens.editor]) {
      expect((await call(t.app, 'GET', '/api/audit', { token, tenant: w.tenant.slug })).statusCode).toBe(403);
    }
  });

  it('answers 403 when the tenant header names another tenant', async () => {
    expect((await call(t.app, 'GET', '/api/audit', { token: w.tokens.admin, tenant: w.other.slug })).statusCode).toBe(403);
  });

  it('answers 400 for a bad limit or cursor', async () => {
    for (const query of [{ limit: '0' }, { limit: '101' }, { limit: 'x' }, { before: 'abc' }] as Record<string, string>[]) {
      const res = await call(t.app, 'GET', '/api/audit', { token: w.tokens.admin, tenant: w.tenant.slug, query });
      expect(res.statusCode).toBe(400);
    }
  });

  it("lists only the admin's own tenant's rows, newest first, with the presenter's fields", async () => {
    const res = await call(t.app, 'GET', '/api/audit', { token: w.tokens.admin, tenant: w.tenant.slug });
    expect(res.statusCode).toBe(200);
    const { entries } = res.json();
    expect(entries.every((e: { tenant_id: string }) => e.tenant_id === w.tenant.id)).toBe(true);
    expect(JSON.stringify(entries)).not.toContain('other');
    const ids = entries.map((e: { id: number }) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(Object.keys(entries[0]).sort()).toEqual(
      [
        'action',
        'actor_email',
        'created_at',
        'details',
        'id',
        'impersonator_email',
        'target_id',
        'target_type',
        'tenant_id',
        'actor_kind',
        'actor_name',
        'actor_label',
        'service_id',
        'request_id',
        'impersonator_name',
        'tenant_name',
        'action_label',
        'target_name',
        'service_name',
        'changes',
      ].sort(),
    );
  });

  it('pages with before and limit', async () => {
    const first = (await call(t.app, 'GET', '/api/audit', { token: w.tokens.admin, tenant: w.tenant.slug, query: { limit: '2' } })).json();
    expect(first.entries).toHaveLength(2);
    expect(first.next_before).toBe(first.entries[1].id);
    const second = (
      await call(t.app, 'GET', '/api/audit', { token: w.tokens.admin, tenant: w.tenant.slug, query: { limit: '2', before: String(first.next_before) } })
    ).json();
    expect(second.entries[0].id).toBeLessThan(first.entries[1].id);
  });

  it("lets a super admin read a tenant's log through the tenant header", async () => {
    const res = await call(t.app, 'GET', '/api/audit', { token: w.tokens.superAdmin, tenant: w.other.slug });
    expect(res.statusCode).toBe(200);
    expect(res.json().entries.every((e: { tenant_id: string }) => e.tenant_id === w.other.id)).toBe(true);
  });
});

describe('GET /api/admin/audit', () => {
  it('answers 401 without a token', async () => {
    expect((await call(t.app, 'GET', '/api/admin/audit')).statusCode).toBe(401);
  });

  it('answers 403 to everyone but a super admin, an impersonation token included', async () => {
    const imp = await t.app.tokens.sign({ sub: w.users.admin.id, imp: w.users.superAdmin.id, tid: w.tenant.id, sid: randomUUID(), ttlSeconds: 600 });
    for (const token of [w.tokens.reader, w.tokens.editor, w.tokens.admin, w.tokens.otherAdmin, imp.token]) {
      const res = await call(t.app, 'GET', '/api/admin/audit', { token, query: { tenantId: w.tenant.id } });
      expect(res.statusCode).toBe(403);
    }
  });

  it('answers 400 for a malformed tenant id and 404 for an unknown one', async () => {
    const bad = await call(t.app, 'GET', '/api/admin/audit', { token: w.tokens.superAdmin, query: { tenantId: 'x' } });
    expect(bad.statusCode).toBe(400);
    const unknown = await call(t.app, 'GET', '/api/admin/audit', { token: w.tokens.superAdmin, query: { tenantId: '00000000-0000-4000-8000-000000000000' } });
    expect(unknown.statusCode).toBe(404);
  });

  it("reads any tenant's log", async () => {
    const res = await call(t.app, 'GET', '/api/admin/audit', { token: w.tokens.superAdmin, query: { tenantId: w.other.id } });
    expect(res.statusCode).toBe(200);
    const { entries } = res.json();
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((e: { tenant_id: string }) => e.tenant_id === w.other.id)).toBe(true);
  });

  it('reads the platform rows, which have no tenant, without tenantId', async () => {
    const res = await call(t.app, 'GET', '/api/admin/audit', { token: w.tokens.superAdmin });
    expect(res.statusCode).toBe(200);
    const { entries } = res.json();
    expect(entries.some((e: { details: { platform?: boolean } }) => e.details?.platform)).toBe(true);
    expect(entries.every((e: { tenant_id: string | null }) => e.tenant_id === null)).toBe(true);
  });
});

describe('audit entries in words', () => {
  it('name who did it, the action, its target and what changed, keeping the ids and raw details', async () => {
    const admin = { token: w.tokens.admin, tenant: w.tenant.slug };
    const service = await createService(t.db, w.tenant.id, { name: 'Student Email' });
    const from = await createCategory(t.db, w.tenant.id, service.id, 'Mailboxes', 0);
    const to = await createCategory(t.db, w.tenant.id, service.id, 'Security', 1);
    const moved = await createAspect(t.db, w.tenant.id, service.id, from.id, { title: 'Spam filter' });
    const gone = await createAspect(t.db, w.tenant.id, service.id, from.id, { title: 'Old webmail', position: 1 });
    expect((await call(t.app, 'PUT', `/api/aspects/${moved.id}`, { ...admin, body: { title: 'Spam filter', categoryId: to.id } })).statusCode).toBe(200);
    expect((await call(t.app, 'DELETE', `/api/aspects/${gone.id}`, admin)).statusCode).toBe(204);
    // Renamed after the move: the log shows the name it has now.
    await call(t.app, 'PUT', `/api/aspects/${moved.id}`, { ...admin, body: { title: 'Spam and phishing filter' } });

    const res = await call(t.app, 'GET', '/api/audit', { ...admin, query: { limit: '5' } });
    expect(res.statusCode).toBe(200);
    const byAction = new Map(res.json().entries.map((e: { action: string }) => [e.action, e]));
    expect(byAction.get('aspect.move')).toMatchObject({
      actor_email: w.users.admin.email,
      actor_name: w.users.admin.name,
      tenant_name: w.tenant.name,
      action_label: 'Moved aspect',
      target_type: 'aspect',
      target_id: moved.id,
      target_name: 'Spam and phishing filter',
      service_name: 'Student Email',
      changes: [{ label: 'Category', from: 'Mailboxes', to: 'Security' }],
      details: { from: { id: from.id, name: 'Mailboxes' }, to: { id: to.id, name: 'Security' } },
    });
    // A deleted record is named by what its entry recorded.
    expect(byAction.get('aspect.delete')).toMatchObject({
      action_label: 'Deleted aspect',
      target_id: gone.id,
      target_name: 'Old webmail',
      service_name: 'Student Email',
    });
  });

  it('name the users and tenants of role and membership changes for the super admin', async () => {
    const reader = w.users.reader;
    await writeAudit(t.db, null, {
      tenantId: w.tenant.id,
      action: 'user.role_change',
      targetType: 'user',
      targetId: reader.id,
      details: { from: 'reader', to: 'editor' },
    });
    await writeAudit(t.db, null, {
      tenantId: w.tenant.id,
      action: 'user.memberships_change',
      targetType: 'user',
      targetId: reader.id,
      details: { from: [w.tenant.id], to: [w.tenant.id, w.other.id] },
    });
    const log = await call(t.app, 'GET', '/api/admin/audit', { token: w.tokens.superAdmin, query: { tenantId: w.tenant.id, limit: '2' } });
    const [memberships, role] = log.json().entries;
    expect(role).toMatchObject({ action_label: 'Changed the role of', target_name: reader.name, changes: [{ label: 'Role', from: 'reader', to: 'editor' }] });
    expect(memberships).toMatchObject({
      action: 'user.memberships_change',
      target_id: reader.id,
      target_name: reader.name,
      changes: [{ label: 'Tenants', from: w.tenant.name, to: `${w.tenant.name}, ${w.other.name}` }],
    });
  });
});

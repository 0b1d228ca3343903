import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { INTEGRATION_MESSAGES } from '../../../common/schemas/integrations';
import { M } from '../../../common/messages';
import { buildTestApp, call, type TestApp } from '../../test/app';
import { createUser, createWorld, signIn, type World } from '../../test/factories';
import { apiTokens, users } from '../../db/schema';

/**
 * A token's rights are its role capped by its creator's current rights in its tenant
 * (docs/decisions/0144-roles-per-membership.md): once they no longer cover it, it is suspended,
 * answers 401 saying why, and a tenant admin can re-issue it under their own name.
 */
let t: TestApp;
let w: World;

beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
});
afterAll(() => t.close());

/** A second admin of the tenant, signed in, and a token of theirs. */
async function adminWithToken(role: 'reader' | 'editor' | 'admin' = 'admin') {
  const creator = await createUser(t.db, w.tenant.id, { role: 'admin' });
  const session = await signIn(t.app, creator.email);
  const res = await call(t.app, 'POST', '/api/api-tokens', { token: session, body: { name: `Pipeline ${creator.id.slice(0, 6)}`, role } });
  expect(res.statusCode, res.body).toBe(201);
  return { creator, session, id: res.json().token.id as string, secret: res.json().secret as string };
}

const services = (secret: string) => call(t.app, 'GET', '/api/services', { token: secret });
const listed = async (id: string) =>
  ((await call(t.app, 'GET', '/api/api-tokens', { token: w.tokens.admin })).json().tokens as { id: string; suspended_reason: string | null }[]).find(
    (k) => k.id === id,
  );

describe('an API token whose creator no longer holds its role', () => {
  it('answers 401 saying why once the creator is demoted below it, and is shown suspended', async () => {
    const k = await adminWithToken('admin');
    expect((await services(k.secret)).statusCode).toBe(200);
    expect((await listed(k.id))?.suspended_reason).toBeNull();
    expect((await call(t.app, 'PATCH', `/api/users/${k.creator.id}`, { token: w.tokens.admin, body: { role: 'editor' } })).statusCode).toBe(200);
    const refused = await services(k.secret);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error).toBe(INTEGRATION_MESSAGES.tokenSuspendedCreatorDemoted);
    expect((await listed(k.id))?.suspended_reason).toBe(INTEGRATION_MESSAGES.tokenSuspendedCreatorDemoted);
    // Raised again, the token works again.
    expect((await call(t.app, 'PATCH', `/api/users/${k.creator.id}`, { token: w.tokens.admin, body: { role: 'admin' } })).statusCode).toBe(200);
    expect((await services(k.secret)).statusCode).toBe(200);
  });

  it('keeps working while the creator still covers its role', async () => {
    const k = await adminWithToken('reader');
    expect((await call(t.app, 'PATCH', `/api/users/${k.creator.id}`, { token: w.tokens.admin, body: { role: 'editor' } })).statusCode).toBe(200);
    expect((await services(k.secret)).statusCode).toBe(200);
  });

  it('is suspended when its creator leaves the tenant or is deleted, or was already gone', async () => {
    const left = await adminWithToken('reader');
    const other = await createUser(t.db, w.other.id, { role: 'admin', extraTenantIds: [w.tenant.id] });
    const session = await signIn(t.app, other.email);
    const made = await call(t.app, 'POST', '/api/api-tokens', { token: session, tenant: w.tenant.slug, body: { name: 'From elsewhere', role: 'reader' } });
    expect(made.statusCode, made.body).toBe(201);
    expect((await call(t.app, 'DELETE', `/api/users/${other.id}`, { token: w.tokens.admin })).statusCode).toBe(204);
    expect((await services(made.json().secret)).json().error).toBe(INTEGRATION_MESSAGES.tokenSuspendedCreatorLeft);

    expect((await call(t.app, 'DELETE', `/api/users/${left.creator.id}`, { token: w.tokens.admin })).statusCode).toBe(204);
    const gone = await services(left.secret);
    expect(gone.statusCode).toBe(401);
    expect(gone.json().error).toBe(INTEGRATION_MESSAGES.tokenSuspendedCreatorGone);

    // A token whose creator was gone before tokens were capped: the same.
    const orphan = await adminWithToken('reader');
    await t.db.update(apiTokens).set({ createdBy: null }).where(eq(apiTokens.id, orphan.id));
    expect((await services(orphan.secret)).json().error).toBe(INTEGRATION_MESSAGES.tokenSuspendedCreatorGone);
  });
});

describe('POST /api/api-tokens/:id/reissue', () => {
  it("makes a new secret under the caller's name: the new one works, the old one is refused, audited", async () => {
    const k = await adminWithToken('editor');
    await t.db.delete(users).where(eq(users.id, k.creator.id));
    const res = await call(t.app, 'POST', `/api/api-tokens/${k.id}/reissue`, { token: w.tokens.admin });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().token).toMatchObject({ id: k.id, role: 'editor', suspended_reason: null });
    expect(res.json().secret).not.toBe(k.secret);
    expect((await services(res.json().secret)).statusCode).toBe(200);
    const old = await services(k.secret);
    expect(old.statusCode).toBe(401);
    expect(old.json().error).toBe(M.sessionExpired);
    const [row] = await t.db.select().from(apiTokens).where(eq(apiTokens.id, k.id));
    expect(row?.createdBy).toBe(w.users.admin.id);
  });

  it('answers 403 to an API token and to editors, 404 for another tenant, and changes nothing', async () => {
    const k = await adminWithToken('admin');
    const reissue = (token: string, tenant?: string) => call(t.app, 'POST', `/api/api-tokens/${k.id}/reissue`, { token, tenant });
    expect((await reissue(k.secret)).statusCode).toBe(403);
    expect((await reissue(w.tokens.editor)).statusCode).toBe(403);
    expect((await reissue(w.tokens.otherAdmin, w.other.slug)).statusCode).toBe(404);
    expect((await services(k.secret)).statusCode).toBe(200);
  });
});

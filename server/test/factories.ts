import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Role } from '../../common/roles';
import type { Executor } from '../db';
import { apiTokens, categories, aspects, availabilities, services, tenantMemberships, tenants, users, serviceRoleAssignments } from '../db/schema';
import { newApiTokenSecret } from '../auth/apiTokens';
import { hashPassword } from '../auth/passwords';
import { defaultTimeline } from '../../common/quarters';
import { call } from './app';

export const PASSWORD = 'correct-horse-battery';
let hash: Promise<string> | undefined;
const passwordHash = () => (hash ??= hashPassword(PASSWORD));

const unique = () => randomBytes(4).toString('hex');

export async function createTenant(db: Executor, overrides: Partial<typeof tenants.$inferInsert> = {}) {
  const u = unique();
  const [t] = await db
    .insert(tenants)
    .values({ name: `Tenant ${u}`, slug: `tenant-${u}`, ...overrides })
    .returning();
  return t;
}

export async function createUser(
  db: Executor,
  tenantId: string,
  overrides: Partial<typeof users.$inferInsert> & { role?: Role; extraTenantIds?: string[] } = {},
) {
  const { extraTenantIds = [], role = 'reader', ...rest } = overrides;
  const u = unique();
  const [user] = await db
    .insert(users)
    .values({ email: `user-${u}@example.com`, name: `User ${u}`, tenantId, passwordHash: await passwordHash(), ...rest })
    .returning();
  // The same role in every tenant given: a test that needs another role in one tenant sets that membership's.
  await db.insert(tenantMemberships).values([tenantId, ...extraTenantIds].map((t) => ({ userId: user.id, tenantId: t, role })));
  return { ...user, role };
}

export async function createService(db: Executor, tenantId: string, overrides: Partial<typeof services.$inferInsert> = {}) {
  const u = unique();
  const [s] = await db
    .insert(services)
    .values({ tenantId, name: `Service ${u}`, slug: `service-${u}`, timeline: defaultTimeline(), ...overrides })
    .returning();
  return s;
}

export async function createCategory(db: Executor, tenantId: string, serviceId: string, name = 'Category', position = 0) {
  const [c] = await db.insert(categories).values({ tenantId, serviceId, name, position }).returning();
  return c;
}

export async function createAspect(
  db: Executor,
  tenantId: string,
  serviceId: string,
  categoryId: string,
  overrides: Partial<typeof aspects.$inferInsert> = {},
) {
  const [a] = await db
    .insert(aspects)
    .values({ tenantId, serviceId, categoryId, title: `Aspect ${unique()}`, ...overrides })
    .returning();
  return a;
}

export async function setAvailability(db: Executor, tenantId: string, serviceId: string, aspectId: string, timeBucket: string, value: string) {
  await db.insert(availabilities).values({ tenantId, serviceId, aspectId, timeBucket, value });
}

export async function assignServiceRole(db: Executor, tenantId: string, serviceId: string, userId: string, role: Role) {
  const [a] = await db.insert(serviceRoleAssignments).values({ tenantId, serviceId, userId, role }).returning();
  return a;
}

/** An API token of the tenant, stored as POST /api/api-tokens stores one; answers its row and its secret. */
export async function createApiToken(
  db: Executor,
  tenantId: string,
  overrides: Partial<Omit<typeof apiTokens.$inferInsert, 'secretHash' | 'hint'>> & { role: Role },
) {
  const { secret, hash, hint } = newApiTokenSecret();
  // Made by an admin of the tenant unless a creator is given: a token is capped by its creator's rights.
  const createdBy = overrides.createdBy === undefined ? (await createUser(db, tenantId, { role: 'admin' })).id : overrides.createdBy;
  const [row] = await db
    .insert(apiTokens)
    .values({ tenantId, name: `Token ${unique()}`, secretHash: hash, hint, ...overrides, createdBy })
    .returning();
  return { ...row!, secret };
}

export async function signIn(app: FastifyInstance, email: string, password = PASSWORD): Promise<string> {
  const res = await call(app, 'POST', '/api/auth/login', { body: { email, password } });
  if (res.statusCode !== 200) throw new Error(`sign-in failed for ${email}: ${res.statusCode} ${res.body}`);
  return res.json().token;
}

/**
 * A tenant with one user of each role, a super admin, and a second tenant with its own admin,
 * every one signed in: the cast most API tests need.
 */
export async function createWorld(app: FastifyInstance, db: Executor) {
  const tenant = await createTenant(db);
  const other = await createTenant(db);
  const reader = await createUser(db, tenant.id, { role: 'reader' });
  const editor = await createUser(db, tenant.id, { role: 'editor' });
  const admin = await createUser(db, tenant.id, { role: 'admin' });
  const superAdmin = await createUser(db, tenant.id, { role: 'admin', superAdmin: true });
  const otherAdmin = await createUser(db, other.id, { role: 'admin' });
  const [readerToken, editorToken, adminToken, superToken, otherAdminToken] = await Promise.all(
    [reader, editor, admin, superAdmin, otherAdmin].map((u) => signIn(app, u.email)),
  );
  return {
    tenant,
    other,
    users: { reader, editor, admin, superAdmin, otherAdmin },
    tokens: { reader: readerToken, editor: editorToken, admin: adminToken, superAdmin: superToken, otherAdmin: otherAdminToken },
  };
}
export type World = Awaited<ReturnType<typeof createWorld>>;

import { and, asc, eq, gt, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Executor } from '../client';
import { impersonations, serviceRoleAssignments, tenantMemberships, tenants, users } from '../schema';
import type { UserWithTenants } from './users';

/** A user with memberships and the name of their primary tenant. */
export interface UserListing extends UserWithTenants {
  tenantName: string | null;
}

const memberOf = (tenantId: string) =>
  or(eq(users.tenantId, tenantId), sql`exists(select 1 from tenant_memberships m where m.user_id = ${users.id} and m.tenant_id = ${tenantId})`);

async function listUsers(db: Executor, where?: ReturnType<typeof and>): Promise<UserListing[]> {
  const q = db
    .select({
      user: users,
      tenantName: tenants.name,
      tenantIds: sql<string[]>`coalesce((select array_agg(m.tenant_id::text order by m.tenant_id) from tenant_memberships m where m.user_id = ${users.id}), '{}')`,
    })
    .from(users)
    .leftJoin(tenants, eq(tenants.id, users.tenantId));
  const rows = await (where ? q.where(where) : q).orderBy(asc(users.name), asc(users.email));
  return rows.map((r) => {
    const ids = new Set([r.user.tenantId, ...(r.tenantIds ?? [])]);
    return { ...r.user, tenantIds: [...ids], tenantName: r.tenantName ?? null };
  });
}

/** Every user of the installation (super admin panel). */
export function listAllUsers(db: Executor): Promise<UserListing[]> {
  return listUsers(db);
}

/** The users who belong to one tenant (primary tenant or membership). */
export function listTenantUsers(db: Executor, tenantId: string): Promise<UserListing[]> {
  return listUsers(db, and(memberOf(tenantId)));
}

export async function findAnyUser(db: Executor, userId: string): Promise<UserListing | undefined> {
  const [row] = await listUsers(db, and(eq(users.id, userId)));
  return row;
}

/** A user of the given tenant; users of other tenants are not found. */
export async function findTenantUser(db: Executor, tenantId: string, userId: string): Promise<UserListing | undefined> {
  const [row] = await listUsers(db, and(eq(users.id, userId), memberOf(tenantId)));
  return row;
}

export interface NewUser {
  email: string;
  name: string;
  role: 'reader' | 'editor' | 'admin';
  tenantId: string;
  passwordHash: string | null;
}

/** Creates a user and their primary membership; answers undefined when the email is taken. */
export async function insertUser(db: Executor, input: NewUser) {
  const [row] = await db
    .insert(users)
    .values({ ...input, userGroup: 'manual', authProvider: input.passwordHash ? 'local' : 'entra' })
    .onConflictDoNothing()
    .returning();
  if (!row) return undefined;
  await db.insert(tenantMemberships).values({ userId: row.id, tenantId: input.tenantId }).onConflictDoNothing();
  return row;
}

export async function deleteUser(db: Executor, userId: string): Promise<void> {
  await db.delete(users).where(eq(users.id, userId));
}

/** Takes a user out of one tenant: the membership and their service roles there. */
export async function removeFromTenant(db: Executor, tenantId: string, userId: string): Promise<void> {
  await db.delete(tenantMemberships).where(and(eq(tenantMemberships.tenantId, tenantId), eq(tenantMemberships.userId, userId)));
  await db
    .delete(serviceRoleAssignments)
    .where(and(eq(serviceRoleAssignments.tenantId, tenantId), eq(serviceRoleAssignments.userId, userId)));
}

export async function setUserRole(db: Executor, userId: string, role: NewUser['role']): Promise<void> {
  await db.update(users).set({ role }).where(eq(users.id, userId));
}

export async function countTenants(db: Executor, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await db.select({ id: tenants.id }).from(tenants).where(inArray(tenants.id, ids));
  return rows.length;
}

/** Replaces a user's memberships; leaving a tenant also drops their service roles there. */
export async function replaceMemberships(db: Executor, userId: string, tenantIds: string[]): Promise<void> {
  const current = await db.select({ tenantId: tenantMemberships.tenantId }).from(tenantMemberships).where(eq(tenantMemberships.userId, userId));
  const keep = new Set(tenantIds);
  for (const { tenantId } of current) {
    if (!keep.has(tenantId)) await removeFromTenant(db, tenantId, userId);
  }
  await db
    .insert(tenantMemberships)
    .values(tenantIds.map((tenantId) => ({ userId, tenantId })))
    .onConflictDoNothing();
}

export async function insertImpersonation(db: Executor, row: typeof impersonations.$inferInsert) {
  const [created] = await db.insert(impersonations).values(row).returning();
  return created;
}

/** Impersonations of a super admin that have neither ended nor expired. */
export async function activeImpersonations(db: Executor, superAdminId: string) {
  return db
    .select({ impersonation: impersonations, user: { id: users.id, name: users.name, email: users.email }, tenant: tenants })
    .from(impersonations)
    .innerJoin(users, eq(users.id, impersonations.impersonatedUserId))
    .innerJoin(tenants, eq(tenants.id, impersonations.tenantId))
    .where(
      and(eq(impersonations.superAdminId, superAdminId), isNull(impersonations.endedAt), gt(impersonations.expiresAt, sql`now()`)),
    )
    .orderBy(asc(impersonations.startedAt));
}

/** The impersonation an impersonation token was issued for (revoking the token ends it: revokeToken). */
export async function findImpersonationByToken(db: Executor, tokenJti: string) {
  const [row] = await db.select().from(impersonations).where(eq(impersonations.tokenJti, tokenJti)).limit(1);
  return row;
}

/** Email addresses of users, by id (audit rows name people, not only ids). */
export async function emailsOf(db: Executor, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.select({ id: users.id, email: users.email }).from(users).where(inArray(users.id, [...new Set(ids)]));
  return new Map(rows.map((r) => [r.id, r.email]));
}

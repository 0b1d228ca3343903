import { and, eq, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../client';
import { SESSION_TENANTS_CAP } from '../../../common/limits';
import type { Role } from '../../../common/roles';
import { impersonations, revokedTokens, tenants, users } from '../schema';

export type UserRow = typeof users.$inferSelect;
export type TenantRow = typeof tenants.$inferSelect;

/**
 * A user with the ids of every tenant they belong to (the primary tenant included) and their role
 * in each (roles are held per membership: docs/decisions/0144-roles-per-membership.md). `role` is
 * the role in the primary tenant; a request's actor carries the role in the tenant it works in.
 */
export interface UserWithTenants extends Omit<UserRow, 'legacyRole'> {
  tenantIds: string[];
  role: Role;
  roles: Readonly<Record<string, Role>>;
}

/** A person's memberships as one JSON object, tenant id -> role, read in the same statement as the user. */
export const membershipRoles = (userId: SQL) =>
  sql<Record<string, Role> | null>`(select json_object_agg(m.tenant_id::text, m.role) from tenant_memberships m where m.user_id = ${userId})`;

/** The person's role in a tenant they belong to; a membership missing (a record from before memberships held roles) reads as reader. */
export function roleIn(user: Pick<UserWithTenants, 'roles'>, tenantId: string): Role {
  return user.roles[tenantId] ?? 'reader';
}

export async function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.email, email.toLowerCase())).limit(1);
  return row;
}

/**
 * Loads a session's user, their memberships and whether the token was revoked, in one statement.
 * An impersonation token names the super admin's session it was started from (`sessionJti`): it
 * counts as revoked as soon as that session is.
 */
export async function loadSessionUser(
  db: Executor,
  userId: string,
  jti: string,
  sessionJti?: string,
): Promise<{ user: UserWithTenants; revoked: boolean } | undefined> {
  const revoked = sessionJti
    ? sql<boolean>`exists(select 1 from revoked_tokens r where r.jti = ${jti} or r.jti = ${sessionJti})`
    : sql<boolean>`exists(select 1 from revoked_tokens r where r.jti = ${jti})`;
  const rows = await db
    .select({
      user: users,
      roles: membershipRoles(sql`${users.id}`),
      revoked,
    })
    .from(users)
    .where(eq(users.id, userId))
    .limit(1);
  const row = rows[0];
  if (!row) return undefined;
  return { user: withMemberships(row.user, row.roles), revoked: Boolean(row.revoked) };
}

export async function loadUserWithTenants(db: Executor, userId: string): Promise<UserWithTenants | undefined> {
  const [row] = await db
    .select({ user: users, roles: membershipRoles(sql`${users.id}`) })
    .from(users)
    .where(eq(users.id, userId))
    .limit(1);
  return row ? withMemberships(row.user, row.roles) : undefined;
}

/** A user row with its memberships: the primary tenant first, each with its role. */
export function withMemberships(row: UserRow, roles: Record<string, Role> | null): UserWithTenants {
  const { legacyRole: _unread, ...user } = row;
  const held = roles ?? {};
  const tenantIds = [...new Set([user.tenantId, ...Object.keys(held)])];
  return { ...user, tenantIds, roles: held, role: roleIn({ roles: held }, user.tenantId) };
}

export async function findTenantBySlug(db: Executor, slug: string): Promise<TenantRow | undefined> {
  const [row] = await db.select().from(tenants).where(eq(tenants.slug, slug)).limit(1);
  return row;
}

export async function findTenantById(db: Executor, id: string): Promise<TenantRow | undefined> {
  const [row] = await db.select().from(tenants).where(eq(tenants.id, id)).limit(1);
  return row;
}

/**
 * The active tenants a person may switch to, by name: their memberships; a super admin's every
 * tenant, at most SESSION_TENANTS_CAP of them, then those of `always` (the tenant worked in, the
 * person's own) that the cap left out. `total` counts them all.
 */
export async function listAvailableTenants(
  db: Executor,
  user: UserWithTenants,
  superAdmin: boolean,
  always: string[] = [],
): Promise<{ tenants: TenantRow[]; total: number }> {
  const where = superAdmin
    ? eq(tenants.archived, false)
    : and(eq(tenants.archived, false), inArray(tenants.id, user.tenantIds.length ? user.tenantIds : [user.tenantId]));
  const query = db.select().from(tenants).where(where).orderBy(tenants.name);
  // The first by name from the index on names; counted apart only when the cap was reached.
  const listed = await (superAdmin ? query.limit(SESSION_TENANTS_CAP) : query);
  const total =
    listed.length < SESSION_TENANTS_CAP || !superAdmin
      ? listed.length
      : ((
          await db
            .select({ n: sql<number>`count(*)`.mapWith(Number) })
            .from(tenants)
            .where(where)
        )[0]?.n ?? listed.length);
  const missing = [...new Set(always)].filter((id) => !listed.some((t) => t.id === id));
  if (total > listed.length && missing.length) {
    listed.push(
      ...(await db
        .select()
        .from(tenants)
        .where(and(where, inArray(tenants.id, missing)))
        .orderBy(tenants.name)),
    );
  }
  return { tenants: listed, total };
}

export type ImpersonationRow = typeof impersonations.$inferSelect;

/**
 * Revokes a token. Every running impersonation it carries, or that was started from it (a super
 * admin's session), ends with it, whatever the revocation's cause; answers those impersonations so
 * that the caller can audit them.
 */
export async function revokeToken(db: Executor, jti: string, expiresAt: Date): Promise<ImpersonationRow[]> {
  await db.insert(revokedTokens).values({ jti, expiresAt }).onConflictDoNothing();
  return db
    .update(impersonations)
    .set({ endedAt: new Date() })
    .where(and(isNull(impersonations.endedAt), or(eq(impersonations.tokenJti, jti), eq(impersonations.sessionJti, jti))))
    .returning();
}

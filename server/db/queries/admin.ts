import { and, asc, eq, gt, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../client';
import { impersonations, serviceRoleAssignments, tenantMemberships, tenants, users } from '../schema';
import type { Role } from '../../../common/roles';
import { membershipRoles, roleIn, withMemberships, type UserWithTenants } from './users';

/** A user with memberships and the name of their primary tenant. */
export interface UserListing extends UserWithTenants {
  tenantName: string | null;
}

/*
 * The ids of a tenant's users: its own (primary tenant) and its members from elsewhere, each from
 * its index. A condition `tenant_id = X or exists(membership)` on users is checked against every
 * user of the installation; this union costs what the tenant holds.
 */
export const tenantUserIds = (tenantId: string) =>
  sql`(select u.id from users u where u.tenant_id = ${tenantId} union select m.user_id from tenant_memberships m where m.tenant_id = ${tenantId})`;

const memberOf = (tenantId: string) => sql`${users.id} in ${tenantUserIds(tenantId)}`;

/** One page of a list of users: a search on name or email, after a (name, email) key, at most `limit` rows. */
export interface UserPageRequest {
  search?: string;
  after?: [name: string, email: string];
  limit: number;
  group?: 'manual' | 'entra_auto';
}

/** `%`, `_` and `\` are taken as typed, not as patterns. */
export const likeText = (search: string) => `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function pageConditions(page: UserPageRequest | undefined): SQL[] {
  const out: SQL[] = [];
  if (page?.search) out.push(sql`(${users.name} ilike ${likeText(page.search)} or ${users.email} ilike ${likeText(page.search)})`);
  if (page?.after) out.push(sql`(${users.name}, ${users.email}) > (${page.after[0]}, ${page.after[1]})`);
  if (page?.group) out.push(eq(users.userGroup, page.group));
  return out;
}

/** The ids of the tenants a user is a member of, in one order (an empty list for none). */
const tenantIdsOf = (userId: SQL) =>
  sql<string[]>`coalesce((select array_agg(m.tenant_id::text order by m.tenant_id) from tenant_memberships m where m.user_id = ${userId}), '{}')`;

/** What a user's listing reads: the user, the primary tenant's name and the tenants they belong to with their role in each. */
const listingColumns = {
  user: users,
  tenantName: tenants.name,
  roles: membershipRoles(sql`${users.id}`),
};

/** A user's tenants: the primary one first, then those they are a member of. */
const withPrimary = (primary: string, memberships: readonly string[] | null) => [...new Set([primary, ...(memberships ?? [])])];

/**
 * A listed user; `role` is their role in `tenantId` when the list is a tenant's, else in their
 * primary tenant (the super admin panel's Role column).
 */
function listing(r: { user: typeof users.$inferSelect | null; tenantName: string | null; roles: Record<string, Role> | null }, tenantId?: string): UserListing {
  const user = withMemberships(r.user!, r.roles);
  return { ...user, role: tenantId ? roleIn(user, tenantId) : user.role, tenantName: r.tenantName ?? null };
}

function usersQuery(db: Executor, where: SQL[], page?: UserPageRequest, tenantId?: string) {
  const conditions = [...where, ...pageConditions(page)];
  const base = db.select(listingColumns).from(users);
  // A tenant's list starts from its user ids, so that the plan reads only its users' rows.
  const q = (tenantId ? base.innerJoin(sql`${tenantUserIds(tenantId)} as member_ids`, sql`member_ids.id = ${users.id}`) : base).leftJoin(
    tenants,
    eq(tenants.id, users.tenantId),
  );
  const ordered = (conditions.length ? q.where(and(...conditions)) : q).orderBy(asc(users.name), asc(users.email));
  return page ? ordered.limit(page.limit) : ordered;
}

/** The statement that lists a tenant's users (its plan is checked by the tests). */
export const tenantUsersStatement = (db: Executor, tenantId: string, page?: UserPageRequest) => usersQuery(db, [], page, tenantId).getSQL();

async function listUsers(db: Executor, where: SQL[], page?: UserPageRequest, tenantId?: string, roleTenantId = tenantId): Promise<UserListing[]> {
  const rows = await usersQuery(db, where, page, tenantId);
  return rows.map((r) => listing(r, roleTenantId));
}

/** Every user of the installation (super admin panel), or one page of them. */
export function listAllUsers(db: Executor, page?: UserPageRequest): Promise<UserListing[]> {
  return listUsers(db, [], page);
}

/** The users who belong to one tenant (primary tenant or membership), or one page of them. */
export function listTenantUsers(db: Executor, tenantId: string, page?: UserPageRequest): Promise<UserListing[]> {
  return listUsers(db, [], page, tenantId);
}

/** What a row of a tenant's user list shows of a member: the fields the user shape is built from. */
export type ListedMember = Pick<
  UserListing,
  'id' | 'name' | 'email' | 'role' | 'superAdmin' | 'tenantId' | 'tenantIds' | 'userGroup' | 'authProvider' | 'createdAt' | 'tenantName'
>;

/** A row of one page of a tenant's user list: a member (with what the list shows of them), or a pending invitation's id. */
export interface TenantPersonKey {
  id: string;
  invitation: boolean;
  /** The member, read in the same statement as the page; none for an invitation. */
  user?: ListedMember;
}

/** A row of the page's statement; the member's columns are null on an invitation's row. */
interface PersonRow {
  id: string;
  invitation: boolean;
  email: string;
  name: string;
  role: ListedMember['role'] | null;
  super_admin: boolean;
  tenant_id: string;
  user_group: ListedMember['userGroup'];
  auth_provider: ListedMember['authProvider'];
  created_at: string | Date;
  tenant_name: string | null;
  tenant_ids: string[];
}

/**
 * One page of the tenant's user list as GET /api/users shows it: its members, and its pending
 * invitations in place of the invited accounts, in one order (name, then email, which is unique
 * across both), so that a cursor never skips or repeats a row. The members' rows come with the
 * page, in one statement of the columns the list shows, read without the query builder's mapping
 * (at a page of 100 rows the mapping cost more than the statement).
 */
export async function pageTenantPeople(db: Executor, tenantId: string, page: UserPageRequest): Promise<TenantPersonKey[]> {
  const res = await db.execute(sql`
    select p.id, p.invitation, u.email, u.name, tm.role, u.super_admin, u.tenant_id, u.user_group, u.auth_provider, u.created_at,
      t.name as tenant_name,
      ${tenantIdsOf(sql`u.id`)} as tenant_ids
    from (${tenantPeopleStatement(tenantId, page, true)}) p
    left join users u on u.id = p.id and not p.invitation
    left join tenant_memberships tm on tm.user_id = u.id and tm.tenant_id = ${tenantId}
    left join tenants t on t.id = u.tenant_id
    order by p.name, p.email`);
  return (res as unknown as { rows: PersonRow[] }).rows.map((r) => {
    const id = String(r.id);
    if (r.invitation) return { id, invitation: true };
    const user: ListedMember = {
      id,
      name: r.name,
      email: r.email,
      role: r.role ?? 'reader',
      superAdmin: r.super_admin,
      tenantId: r.tenant_id,
      tenantIds: withPrimary(r.tenant_id, r.tenant_ids),
      userGroup: r.user_group,
      authProvider: r.auth_provider,
      createdAt: new Date(r.created_at),
      tenantName: r.tenant_name,
    };
    return { id, invitation: false, user };
  });
}

/**
 * The statement of pageTenantPeople (its plan is checked by the tests). Each of the three sources
 * (the tenant's own users, its members from other tenants, its pending invitations) gives its
 * first page in the list's order on its own, so a page of a large tenant reads about a page of
 * rows from the (name, email) index rather than every member; the three pages are then merged.
 */
export function tenantPeopleStatement(tenantId: string, page: UserPageRequest, ordered = false): SQL {
  const where = (name: SQL, email: SQL): SQL => {
    const out: SQL[] = [];
    if (page.search) out.push(sql`(${name} ilike ${likeText(page.search)} or ${email} ilike ${likeText(page.search)})`);
    if (page.after) out.push(sql`(${name}, ${email}) > (${page.after[0]}, ${page.after[1]})`);
    return out.length ? sql` and ${sql.join(out, sql` and `)}` : sql``;
  };
  const notInvited = sql`not exists (select 1 from tenant_invitations i where i.tenant_id = ${tenantId} and i.user_id = u.id)`;
  const users = where(sql`u.name`, sql`u.email`);
  return sql`
    select p.id, p.invitation${ordered ? sql`, p.name, p.email` : sql``} from (
      (select u.id, u.name, u.email, false as invitation from users u
        where u.tenant_id = ${tenantId} and ${notInvited}${users}
        order by u.name, u.email limit ${page.limit})
      union all
      (select u.id, u.name, u.email, false as invitation from tenant_memberships m join users u on u.id = m.user_id
        where m.tenant_id = ${tenantId} and u.tenant_id <> ${tenantId} and ${notInvited}${users}
        order by u.name, u.email limit ${page.limit})
      union all
      (select i.id, i.name, u.email, true as invitation from tenant_invitations i join users u on u.id = i.user_id
        where i.tenant_id = ${tenantId}${where(sql`i.name`, sql`u.email`)}
        order by i.name, u.email limit ${page.limit})
    ) p
    order by p.name, p.email
    limit ${page.limit}`;
}

export async function findAnyUser(db: Executor, userId: string): Promise<UserListing | undefined> {
  const [row] = await listUsers(db, [eq(users.id, userId)]);
  return row;
}

/** A user of the given tenant, with their role there; users of other tenants are not found. */
export async function findTenantUser(db: Executor, tenantId: string, userId: string): Promise<UserListing | undefined> {
  const [row] = await listUsers(db, [eq(users.id, userId), memberOf(tenantId)], undefined, undefined, tenantId);
  return row;
}

export interface NewUser {
  email: string;
  name: string;
  role: 'reader' | 'editor' | 'admin';
  tenantId: string;
  passwordHash: string | null;
}

/** Creates a user and their primary membership with its role; answers undefined when the email is taken. */
export async function insertUser(db: Executor, input: NewUser): Promise<UserWithTenants | undefined> {
  const { role, ...account } = input;
  const [row] = await db
    .insert(users)
    .values({ ...account, legacyRole: role, userGroup: 'manual', authProvider: input.passwordHash ? 'local' : 'entra' })
    .onConflictDoNothing()
    .returning();
  if (!row) return undefined;
  await db.insert(tenantMemberships).values({ userId: row.id, tenantId: input.tenantId, role }).onConflictDoNothing();
  return withMemberships(row, { [input.tenantId]: role });
}

export async function deleteUser(db: Executor, userId: string): Promise<void> {
  await db.delete(users).where(eq(users.id, userId));
}

/** Takes a user out of one tenant: the membership and their service roles there. */
export async function removeFromTenant(db: Executor, tenantId: string, userId: string): Promise<void> {
  await db.delete(tenantMemberships).where(and(eq(tenantMemberships.tenantId, tenantId), eq(tenantMemberships.userId, userId)));
  await db.delete(serviceRoleAssignments).where(and(eq(serviceRoleAssignments.tenantId, tenantId), eq(serviceRoleAssignments.userId, userId)));
}

/** Sets a member's role in one tenant; answers whether they were a member there. */
export async function setMembershipRole(db: Executor, tenantId: string, userId: string, role: Role): Promise<boolean> {
  const rows = await db
    .update(tenantMemberships)
    .set({ role })
    .where(and(eq(tenantMemberships.tenantId, tenantId), eq(tenantMemberships.userId, userId)))
    .returning({ userId: tenantMemberships.userId });
  return rows.length > 0;
}

export async function countTenants(db: Executor, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await db.select({ id: tenants.id }).from(tenants).where(inArray(tenants.id, ids));
  return rows.length;
}

/**
 * Replaces a user's memberships; leaving a tenant also drops their service roles there. A tenant
 * given with a role takes that role; one given without keeps the role held there, or for a new
 * membership takes `defaultRole` (the role in the primary tenant).
 */
export async function replaceMemberships(
  db: Executor,
  userId: string,
  memberships: readonly { tenantId: string; role?: Role }[],
  defaultRole: Role,
): Promise<void> {
  const current = await db.select({ tenantId: tenantMemberships.tenantId }).from(tenantMemberships).where(eq(tenantMemberships.userId, userId));
  const keep = new Set(memberships.map((m) => m.tenantId));
  for (const { tenantId } of current) {
    if (!keep.has(tenantId)) await removeFromTenant(db, tenantId, userId);
  }
  await db
    .insert(tenantMemberships)
    .values(memberships.map((m) => ({ userId, tenantId: m.tenantId, role: m.role ?? defaultRole })))
    .onConflictDoNothing();
  for (const m of memberships) if (m.role) await setMembershipRole(db, m.tenantId, userId, m.role);
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
    .where(and(eq(impersonations.superAdminId, superAdminId), isNull(impersonations.endedAt), gt(impersonations.expiresAt, sql`now()`)))
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
  const rows = await db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(inArray(users.id, [...new Set(ids)]));
  return new Map(rows.map((r) => [r.id, r.email]));
}

import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import type { Role } from '../../../common/roles';
import type { Executor } from '../client';
import { tenantUserIds } from './admin';
import { actorRoleQueries, quickTemplateQueries } from './orderedTags';
import {
  actorRoles,
  aspects,
  availabilities,
  categories,
  quickTemplates,
  serviceRoleAssignments,
  services,
  snapshots,
  tenantInvitations,
  users,
} from '../schema';

export type ActorRoleRow = typeof actorRoles.$inferSelect;
export type QuickTemplateRow = typeof quickTemplates.$inferSelect;
export type SnapshotRow = typeof snapshots.$inferSelect;

// ---------------------------------------------------------------- actor roles, quick templates

// One set of queries serves both ordered lists (db/queries/orderedTags.ts); these read them with the service.
export const listActorRoles = actorRoleQueries.list;
export const listQuickTemplates = quickTemplateQueries.list;

// ---------------------------------------------------------------- user assignments

/*
 * A person with a pending invitation to the tenant (an account outside it, or one created in it that
 * has not signed in yet: decision 0110) is shown to the tenant's admins as the invitation: its id
 * and the name entered, never the account's own id or name, so that both cases read the same.
 */
const pendingHere = (tenantId: string) => and(eq(tenantInvitations.tenantId, tenantId), eq(tenantInvitations.userId, users.id));

const assignmentColumns = {
  id: serviceRoleAssignments.id,
  userId: sql<string>`coalesce(${tenantInvitations.id}, ${serviceRoleAssignments.userId})`,
  serviceId: serviceRoleAssignments.serviceId,
  role: serviceRoleAssignments.role,
  userEmail: users.email,
  userName: sql<string>`coalesce(${tenantInvitations.name}, ${users.name})`,
  createdAt: serviceRoleAssignments.createdAt,
};
/** `userId` is the id the tenant's admins know the person by: the invitation's while one is pending. */
export type AssignmentRow = { id: string; userId: string; serviceId: string; role: Role; userEmail: string; userName: string; createdAt: Date };

export function listAssignments(db: Executor, tenantId: string, serviceId: string): Promise<AssignmentRow[]> {
  return db
    .select(assignmentColumns)
    .from(serviceRoleAssignments)
    .innerJoin(users, eq(users.id, serviceRoleAssignments.userId))
    .leftJoin(tenantInvitations, pendingHere(tenantId))
    .where(and(eq(serviceRoleAssignments.tenantId, tenantId), eq(serviceRoleAssignments.serviceId, serviceId)))
    .orderBy(asc(users.email));
}

/** One assignment, by its id or by the service and the id the admins know the person by. */
export async function findAssignment(
  db: Executor,
  tenantId: string,
  where: { id: string } | { serviceId: string; userId: string },
): Promise<AssignmentRow | undefined> {
  const cond = 'id' in where ? eq(serviceRoleAssignments.id, where.id) : and(eq(serviceRoleAssignments.serviceId, where.serviceId), knownAs(where.userId));
  const [row] = await db
    .select(assignmentColumns)
    .from(serviceRoleAssignments)
    .innerJoin(users, eq(users.id, serviceRoleAssignments.userId))
    .leftJoin(tenantInvitations, pendingHere(tenantId))
    .where(and(eq(serviceRoleAssignments.tenantId, tenantId), cond))
    .limit(1);
  return row;
}

/** The person the admins know by `id`: the invitation's id while one is pending, else the user's. */
const knownAs = (id: string) => sql`(${tenantInvitations.id} = ${id} or (${tenantInvitations.id} is null and ${users.id} = ${id}))`;

/** The id of an account's assignment to a service, by the account's own id. */
export async function findAssignmentOf(db: Executor, tenantId: string, serviceId: string, accountId: string): Promise<string> {
  const [row] = await db
    .select({ id: serviceRoleAssignments.id })
    .from(serviceRoleAssignments)
    .where(and(eq(serviceRoleAssignments.tenantId, tenantId), eq(serviceRoleAssignments.serviceId, serviceId), eq(serviceRoleAssignments.userId, accountId)))
    .limit(1);
  return row!.id;
}

/** Creates an assignment; undefined when the user is already assigned to the service. */
export async function insertAssignment(db: Executor, tenantId: string, serviceId: string, userId: string, role: Role) {
  const [row] = await db
    .insert(serviceRoleAssignments)
    .values({ tenantId, serviceId, userId, role })
    .onConflictDoNothing({ target: [serviceRoleAssignments.serviceId, serviceRoleAssignments.userId] })
    .returning({ id: serviceRoleAssignments.id });
  return row;
}

export async function updateAssignmentRole(db: Executor, tenantId: string, id: string, role: Role) {
  await db
    .update(serviceRoleAssignments)
    .set({ role })
    .where(and(eq(serviceRoleAssignments.tenantId, tenantId), eq(serviceRoleAssignments.id, id)));
}

export async function deleteAssignment(db: Executor, tenantId: string, id: string) {
  await db.delete(serviceRoleAssignments).where(and(eq(serviceRoleAssignments.tenantId, tenantId), eq(serviceRoleAssignments.id, id)));
}

// ---------------------------------------------------------------- tenant users

const memberOf = (tenantId: string) => sql`${users.id} in ${tenantUserIds(tenantId)}`;

/** A person the tenant's admins can assign: `id` is the one they know (see pendingHere), `accountId` the user's. */
export interface AssignableUser {
  id: string;
  accountId: string;
  name: string;
  email: string;
  role: Role;
}

/** What a person the tenant's admins can assign is listed with: the role is the one held in this tenant (or the invitation's). */
const assignableColumns = (tenantId: string) => ({
  id: sql<string>`coalesce(${tenantInvitations.id}, ${users.id})`,
  accountId: users.id,
  name: sql<string>`coalesce(${tenantInvitations.name}, ${users.name})`,
  email: users.email,
  role: sql<Role>`coalesce(${tenantInvitations.role}, (select m.role from tenant_memberships m where m.user_id = ${users.id} and m.tenant_id = ${tenantId}), 'reader')`,
});

/**
 * The people who can be assigned to the tenant's services: its members and its pending invitees
 * alike, the latter as entered (an invitee's assignment grants nothing until they join: the tenant
 * plugin refuses non-members).
 */
export function listTenantUsers(db: Executor, tenantId: string): Promise<AssignableUser[]> {
  // From the ids of its members and invitees (each read by its index), not from every user.
  const ids = sql`(${tenantUserIds(tenantId)} union select i.user_id from tenant_invitations i where i.tenant_id = ${tenantId})`;
  const columns = assignableColumns(tenantId);
  return db
    .select(columns)
    .from(users)
    .innerJoin(sql`${ids} as assignable_ids`, sql`assignable_ids.id = ${users.id}`)
    .leftJoin(tenantInvitations, pendingHere(tenantId))
    .orderBy(asc(columns.name), asc(users.email));
}

export async function findTenantUser(db: Executor, tenantId: string, where: { id: string } | { email: string }): Promise<AssignableUser | undefined> {
  const cond = 'id' in where ? knownAs(where.id) : eq(users.email, where.email.toLowerCase());
  const [row] = await db
    .select(assignableColumns(tenantId))
    .from(users)
    .leftJoin(tenantInvitations, pendingHere(tenantId))
    .where(and(cond, sql`(${memberOf(tenantId)} or ${tenantInvitations.id} is not null)`))
    .limit(1);
  return row;
}

// ---------------------------------------------------------------- snapshots

/** A service's snapshots, newest first; `before` is the id of the last one of the page before. */
export function listSnapshots(db: Executor, tenantId: string, serviceId: string, opts: { publicOnly: boolean; before?: string; limit: number }) {
  const conditions: SQL[] = [eq(snapshots.tenantId, tenantId), eq(snapshots.serviceId, serviceId)];
  if (opts.publicOnly) conditions.push(eq(snapshots.visibility, 'public'));
  // The place of `before` in the order below (time desc, id asc); an unknown id gives an empty page.
  if (opts.before !== undefined) {
    conditions.push(sql`exists (select 1 from snapshots b where b.id = ${opts.before} and b.service_id = ${serviceId}
      and (${snapshots.createdAt} < b.created_at or (${snapshots.createdAt} = b.created_at and ${snapshots.id} > b.id)))`);
  }
  return db
    .select({
      id: snapshots.id,
      serviceId: snapshots.serviceId,
      label: snapshots.label,
      visibility: snapshots.visibility,
      note: snapshots.note,
      createdBy: snapshots.createdBy,
      createdAt: snapshots.createdAt,
    })
    .from(snapshots)
    .where(and(...conditions))
    .orderBy(sql`${snapshots.createdAt} desc`, asc(snapshots.id))
    .limit(opts.limit);
}

export async function findSnapshot(db: Executor, tenantId: string, id: string): Promise<SnapshotRow | undefined> {
  const [row] = await db
    .select()
    .from(snapshots)
    .where(and(eq(snapshots.tenantId, tenantId), eq(snapshots.id, id)))
    .limit(1);
  return row;
}

// ---------------------------------------------------------------- whole catalog of one service

/** Every content row of one service, ordered as the catalog shows it (export, snapshot, CSV). */
export async function loadServiceContent(db: Executor, tenantId: string, serviceId: string) {
  const scoped = <T extends { tenantId: any; serviceId: any }>(t: T) => and(eq(t.tenantId, tenantId), eq(t.serviceId, serviceId));
  // One after another: inside a transaction they share one connection.
  const cats = await db.select().from(categories).where(scoped(categories)).orderBy(asc(categories.position), asc(categories.name), asc(categories.id));
  const asps = await db.select().from(aspects).where(scoped(aspects)).orderBy(asc(aspects.position), asc(aspects.title), asc(aspects.id));
  const avails = await db.select().from(availabilities).where(scoped(availabilities)).orderBy(asc(availabilities.aspectId), asc(availabilities.timeBucket));
  const roles = await listActorRoles(db, tenantId, serviceId);
  const templates = await listQuickTemplates(db, tenantId, serviceId);
  return { categories: cats, aspects: asps, availabilities: avails, roles, templates };
}
export type ServiceContent = Awaited<ReturnType<typeof loadServiceContent>>;

/** The tenant's service names that are `base` or `base (n)`: what a proposed free name must avoid. */
export async function namesLike(db: Executor, tenantId: string, base: string): Promise<Set<string>> {
  const rows = await db
    .select({ name: services.name })
    .from(services)
    .where(and(eq(services.tenantId, tenantId), sql`(${services.name} = ${base} or left(${services.name}, length(${base}) + 2) = ${`${base} (`})`));
  return new Set(rows.map((r) => r.name));
}

/** Slugs of a tenant that start with the given base: used to pick a free slug. */
export async function slugsLike(db: Executor, tenantId: string, base: string): Promise<Set<string>> {
  const rows = await db
    .select({ slug: services.slug })
    .from(services)
    .where(and(eq(services.tenantId, tenantId), sql`(${services.slug} = ${base} or ${services.slug} like ${`${base}-%`})`));
  return new Set(rows.map((r) => r.slug));
}

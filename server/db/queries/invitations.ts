import { aliasedTable, and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../client';
import { tenantInvitations, tenantMemberships, tenants, users } from '../schema';
import type { TenantRow } from './users';

export type InvitationRow = typeof tenantInvitations.$inferSelect;

/** An invitation with the address it was sent to (the account's email, which the admin typed). */
export interface TenantInvitation extends InvitationRow {
  email: string;
}

/** The invitee is not (or no longer) a member of the invitation's tenant: accepting would add nothing. */
const stillOutside = sql`not exists(select 1 from tenant_memberships m where m.user_id = ${tenantInvitations.userId} and m.tenant_id = ${tenantInvitations.tenantId})
  and ${users.tenantId} <> ${tenantInvitations.tenantId}`;

/** Whether the account belongs to the tenant: its primary tenant, or a membership. */
export async function belongsTo(db: Executor, tenantId: string, user: { id: string; tenantId: string }): Promise<boolean> {
  if (user.tenantId === tenantId) return true;
  const rows = await db
    .select({ userId: tenantMemberships.userId })
    .from(tenantMemberships)
    .where(and(eq(tenantMemberships.tenantId, tenantId), eq(tenantMemberships.userId, user.id)))
    .limit(1);
  return rows.length > 0;
}

export async function insertInvitation(db: Executor, row: typeof tenantInvitations.$inferInsert): Promise<InvitationRow | undefined> {
  const [created] = await db.insert(tenantInvitations).values(row).onConflictDoNothing().returning();
  return created;
}

/**
 * The tenant's pending invitations, as its admins see them: of accounts outside the tenant and of
 * accounts created in it that have not signed in yet alike (decision 0110).
 */
export async function listTenantInvitations(db: Executor, tenantId: string, ids?: string[]): Promise<TenantInvitation[]> {
  if (ids?.length === 0) return [];
  const rows = await db
    .select({ invitation: tenantInvitations, email: users.email })
    .from(tenantInvitations)
    .innerJoin(users, eq(users.id, tenantInvitations.userId))
    .where(ids ? and(eq(tenantInvitations.tenantId, tenantId), inArray(tenantInvitations.id, ids)) : eq(tenantInvitations.tenantId, tenantId))
    .orderBy(asc(tenantInvitations.name), asc(users.email));
  return rows.map((r) => ({ ...r.invitation, email: r.email }));
}

/** One invitation of the tenant; another tenant's is not found. */
export async function findTenantInvitation(db: Executor, tenantId: string, id: string): Promise<TenantInvitation | undefined> {
  const [row] = await db
    .select({ invitation: tenantInvitations, email: users.email })
    .from(tenantInvitations)
    .innerJoin(users, eq(users.id, tenantInvitations.userId))
    .where(and(eq(tenantInvitations.tenantId, tenantId), eq(tenantInvitations.id, id)))
    .limit(1);
  return row ? { ...row.invitation, email: row.email } : undefined;
}

/** The tenant's pending invitation of an account, by the account's id. */
export async function findInvitationOf(db: Executor, tenantId: string, userId: string): Promise<InvitationRow | undefined> {
  const [row] = await db
    .select()
    .from(tenantInvitations)
    .where(and(eq(tenantInvitations.tenantId, tenantId), eq(tenantInvitations.userId, userId)))
    .limit(1);
  return row;
}

/** Changes the role a pending invitation grants; answers whether it was the tenant's. */
export async function setInvitationRole(db: Executor, tenantId: string, id: string, role: InvitationRow['role']): Promise<boolean> {
  const rows = await db
    .update(tenantInvitations)
    .set({ role })
    .where(and(eq(tenantInvitations.tenantId, tenantId), eq(tenantInvitations.id, id)))
    .returning({ id: tenantInvitations.id });
  return rows.length > 0;
}

export async function deleteInvitation(db: Executor, tenantId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(tenantInvitations)
    .where(and(eq(tenantInvitations.tenantId, tenantId), eq(tenantInvitations.id, id)))
    .returning({ id: tenantInvitations.id });
  return rows.length > 0;
}

/**
 * The invitations of a person to tenants they already belong to (an account created by a tenant
 * admin, or added to the tenant since): their sign-in accepts these, there is nothing to choose.
 */
export async function listInvitationsOfMember(db: Executor, userId: string): Promise<InvitationRow[]> {
  const rows = await db
    .select({ invitation: tenantInvitations })
    .from(tenantInvitations)
    .innerJoin(users, eq(users.id, tenantInvitations.userId))
    .where(and(eq(tenantInvitations.userId, userId), sql`not (${stillOutside})`))
    .orderBy(asc(tenantInvitations.createdAt), asc(tenantInvitations.id));
  return rows.map((r) => r.invitation);
}

const inviters = aliasedTable(users, 'inviters');

/** An invitation as its invitee sees it: the tenant and who sent it, nothing the admin entered. */
export interface ReceivedInvitation {
  id: string;
  tenantName: string;
  invitedByName: string | null;
  createdAt: Date;
}

/** The invitations addressed to a person that they can act on: active tenants they are not in yet. */
export async function listReceivedInvitations(db: Executor, userId: string): Promise<ReceivedInvitation[]> {
  // Awaited here, so that the statement runs in the scope its caller chose (a builder runs when awaited).
  return await db
    .select({ id: tenantInvitations.id, tenantName: tenants.name, invitedByName: inviters.name, createdAt: tenantInvitations.createdAt })
    .from(tenantInvitations)
    .innerJoin(tenants, eq(tenants.id, tenantInvitations.tenantId))
    .innerJoin(users, eq(users.id, tenantInvitations.userId))
    .leftJoin(inviters, eq(inviters.id, tenantInvitations.invitedBy))
    .where(and(eq(tenantInvitations.userId, userId), eq(tenants.archived, false), stillOutside))
    .orderBy(asc(tenantInvitations.createdAt), asc(tenantInvitations.id));
}

/** One invitation addressed to this person, with its tenant; anybody else's is not found. */
export async function findReceivedInvitation(db: Executor, userId: string, id: string): Promise<{ invitation: InvitationRow; tenant: TenantRow } | undefined> {
  const [row] = await db
    .select({ invitation: tenantInvitations, tenant: tenants })
    .from(tenantInvitations)
    .innerJoin(tenants, eq(tenants.id, tenantInvitations.tenantId))
    .where(and(eq(tenantInvitations.userId, userId), eq(tenantInvitations.id, id)))
    .limit(1);
  return row;
}

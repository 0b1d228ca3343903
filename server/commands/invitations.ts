import { M } from '../../common/messages';
import { INVITATION_MESSAGES } from '../../common/schemas/invitations';
import type { Executor } from '../db';
import { and, eq } from 'drizzle-orm';
import { deleteUser, removeFromTenant } from '../db/queries/admin';
import {
  belongsTo,
  deleteInvitation,
  findReceivedInvitation,
  listInvitationsOfMember,
  listReceivedInvitations,
  type InvitationRow,
  type TenantInvitation,
} from '../db/queries/invitations';
import { loadUserWithTenants, type TenantRow } from '../db/queries/users';
import { serviceRoleAssignments, tenantMemberships } from '../db/schema';
import { asSystem } from '../db/scope';
import { conflict, notFound } from '../errors';
import type { Actor } from '../plugins/context';
import { presentReceivedInvitation } from '../presenters/invitations';
import { writeAudit } from './audit';

/**
 * Invitations as their invitee sees and answers them (docs/decisions/0110-user-creation-without-enumeration.md).
 * An invitation is addressed to a person, in a tenant they do not belong to yet, so these work in
 * the system scope, always filtered by the caller's own user id: anyone else's invitation is a 404.
 */

/** The caller's pending invitations, for the session answers (login, /auth/me). */
export async function loadReceivedInvitations(db: Executor, userId: string) {
  const rows = await asSystem(() => listReceivedInvitations(db, userId));
  return rows.map(presentReceivedInvitation);
}

/**
 * The invitee joins the tenant with exactly the role the inviter chose (roles are held per
 * membership: their role in their other tenants is unchanged); their password stays their own. The
 * assignment the admin asked for (a service's Create New User) was made with the invitation and
 * now takes effect.
 */
export async function acceptInvitation(db: Executor, actor: Actor, id: string): Promise<TenantRow> {
  return asSystem(() =>
    db.transaction(async (tx) => {
      const found = await findReceivedInvitation(tx, actor.user.id, id);
      if (!found) throw notFound(INVITATION_MESSAGES.notFound);
      const { invitation, tenant } = found;
      if (tenant.archived) throw conflict(M.tenantArchived);
      await tx.insert(tenantMemberships).values({ userId: actor.user.id, tenantId: tenant.id, role: invitation.role }).onConflictDoNothing();
      await recordAcceptance(tx, actor, invitation);
      return tenant;
    }),
  );
}

/**
 * At each sign-in (password or Microsoft, before the session is issued): the person's pending
 * invitations to tenants they already belong to (an account a tenant admin created) are accepted,
 * as joining would be, so that they never see a notice for a tenant they are in, and the tenant's
 * list shows them as they are from then on.
 */
export async function acceptInvitationsOfMember(db: Executor, user: { id: string; email: string }): Promise<void> {
  await asSystem(() =>
    db.transaction(async (tx) => {
      const actor = { actorId: user.id, actorEmail: user.email };
      for (const invitation of await listInvitationsOfMember(tx, user.id)) await recordAcceptance(tx, actor, invitation);
    }),
  );
}

/** The invitation goes and the tenant's log says so: one audit row, whichever way it was accepted. */
async function recordAcceptance(tx: Executor, actor: Actor | { actorId: string; actorEmail: string }, invitation: InvitationRow): Promise<void> {
  const who = 'user' in actor ? actor : null;
  const userId = 'user' in actor ? actor.user.id : actor.actorId;
  await deleteInvitation(tx, invitation.tenantId, invitation.id);
  await writeAudit(tx, who, {
    ...(who ? {} : actor),
    tenantId: invitation.tenantId,
    action: 'invitation.accept',
    targetType: 'invitation',
    targetId: invitation.id,
    details: { userId },
  });
}

/** The invitee declines: the invitation goes with the assignments it made, and the tenant's log says so. */
export async function declineInvitation(db: Executor, actor: Actor, id: string): Promise<void> {
  await asSystem(() =>
    db.transaction(async (tx) => {
      const found = await findReceivedInvitation(tx, actor.user.id, id);
      if (!found) throw notFound(INVITATION_MESSAGES.notFound);
      await deleteInvitation(tx, found.tenant.id, found.invitation.id);
      await dropOutsiderAssignments(tx, found.tenant.id, actor.user.id);
      await writeAudit(tx, actor, {
        tenantId: found.tenant.id,
        action: 'invitation.decline',
        targetType: 'invitation',
        targetId: found.invitation.id,
        details: { userId: actor.user.id },
      });
    }),
  );
}

/**
 * The assignments an account outside the tenant holds there were made by its invitation (leaving a
 * tenant drops them): they go with it. A member's stay.
 */
async function dropOutsiderAssignments(tx: Executor, tenantId: string, userId: string): Promise<void> {
  const account = await loadUserWithTenants(tx, userId);
  if (!account || (await belongsTo(tx, tenantId, account))) return;
  await tx.delete(serviceRoleAssignments).where(and(eq(serviceRoleAssignments.tenantId, tenantId), eq(serviceRoleAssignments.userId, userId)));
}

/**
 * A tenant admin withdraws a pending invitation of their tenant (Delete in Tenant Settings). For an
 * account outside the tenant the invitation goes with the assignments it made; for an account that
 * belongs to the tenant, the person goes as deleting them would (the whole account when this is its
 * primary tenant, as for an account created here that never signed in). The log reads the same.
 */
export async function withdrawInvitation(db: Executor, actor: Actor, invitation: TenantInvitation): Promise<void> {
  await db.transaction(async (tx) => {
    await deleteInvitation(tx, invitation.tenantId, invitation.id);
    const account = await loadUserWithTenants(tx, invitation.userId);
    if (account && account.tenantId === invitation.tenantId) await deleteUser(tx, account.id);
    else if (account && (await belongsTo(tx, invitation.tenantId, account))) await removeFromTenant(tx, invitation.tenantId, account.id);
    else await dropOutsiderAssignments(tx, invitation.tenantId, invitation.userId);
    await writeAudit(tx, actor, {
      tenantId: invitation.tenantId,
      action: 'invitation.withdraw',
      targetType: 'invitation',
      targetId: invitation.id,
      details: { email: invitation.email },
    });
  });
}

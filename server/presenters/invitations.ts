import type { ReceivedInvitation } from '../../common/schemas/invitations';
import type { ReceivedInvitation as ReceivedRow } from '../db/queries/invitations';
import type { CreatedUserView } from '../commands/createUser';
import { presentUser } from './users';

/** An invitation as its invitee sees it: who invited them to which tenant, and when. */
export function presentReceivedInvitation(row: ReceivedRow): ReceivedInvitation {
  return { id: row.id, tenant_name: row.tenantName, invited_by_name: row.invitedByName, created_at: row.createdAt.toISOString() };
}

/** A row of the tenant's user list: a member, or a pending invitation with what the admin entered. */
export function presentTenantListUser(user: CreatedUserView, invitation: boolean) {
  return { ...presentUser(user, user.tenantName), invitation };
}

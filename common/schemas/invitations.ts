/** Messages and texts of tenant invitations (docs/decisions/0110-user-creation-without-enumeration.md). */
export const INVITATION_MESSAGES = {
  notFound: 'Invitation not found',
  failedJoin: 'Failed to join the tenant',
  failedDecline: 'Failed to decline the invitation',
} as const;

/** The dashboard notice of a pending invitation. */
export function invitationNotice(inviterName: string | null, tenantName: string): string {
  return inviterName ? `${inviterName} invited you to ${tenantName}` : `You are invited to ${tenantName}`;
}

/** An invitation as its invitee receives it (GET /auth/me, POST /auth/login). */
export interface ReceivedInvitation {
  id: string;
  tenant_name: string;
  invited_by_name: string | null;
  created_at: string;
}

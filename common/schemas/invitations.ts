import { z } from 'zod';
import { isoDateTime } from './api';

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
export const receivedInvitationSchema = z.object({
  id: z.uuid(),
  tenant_name: z.string(),
  invited_by_name: z.string().nullable(),
  created_at: isoDateTime,
});
export type ReceivedInvitation = z.infer<typeof receivedInvitationSchema>;

import { INVITATION_MESSAGES } from '../../common/schemas/invitations';
import type { SessionTenant } from './storage';
import { request } from './client';

/** Joins the tenant of an invitation addressed to the signed-in person. */
export const acceptInvitation = (id: string) =>
  request<{ tenant: SessionTenant }>(`/invitations/${id}/accept`, { method: 'POST', body: {}, fallback: INVITATION_MESSAGES.failedJoin });

/** Declines an invitation addressed to the signed-in person. */
export const declineInvitation = (id: string) => request<void>(`/invitations/${id}`, { method: 'DELETE', fallback: INVITATION_MESSAGES.failedDecline });

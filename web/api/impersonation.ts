import { M } from '../../common/messages';
import { request } from './client';
import type { LoginAnswer } from './auth';

export interface StartAnswer extends LoginAnswer {
  impersonation: {
    id: string;
    impersonated_user: { id: string; name: string; email: string };
    tenant: { id: string; name: string; slug: string };
    reason: string | null;
  };
}

/** Starts impersonating a user in a tenant; the reason (optional) goes into the tenant's audit log. */
export const startImpersonation = (userId: string, tenantId: string, reason?: string) =>
  request<StartAnswer>('/impersonation/start', { method: 'POST', body: { userId, tenantId, reason }, fallback: M.failedStartImpersonation });

/**
 * Ends the impersonation. The answer's token belongs to the super admin's session the impersonation
 * was started from (same session, same expiry), so storing it restores that session.
 */
export const stopImpersonation = () => request<LoginAnswer>('/impersonation/stop', { method: 'POST' });

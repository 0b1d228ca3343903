import { M } from '../../common/messages';
import { request } from './client';
import type { LoginAnswer } from './auth';

export interface StartAnswer extends LoginAnswer {
  impersonation: { id: string; impersonated_user: { id: string; name: string; email: string }; tenant: { id: string; name: string; slug: string } };
}

export const startImpersonation = (userId: string, tenantId: string) =>
  request<StartAnswer>('/impersonation/start', { method: 'POST', body: { userId, tenantId }, fallback: M.failedStartImpersonation });

export const stopImpersonation = () => request<LoginAnswer>('/impersonation/stop', { method: 'POST' });

import type { TenantPermissions } from '../../common/permissions';
import { M } from '../../common/messages';
import type { ReceivedInvitation } from '../../common/schemas/invitations';
import { request } from './client';
import type { SessionTenant, SessionUser } from './storage';

type PresentedUser = Omit<SessionUser, 'tenant' | 'availableTenants' | 'availableTenantsTotal' | 'impersonating' | 'permissions'>;

export interface SessionAnswer {
  user: PresentedUser;
  tenant: SessionTenant | null;
  availableTenants: SessionTenant[];
  availableTenantsTotal?: number;
  permissions?: TenantPermissions;
  impersonating?: { isImpersonating: boolean; reason?: string | null };
  /** Invitations to other tenants waiting for the person's answer. */
  invitations?: ReceivedInvitation[];
}

export interface LoginAnswer extends SessionAnswer {
  token: string;
}

export const login = (email: string, password: string) =>
  request<LoginAnswer>('/auth/login', { method: 'POST', body: { email, password }, fallback: M.loginFailed });

export const fetchMe = () => request<SessionAnswer>('/auth/me');

export const logout = () => request<void>('/auth/logout', { method: 'POST' });

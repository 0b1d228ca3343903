import { M } from '../../common/messages';
import { request } from './client';
import type { SessionTenant, SessionUser } from '../session/storage';

type PresentedUser = Omit<SessionUser, 'tenant' | 'availableTenants' | 'impersonating'>;

export interface SessionAnswer {
  user: PresentedUser;
  tenant: SessionTenant | null;
  availableTenants: SessionTenant[];
  impersonating?: { isImpersonating: boolean };
}

export interface LoginAnswer extends SessionAnswer {
  token: string;
}

export const login = (email: string, password: string) =>
  request<LoginAnswer>('/auth/login', { method: 'POST', body: { email, password }, fallback: M.loginFailed });

export const fetchMe = () => request<SessionAnswer>('/auth/me');

export const logout = () => request<void>('/auth/logout', { method: 'POST' });

import { request } from './client';
import type { LoginAnswer } from './auth';

export const stopImpersonation = () => request<LoginAnswer>('/impersonation/stop', { method: 'POST' });

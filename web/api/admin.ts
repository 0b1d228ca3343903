import { useQuery } from '@tanstack/react-query';
import { M } from '../../common/messages';
import { request } from './client';
import { useAdminMutation, type Tenant } from './tenants';
import type { SessionUser } from '../session/storage';

export type AdminUser = Omit<SessionUser, 'tenant' | 'availableTenants' | 'impersonating'>;

export interface PanelData {
  tenants: Tenant[];
  users: AdminUser[];
  is_impersonating: boolean;
  impersonation: { id: string; impersonated_user: { id: string; name: string; email: string }; tenant: Tenant } | null;
}

export function usePanelData(includeArchived: boolean) {
  return useQuery({
    queryKey: ['admin', 'panel', { includeArchived }],
    queryFn: () => request<PanelData>(`/admin/panel-data?includeArchived=${includeArchived}`, { fallback: M.failedLoadData }),
  });
}

export interface CreateAdminUserInput {
  email: string;
  name: string;
  role: AdminUser['role'];
  tenant_id: string;
  password?: string;
}

export const useCreateAdminUser = () =>
  useAdminMutation((input: CreateAdminUserInput) =>
    request<{ user: AdminUser }>('/admin/users', { method: 'POST', body: input, fallback: M.failedCreateUser }),
  );

export const useDeleteAdminUser = () =>
  useAdminMutation((id: string) => request(`/admin/users/${id}`, { method: 'DELETE', fallback: M.failedDeleteUser }));

export const useUpdateMemberships = () =>
  useAdminMutation((input: { id: string; tenantIds: string[] }) =>
    request<{ user: AdminUser }>(`/admin/users/${input.id}/tenants`, {
      method: 'PATCH',
      body: { tenantIds: input.tenantIds },
      fallback: M.failedUpdateMemberships,
    }),
  );

import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { UserPage } from '../../common/schemas/paging';
import { M } from '../../common/messages';
import { request } from './client';
import { useAdminMutation, type Tenant } from './tenants';
import type { SessionUser } from './storage';

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
    // Every tenant (the panel's modals offer them all), and a single user: the users' table reads
    // them page by page from /admin/users (useAdminUserPages).
    queryFn: () => request<PanelData>(`/admin/panel-data?includeArchived=${includeArchived}&limit=1`, { fallback: M.failedLoadData }),
  });
}

/**
 * Every tenant's users page by page, searched and filtered by group on the server (the panel's
 * User Management); under the 'admin' key, so that the panel's writes refresh it.
 */
export function useAdminUserPages(search: string, group: 'all' | AdminUser['user_group'], pageSize = 100) {
  return useInfiniteQuery({
    queryKey: ['admin', 'users', search, group, pageSize],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) => {
      const q = new URLSearchParams({ search, limit: String(pageSize) });
      if (group !== 'all') q.set('group', group);
      if (pageParam) q.set('after', pageParam);
      return request<UserPage<AdminUser>>(`/admin/users?${q}`, { fallback: M.failedLoadUsers, signal });
    },
    getNextPageParam: (last) => last.next_after,
    placeholderData: keepPreviousData,
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

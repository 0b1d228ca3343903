import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { TENANT_IDS_MAX, type TenantPage, type UserPage } from '../../common/schemas/paging';
import { M } from '../../common/messages';
import { request } from './client';
import { useAdminMutation, type Tenant } from './tenants';
import type { SessionUser } from './storage';
import type { MembershipsInput } from '../../common/schemas/users';

export type AdminUser = Omit<SessionUser, 'tenant' | 'availableTenants' | 'availableTenantsTotal' | 'impersonating'> & {
  /** The role held in each tenant of theirs (roles are held per membership); `role` is the one in the primary tenant. */
  tenant_roles?: Record<string, AdminUser['role']>;
};

export interface PanelData {
  tenants: Tenant[];
  users: AdminUser[];
  is_impersonating: boolean;
  impersonation: { id: string; impersonated_user: { id: string; name: string; email: string }; tenant: Tenant } | null;
}

export function usePanelData() {
  return useQuery({
    queryKey: ['admin', 'panel'],
    // A single tenant and a single user: the panel's tables read them page by page
    // (useAdminTenantPages, useAdminUserPages) and its selectors search them (useTenantOptions).
    queryFn: () => request<PanelData>('/admin/panel-data?tenantsLimit=1&limit=1', { fallback: M.failedLoadData }),
  });
}

const tenantsUrl = (params: Record<string, string>) => `/admin/tenants?${new URLSearchParams(params)}`;

/**
 * Every tenant page by page, searched on the server (the panel's Tenant Management); under the
 * 'admin' key, so that the panel's writes refresh it.
 */
export function useAdminTenantPages(search: string, includeArchived: boolean, pageSize = 100) {
  return useInfiniteQuery({
    queryKey: ['admin', 'tenants', 'pages', search, includeArchived, pageSize],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) => {
      const params: Record<string, string> = { search, limit: String(pageSize), includeArchived: String(includeArchived) };
      if (pageParam) params.after = pageParam;
      return request<TenantPage<Tenant>>(tenantsUrl(params), { fallback: M.failedLoadTenants, signal });
    },
    getNextPageParam: (last) => last.next_after,
    placeholderData: keepPreviousData,
  });
}

/** At most one page of the tenants matching a search: the options of a tenant selector. */
export function useTenantOptions(search: string, includeArchived: boolean, enabled = true, limit = 20) {
  return useQuery({
    queryKey: ['admin', 'tenants', 'options', search, includeArchived, limit],
    queryFn: ({ signal }) =>
      request<TenantPage<Tenant>>(tenantsUrl({ search, limit: String(limit), includeArchived: String(includeArchived) }), {
        fallback: M.failedLoadTenants,
        signal,
      }),
    enabled,
    placeholderData: keepPreviousData,
  });
}

/** The tenants of the ids given, archived ones included (a user's memberships), by name. */
export function useTenantsById(ids: string[], enabled = true) {
  const sorted = [...new Set(ids)].sort();
  return useQuery({
    queryKey: ['admin', 'tenants', 'ids', sorted],
    queryFn: async ({ signal }) => {
      const chunks: string[][] = [];
      for (let i = 0; i < sorted.length; i += TENANT_IDS_MAX) chunks.push(sorted.slice(i, i + TENANT_IDS_MAX));
      const pages = await Promise.all(
        chunks.map((chunk) =>
          request<TenantPage<Tenant>>(tenantsUrl({ ids: chunk.join(','), includeArchived: 'true', limit: String(chunk.length) }), {
            fallback: M.failedLoadTenants,
            signal,
          }),
        ),
      );
      return pages.flatMap((p) => p.tenants);
    },
    enabled: enabled && sorted.length > 0,
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

export const useDeleteAdminUser = () => useAdminMutation((id: string) => request(`/admin/users/${id}`, { method: 'DELETE', fallback: M.failedDeleteUser }));

export const useUpdateMemberships = () =>
  useAdminMutation((input: { id: string; memberships: MembershipsInput['memberships'] }) =>
    request<{ user: AdminUser }>(`/admin/users/${input.id}/tenants`, {
      method: 'PATCH',
      body: { memberships: input.memberships },
      fallback: M.failedUpdateMemberships,
    }),
  );

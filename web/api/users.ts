import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { UserPage } from '../../common/schemas/paging';
import { M } from '../../common/messages';
import { request } from './client';
import type { AdminUser } from './admin';
import type { CreateTenantUserInput } from '../../common/schemas/users';

const key = ['tenant-users'] as const;

/** A row of the tenant's user list: a member, or a pending invitation (as the admin entered it). */
export type TenantUser = AdminUser & { invitation?: boolean };

export function useTenantUsers() {
  return useQuery({
    queryKey: key,
    queryFn: () => request<{ users: TenantUser[] }>('/users', { fallback: M.failedLoadUsers }).then((r) => r.users),
  });
}

const pageUrl = (search: string, limit: number, after: string | null) => {
  const q = new URLSearchParams({ search, limit: String(limit) });
  if (after) q.set('after', after);
  return `/users?${q}`;
};

/**
 * The tenant's users page by page, searched by the server (name or email): Tenant Settings loads
 * the next page as its table is scrolled to the end (docs/decisions/0114-paged-lists.md).
 */
export function useTenantUserPages(search: string, pageSize = 100) {
  return useInfiniteQuery({
    queryKey: [...key, 'pages', search, pageSize],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) => request<UserPage<TenantUser>>(pageUrl(search, pageSize, pageParam), { fallback: M.failedLoadUsers, signal }),
    getNextPageParam: (last) => last.next_after,
    // The rows found so far stay while the next search is answered: the table does not blink.
    placeholderData: keepPreviousData,
  });
}

/** At most one page of the tenant's users matching a search: the options of a user selector. */
export function useTenantUserOptions(search: string, enabled: boolean, limit = 20) {
  return useQuery({
    queryKey: [...key, 'options', search, limit],
    queryFn: ({ signal }) => request<UserPage<TenantUser>>(pageUrl(search, limit, null), { fallback: M.failedLoadUsers, signal }),
    enabled,
    placeholderData: keepPreviousData,
  });
}

export function useCreateTenantUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateTenantUserInput) => request<{ user: AdminUser }>('/users', { method: 'POST', body: input, fallback: M.failedCreateUser }),
    onSuccess: () => client.invalidateQueries({ queryKey: key }),
  });
}

/** A tenant admin changes a member's role in this tenant (or the role a pending invitation grants). */
export function useChangeTenantUserRole() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { id: string; role: TenantUser['role'] }) =>
      request<{ user: TenantUser }>(`/users/${input.id}`, { method: 'PATCH', body: { role: input.role }, fallback: M.failedUpdateRole }),
    onSuccess: () => client.invalidateQueries({ queryKey: key }),
  });
}

export function useDeleteTenantUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => request(`/users/${id}`, { method: 'DELETE', fallback: M.failedDeleteUser }),
    onSuccess: () => client.invalidateQueries({ queryKey: key }),
  });
}

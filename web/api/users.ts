import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { M } from '../../common/messages';
import { request } from './client';
import type { AdminUser } from './admin';

const key = ['tenant-users'] as const;

/** A row of the tenant's user list: a member, or a pending invitation (as the admin entered it). */
export type TenantUser = AdminUser & { invitation?: boolean };

export function useTenantUsers() {
  return useQuery({
    queryKey: key,
    queryFn: () => request<{ users: TenantUser[] }>('/users', { fallback: M.failedLoadUsers }).then((r) => r.users),
  });
}

export function useCreateTenantUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { email: string; name: string; role: AdminUser['role']; password?: string }) =>
      request<{ user: AdminUser }>('/users', { method: 'POST', body: input, fallback: M.failedCreateUser }),
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

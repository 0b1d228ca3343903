import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { M } from '../../common/messages';
import { request } from './client';
import type { AdminUser } from './admin';

const key = ['tenant-users'] as const;

export function useTenantUsers() {
  return useQuery({
    queryKey: key,
    queryFn: () => request<{ users: AdminUser[] }>('/users', { fallback: M.failedLoadUsers }).then((r) => r.users),
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

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { M } from '../../common/messages';
import { request } from './client';
import type { SessionTenant } from './storage';
import type { CreateTenantInput } from '../../common/schemas/tenants';

export interface Tenant extends Required<Pick<SessionTenant, 'id' | 'name' | 'slug'>> {
  archived: boolean;
  created_at: string;
  createdAt: string;
}

/** Every tenant mutation refreshes the panel. */
function useAdminMutation<TVars>(fn: (vars: TVars) => Promise<unknown>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => client.invalidateQueries({ queryKey: ['admin'] }) });
}

export const useCreateTenant = () =>
  useAdminMutation((input: CreateTenantInput) => request<{ tenant: Tenant }>('/tenants', { method: 'POST', body: input, fallback: M.failedCreateTenant }));

export const useUpdateTenant = () =>
  useAdminMutation((input: { id: string; name: string }) =>
    request<{ tenant: Tenant }>(`/tenants/${input.id}`, { method: 'PUT', body: { name: input.name }, fallback: M.failedUpdateTenant }),
  );

export const useArchiveTenant = () => useAdminMutation((id: string) => request(`/tenants/${id}/archive`, { method: 'PATCH', fallback: M.failedArchiveTenant }));

export const useUnarchiveTenant = () =>
  useAdminMutation((id: string) => request(`/tenants/${id}/unarchive`, { method: 'PATCH', fallback: M.failedUnarchiveTenant }));

export const useDeleteTenant = () => useAdminMutation((id: string) => request(`/tenants/${id}`, { method: 'DELETE', fallback: M.failedDeleteTenant }));

export { useAdminMutation };

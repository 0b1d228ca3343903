import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  INTEGRATION_MESSAGES,
  type AdminApiTokenView,
  type ApiTokenView,
  type CreateApiTokenInput,
  type CreateWebhookInput,
  type UpdateWebhookInput,
  type WebhookDeliveryView,
  type WebhookTestResultView,
  type WebhookView,
} from '../../common/schemas/integrations';
import type { ApiTokenPage } from '../../common/schemas/paging';
import { request } from './client';

const tokenKey = ['api-tokens'] as const;
const webhookKey = ['webhooks'] as const;
/** Under the panel's 'admin' key, so that its writes (a tenant deleted) refresh it too. */
const adminTokenKey = ['admin', 'api-tokens'] as const;

export type ApiToken = ApiTokenView;
export type AdminApiToken = AdminApiTokenView;
export type WebhookEndpoint = WebhookView;
export type WebhookDelivery = WebhookDeliveryView;

export function useApiTokens() {
  return useQuery({
    queryKey: tokenKey,
    queryFn: () => request<{ tokens: ApiToken[] }>('/api-tokens', { fallback: INTEGRATION_MESSAGES.failedLoadTokens }).then((r) => r.tokens),
  });
}

export function useCreateApiToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateApiTokenInput) =>
      request<{ token: ApiToken; secret: string }>('/api-tokens', { method: 'POST', body: input, fallback: 'Failed to create the API token' }),
    onSuccess: () => client.invalidateQueries({ queryKey: tokenKey }),
  });
}

export function useRevokeApiToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => request(`/api-tokens/${id}`, { method: 'DELETE', fallback: INTEGRATION_MESSAGES.failedRevokeToken }),
    onSuccess: () => client.invalidateQueries({ queryKey: tokenKey }),
  });
}

/** Re-issues a suspended token under the caller's name: the answer carries the new secret, shown once. */
export function useReissueApiToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      request<{ token: ApiToken; secret: string }>(`/api-tokens/${id}/reissue`, { method: 'POST', fallback: 'Failed to re-issue the API token' }),
    onSuccess: () => client.invalidateQueries({ queryKey: tokenKey }),
  });
}

/** Every tenant's tokens page by page, newest first, searched on the server (the Super Admin Panel). */
export function useAdminApiTokenPages(search: string, includeRevoked: boolean, pageSize = 100) {
  return useInfiniteQuery({
    queryKey: [...adminTokenKey, search, includeRevoked, pageSize],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) => {
      const q = new URLSearchParams({ search, limit: String(pageSize), includeRevoked: String(includeRevoked) });
      if (pageParam) q.set('after', pageParam);
      return request<ApiTokenPage<AdminApiToken>>(`/admin/api-tokens?${q}`, { fallback: INTEGRATION_MESSAGES.failedLoadTokens, signal });
    },
    getNextPageParam: (last) => last.next_after,
    placeholderData: keepPreviousData,
  });
}

/** Revokes any tenant's token (super admin). */
export function useAdminRevokeApiToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => request(`/admin/api-tokens/${id}`, { method: 'DELETE', fallback: INTEGRATION_MESSAGES.failedRevokeToken }),
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: adminTokenKey }), client.invalidateQueries({ queryKey: tokenKey })]),
  });
}

export function useWebhooks() {
  return useQuery({
    queryKey: webhookKey,
    queryFn: () => request<{ webhooks: WebhookEndpoint[] }>('/webhooks', { fallback: 'Failed to load webhooks' }).then((r) => r.webhooks),
  });
}

export function useCreateWebhook() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateWebhookInput) =>
      request<{ webhook: WebhookEndpoint; secret: string }>('/webhooks', { method: 'POST', body: input, fallback: 'Failed to create the webhook' }),
    onSuccess: () => client.invalidateQueries({ queryKey: webhookKey }),
  });
}

export function useUpdateWebhook() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...changes }: { id: string } & UpdateWebhookInput) =>
      request<{ webhook: WebhookEndpoint }>(`/webhooks/${id}`, { method: 'PUT', body: changes, fallback: 'Failed to change the webhook' }),
    onSuccess: () => client.invalidateQueries({ queryKey: webhookKey }),
  });
}

export function useDeleteWebhook() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => request(`/webhooks/${id}`, { method: 'DELETE', fallback: 'Failed to delete the webhook' }),
    onSuccess: () => client.invalidateQueries({ queryKey: webhookKey }),
  });
}

/**
 * An endpoint's delivery log, newest first, a page at a time: read afresh each time it is opened,
 * and every few seconds while it is open, so the statuses follow the sending.
 */
export function useDeliveries(webhookId: string | null) {
  return useInfiniteQuery({
    queryKey: [...webhookKey, webhookId, 'deliveries'],
    enabled: webhookId !== null,
    staleTime: 0,
    refetchInterval: 5_000,
    initialPageParam: null as number | null,
    queryFn: ({ pageParam }) =>
      request<{ deliveries: WebhookDelivery[]; next_before: number | null }>(
        `/webhooks/${webhookId}/deliveries${pageParam === null ? '' : `?before=${pageParam}`}`,
        { fallback: 'Failed to load deliveries' },
      ),
    getNextPageParam: (last) => last.next_before,
  });
}

export function useSendAgain(webhookId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: string) =>
      request(`/webhooks/${webhookId}/deliveries/${deliveryId}/retry`, { method: 'POST', body: {}, fallback: 'Failed to send again' }),
    onSuccess: () => client.invalidateQueries({ queryKey: [...webhookKey, webhookId, 'deliveries'] }),
  });
}

export type WebhookTestResult = WebhookTestResultView['result'];

/** Sends a signed test event to an endpoint now (it is not written to the delivery log). */
export function useSendTestEvent() {
  return useMutation({
    mutationFn: (webhookId: string) =>
      request<{ result: WebhookTestResult }>(`/webhooks/${webhookId}/test`, { method: 'POST', body: {}, fallback: INTEGRATION_MESSAGES.failedTestEvent }).then(
        (r) => r.result,
      ),
  });
}

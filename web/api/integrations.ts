import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ApiTokenView, WebhookDeliveryView, WebhookView } from '../../common/schemas/integrations';
import type { Role } from '../../common/roles';
import { request } from './client';

const tokenKey = ['api-tokens'] as const;
const webhookKey = ['webhooks'] as const;

export type ApiToken = ApiTokenView;
export type WebhookEndpoint = WebhookView;
export type WebhookDelivery = WebhookDeliveryView;

export function useApiTokens() {
  return useQuery({
    queryKey: tokenKey,
    queryFn: () => request<{ tokens: ApiToken[] }>('/api-tokens', { fallback: 'Failed to load API tokens' }).then((r) => r.tokens),
  });
}

export function useCreateApiToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { name: string; role: Role; serviceIds: string[] | null; expiresAt: string | null }) =>
      request<{ token: ApiToken; secret: string }>('/api-tokens', { method: 'POST', body: input, fallback: 'Failed to create the API token' }),
    onSuccess: () => client.invalidateQueries({ queryKey: tokenKey }),
  });
}

export function useRevokeApiToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => request(`/api-tokens/${id}`, { method: 'DELETE', fallback: 'Failed to revoke the API token' }),
    onSuccess: () => client.invalidateQueries({ queryKey: tokenKey }),
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
    mutationFn: (input: { url: string; events: string[]; role: Role }) =>
      request<{ webhook: WebhookEndpoint; secret: string }>('/webhooks', { method: 'POST', body: input, fallback: 'Failed to create the webhook' }),
    onSuccess: () => client.invalidateQueries({ queryKey: webhookKey }),
  });
}

export function useUpdateWebhook() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...changes }: { id: string; enabled?: boolean }) =>
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

export function useDeliveries(webhookId: string | null) {
  return useQuery({
    queryKey: [...webhookKey, webhookId, 'deliveries'],
    enabled: webhookId !== null,
    queryFn: () =>
      request<{ deliveries: WebhookDelivery[] }>(`/webhooks/${webhookId}/deliveries`, { fallback: 'Failed to load deliveries' }).then((r) => r.deliveries),
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

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CatalogDiff } from '../../common/catalogDiff';
import { M } from '../../common/messages';
import { PUBLISHING_MESSAGES as P } from '../../common/schemas/publishing';
import { request } from './client';
import { serviceKeys, type Service } from './services';
import type { SnapshotSummary } from './settings';

/** Turns a service's public page on or off (docs/decisions/0120-public-pages.md). */
export function useSetPublished(serviceId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (published: boolean) =>
      request<{ service: Service }>(`/services/${serviceId}/${published ? 'publish' : 'unpublish'}`, {
        method: 'PATCH',
        fallback: published ? P.failedPublish : P.failedUnpublish,
      }).then((r) => r.service),
    onSettled: () => client.invalidateQueries({ queryKey: serviceKeys.all }),
  });
}

/** The public address of a service: the same origin as the app. */
export function publicAddress(tenantSlug: string, serviceSlug: string): string {
  return `${window.location.origin}/p/${encodeURIComponent(tenantSlug)}/${encodeURIComponent(serviceSlug)}`;
}

export interface Comparison {
  from: SnapshotSummary;
  to: SnapshotSummary | { id: 'current'; label: string; visibility: string; created_at: string };
  labels: { from: string; to: string };
  summary: string;
  diff: CatalogDiff;
}

/** What changed from one snapshot to another, or to the live catalog (`to` = 'current'). */
export function useComparison(from: string | null, to: string | null) {
  return useQuery({
    queryKey: ['snapshot-compare', from, to],
    queryFn: () => request<Comparison>(`/snapshots/compare?from=${from}&to=${to}`, { fallback: P.failedCompare }),
    enabled: Boolean(from && to),
    // The live catalog changes; two snapshots never do.
    staleTime: to === 'current' ? 0 : Infinity,
  });
}

const originsKey = ['embed-origins'] as const;

/** The origins allowed to frame the tenant's public pages. */
export function useEmbedOrigins() {
  return useQuery({
    queryKey: originsKey,
    queryFn: () => request<{ origins: string[] }>('/publishing/embed-origins', { fallback: M.failedLoadData }).then((r) => r.origins),
  });
}

export function useSaveEmbedOrigins() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (origins: string[]) =>
      request<{ origins: string[] }>('/publishing/embed-origins', { method: 'PUT', body: { origins }, fallback: P.failedSaveOrigins }).then((r) => r.origins),
    onSuccess: (origins) => client.setQueryData(originsKey, origins),
  });
}

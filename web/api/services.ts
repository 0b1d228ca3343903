import { useQuery } from '@tanstack/react-query';
import { M } from '../../common/messages';
import { request } from './client';

export interface Service {
  id: string;
  name: string;
  slug: string;
  description: string;
  service_owner: string;
  subscription_model: string;
  icon_url: string | null;
  archived: boolean;
  tenant_id: string;
  timeline: string[];
  version: number;
  last_updated: string;
  created_at: string;
}

export const serviceKeys = {
  all: ['services'] as const,
  list: (includeArchived: boolean) => ['services', 'list', { includeArchived }] as const,
};

export function useServices(includeArchived: boolean) {
  return useQuery({
    queryKey: serviceKeys.list(includeArchived),
    queryFn: () =>
      request<{ services: Service[] }>(`/services?includeArchived=${includeArchived}`, { fallback: M.failedLoadServices }).then(
        (r) => r.services,
      ),
  });
}

import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { M } from '../../common/messages';
import type { ServicePage } from '../../common/schemas/paging';
import { request } from './client';
import type { ServicePermissions } from '../../common/permissions';

export interface Service {
  id: string;
  name: string;
  slug: string;
  description: string;
  service_owner: string;
  subscription_model: string;
  icon_url: string | null;
  archived: boolean;
  /** Readable by anyone at /p/{tenant slug}/{service slug}. */
  published: boolean;
  tenant_id: string;
  timeline: string[];
  version: number;
  last_updated: string;
  created_at: string;
}

/** The Create Service form as the API takes it (spec section 7). */
export interface CreateServiceBody {
  name: string;
  slug: string;
  description: string;
  service_owner: string;
  subscription_model: string;
  icon_url: string | null;
  /** First and last quarter; without it the server takes the current quarter and the seven after. */
  timeline?: { first: string; last: string };
}

export const serviceKeys = {
  all: ['services'] as const,
  list: (includeArchived: boolean) => ['services', 'list', { includeArchived }] as const,
  pages: (includeArchived: boolean, search: string, pageSize: number) => ['services', 'pages', { includeArchived, search, pageSize }] as const,
  full: (id: string) => ['services', 'full', id] as const,
};

/** The service list, with what the caller may do on each service: `default`, and the services an assignment raises above it. */
export interface ServiceList {
  services: Service[];
  permissions: { default: ServicePermissions; services: Record<string, ServicePermissions> };
}

/** Every service of the tenant in one answer; the dashboard reads them page by page (useServicePages). */
export function useServices(includeArchived: boolean) {
  return useQuery({
    queryKey: serviceKeys.list(includeArchived),
    queryFn: () => request<ServiceList>(`/services?includeArchived=${includeArchived}`, { fallback: M.failedLoadServices }),
  });
}

/** One page of the service list: its services, what the caller may do on them, the next page's cursor. */
export type ServiceListPage = ServicePage<Service, ServiceList['permissions']>;

const pageUrl = (includeArchived: boolean, search: string, limit: number, after: string | null) => {
  const q = new URLSearchParams({ includeArchived: String(includeArchived), search, limit: String(limit) });
  if (after) q.set('after', after);
  return `/services?${q}`;
};

/**
 * The tenant's services page by page, searched by the server (name, slug, description, owner): the
 * dashboard loads the next page as its cards or rows are scrolled towards the end
 * (docs/decisions/0114-paged-lists.md).
 */
export function useServicePages(includeArchived: boolean, search: string, pageSize = 100) {
  return useInfiniteQuery({
    queryKey: serviceKeys.pages(includeArchived, search, pageSize),
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) =>
      request<ServiceListPage>(pageUrl(includeArchived, search, pageSize, pageParam), { fallback: M.failedLoadServices, signal }),
    getNextPageParam: (last) => last.next_after,
    // The services found so far stay while the next search is answered: the dashboard does not blink.
    placeholderData: keepPreviousData,
  });
}

/** Refreshes every service list and catalog after a change to a service. */
function useInvalidateServices() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: serviceKeys.all });
}

export function useCreateService() {
  const invalidate = useInvalidateServices();
  return useMutation({
    mutationFn: (body: CreateServiceBody) =>
      request<{ service: Service }>('/services', { method: 'POST', body, fallback: M.failedCreateService }).then((r) => r.service),
    onSuccess: invalidate,
  });
}

export function useArchiveService() {
  const invalidate = useInvalidateServices();
  return useMutation({
    mutationFn: (id: string) => request<unknown>(`/services/${id}/archive`, { method: 'PATCH', fallback: M.failedArchiveService }),
    onSuccess: invalidate,
  });
}

export function useUnarchiveService() {
  const invalidate = useInvalidateServices();
  return useMutation({
    mutationFn: (id: string) => request<unknown>(`/services/${id}/unarchive`, { method: 'PATCH', fallback: M.failedUnarchiveService }),
    onSuccess: invalidate,
  });
}

export function useHardDeleteService() {
  const invalidate = useInvalidateServices();
  return useMutation({
    mutationFn: (id: string) => request<void>(`/services/${id}/hard-delete`, { method: 'DELETE', fallback: M.failedHardDeleteService }),
    onSuccess: invalidate,
  });
}

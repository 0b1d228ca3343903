import type { ServicePermissions } from '../../common/permissions';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { M } from '../../common/messages';
import type { CreateAspectInput, CreateCategoryInput, ReorderAspectsInput, SetAvailabilityInput, UpdateAspectInput } from '../../common/schemas/catalog';
import { ApiError, request } from './client';
import { serviceKeys, type Service } from './services';

export interface Category {
  id: string;
  name: string;
  position: number;
}

export interface Aspect {
  id: string;
  title: string;
  description: string;
  is_public: boolean;
  category_id: string;
  position: number;
  version: number;
  /** Availability text per quarter, e.g. {"2025-Q1": "Available"}. */
  availabilities: Record<string, string>;
}

export interface QuickTemplate {
  id: string;
  template_text: string;
  position: number;
}

export type CatalogPermissions = ServicePermissions;

/** GET /services/{id}/full (CONTRACT section 3). */
export interface FullService {
  service: Service;
  categories: Category[];
  resolved_data: { aspects: Aspect[]; timeline: string[] };
  roles: { id: string; role_name: string; position: number }[];
  templates: QuickTemplate[];
  permissions: CatalogPermissions;
}

export function useFullService(serviceId: string) {
  return useQuery({
    queryKey: serviceKeys.full(serviceId),
    queryFn: () => request<FullService>(`/services/${serviceId}/full`),
  });
}

/** Every catalog write refreshes the catalog it changed (and the service lists, for last_updated). */
function useCatalogMutation<TVars, TResult>(mutationFn: (vars: TVars) => Promise<TResult>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn,
    onSettled: () => client.invalidateQueries({ queryKey: serviceKeys.all }),
  });
}

export function useCreateCategory(serviceId: string) {
  return useCatalogMutation((vars: Omit<CreateCategoryInput, 'serviceId'>) =>
    request<{ category: Category }>('/categories', { method: 'POST', body: { serviceId, ...vars }, fallback: M.failedCreateCategory }),
  );
}

export function useUpdateCategory() {
  return useCatalogMutation((vars: { id: string; name: string }) =>
    request<{ category: Category }>(`/categories/${vars.id}`, { method: 'PUT', body: { name: vars.name }, fallback: M.failedUpdateCategory }),
  );
}

export function useDeleteCategory() {
  return useCatalogMutation((id: string) => request<void>(`/categories/${id}`, { method: 'DELETE', fallback: M.failedDeleteCategory }));
}

/** A new aspect as the request's schema reads it, the service aside. */
export type AspectBody = Omit<CreateAspectInput, 'serviceId'>;

export function useCreateAspect(serviceId: string) {
  return useCatalogMutation((vars: AspectBody) =>
    request<{ aspect: Aspect }>('/aspects', { method: 'POST', body: { serviceId, ...vars }, fallback: M.failedCreateAspect }),
  );
}

export function useUpdateAspect() {
  return useCatalogMutation((vars: { id: string } & UpdateAspectInput) => {
    const { id, ...body } = vars;
    return request<{ aspect: Aspect }>(`/aspects/${id}`, { method: 'PUT', body, fallback: M.failedUpdateAspect });
  });
}

export function useDeleteAspect() {
  return useCatalogMutation((id: string) => request<void>(`/aspects/${id}`, { method: 'DELETE', fallback: M.failedDeleteAspect }));
}

/**
 * Reorders the aspects of one category. The new order shows at once (optimistic update of the
 * cached catalog) and rolls back when the server refuses it.
 */
export function useReorderAspects(serviceId: string) {
  const client = useQueryClient();
  const key = serviceKeys.full(serviceId);
  return useMutation({
    mutationFn: (vars: ReorderAspectsInput) => request<unknown>('/aspects/reorder', { method: 'PATCH', body: vars, fallback: M.failedReorderAspects }),
    onMutate: async (vars) => {
      await client.cancelQueries({ queryKey: key });
      const previous = client.getQueryData<FullService>(key);
      if (previous) {
        const rank = new Map(vars.aspectIds.map((id, i) => [id, i]));
        const aspects = previous.resolved_data.aspects.map((a) => (rank.has(a.id) ? { ...a, position: rank.get(a.id)! } : a));
        client.setQueryData<FullService>(key, { ...previous, resolved_data: { ...previous.resolved_data, aspects } });
      }
      return { previous };
    },
    onError: (_err, _vars, context) => {
      if (context?.previous) client.setQueryData(key, context.previous);
    },
    onSettled: () => client.invalidateQueries({ queryKey: serviceKeys.all }),
  });
}

/** One cell's write; its `expectedValue` is the value the edit started from ('' for none), and the server answers 409 when it changed meanwhile. */
export type AvailabilityBody = SetAvailabilityInput;

export function useSetAvailability() {
  return useCatalogMutation((vars: AvailabilityBody) =>
    request<unknown>('/availabilities', { method: 'POST', body: vars, fallback: M.failedUpdateAvailability }),
  );
}

/** One cell of a batch write: the text to store and the one the change started from ('' or null: empty). */
export interface CellChange {
  aspectId: string;
  timeBucket: string;
  value: string;
  expectedValue: string | null;
}

/** Many cells of one service in one call, all or nothing (409 naming every conflicting cell). */
export function writeCells(serviceId: string, cells: CellChange[]) {
  return request<{ changed: number; unchanged: number }>('/availabilities/batch', {
    method: 'POST',
    body: { serviceId, cells },
    fallback: M.failedUpdateAvailability,
  });
}

/** One cell, as the single-cell write makes it. */
export function writeCell(cell: CellChange) {
  return request<unknown>('/availabilities', { method: 'POST', body: cell, fallback: M.failedUpdateAvailability });
}

export interface CellConflict {
  aspect_id: string;
  time_bucket: string;
  current: string | null;
}

/** The cells someone else changed, from a 409 answer to a batch write; undefined for other errors. */
export function conflictingCells(err: unknown): CellConflict[] | undefined {
  if (!(err instanceof ApiError) || err.status !== 409) return undefined;
  const body = err.body as { conflicts?: unknown } | null;
  return Array.isArray(body?.conflicts) ? (body.conflicts as CellConflict[]) : undefined;
}

export interface HistoryEntry {
  time_bucket: string;
  value: string;
  changed_by: string;
  changed_at: string;
}

/** A page of an aspect's availability history, newest first (GET /availabilities/aspect/{id}/history). */
export function fetchHistory(aspectId: string, before?: number | null) {
  const query = before ? `?before=${before}&limit=100` : '?limit=100';
  return request<{ history: HistoryEntry[]; next_before: number | null }>(`/availabilities/aspect/${aspectId}/history${query}`);
}

/** The value someone else stored, from a 409 answer to an availability write; undefined for other errors. */
export function conflictingValue(err: unknown): string | undefined {
  if (!(err instanceof ApiError) || err.status !== 409) return undefined;
  const body = err.body as Record<string, unknown> | null;
  if (!body || !('current' in body)) return undefined;
  const current = body.current;
  if (current === null || current === undefined) return '';
  if (typeof current === 'string') return current;
  if (typeof current === 'object' && typeof (current as { value?: unknown }).value === 'string') return (current as { value: string }).value;
  return undefined;
}

/** One category with the aspects shown under it, in order. */
export interface CatalogGroup {
  category: Category;
  aspects: Aspect[];
}

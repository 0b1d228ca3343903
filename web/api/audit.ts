import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { M } from '../../common/messages';
import type { AuditFilters } from '../../common/schemas/audit';
import { request } from './client';
import { downloadFile } from './settings';

export type { AuditFilters };

export interface AuditEntry {
  id: number;
  tenant_id: string | null;
  actor_email: string | null;
  impersonator_email: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: Record<string, unknown> | null;
  created_at: string;
  /** The entry in words, as the server resolved it (null where the record is gone or unnamed). */
  actor_kind: 'person' | 'api_token' | 'system';
  actor_name: string | null;
  /** Who acted, in words: a person, "X impersonating Y", an API token by name, the system. */
  actor_label: string;
  service_id: string | null;
  /** Set on a cell write: its cells open from the entry. */
  request_id: string | null;
  impersonator_name: string | null;
  tenant_name: string | null;
  action_label: string;
  target_name: string | null;
  service_name: string | null;
  changes: AuditChange[];
}

/** One change an entry records; one side is null where the entry holds only the other. */
export interface AuditChange {
  label: string;
  from: string | null;
  to: string | null;
}

interface AuditPage {
  entries: AuditEntry[];
  next_before: number | null;
}

const PAGE = 50;

/** The choice of the platform's own rows, which belong to no tenant. */
export const PLATFORM_LOG = 'platform';

/** The filters as query parameters, the empty ones left out. */
function filterQuery(filters: AuditFilters, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams(extra);
  for (const [key, value] of Object.entries(filters)) if (value) q.set(key, value);
  return q.toString();
}

function useAuditPages(path: (before: number | null) => string, key: readonly unknown[], enabled = true) {
  return useInfiniteQuery({
    queryKey: key,
    enabled,
    initialPageParam: null as number | null,
    queryFn: ({ pageParam }) => request<AuditPage>(path(pageParam), { fallback: M.failedLoadData }),
    getNextPageParam: (last) => last.next_before,
  });
}

const pageQuery = (filters: AuditFilters, before: number | null, extra: Record<string, string> = {}) =>
  filterQuery(filters, { limit: String(PAGE), ...extra, ...(before ? { before: String(before) } : {}) });

/** The current tenant's audit log, newest first, a page at a time, narrowed by the filters (tenant admins). */
export function useTenantAudit(filters: AuditFilters = {}) {
  return useAuditPages((before) => `/audit?${pageQuery(filters, before)}`, ['audit', 'tenant', filters]);
}

/** Everyone the tenant's log names as actor, for its filter. */
export function useAuditActors() {
  return useQuery({
    queryKey: ['audit', 'actors'],
    queryFn: () => request<{ actors: { id: string; kind: string; label: string }[] }>('/audit/actors', { fallback: M.failedLoadData }),
  });
}

/** One cell a cell write's entry changed, as its history recorded it. */
export interface AuditCell {
  id: number;
  aspect_id: string;
  aspect_title: string | null;
  time_bucket: string;
  value: string;
  changed_by: string;
  changed_at: string;
}

/** The cells an entry's request wrote (the tenant's log, or any tenant's from the panel). */
export function useAuditCells(entryId: number | null, panel: boolean) {
  return useQuery({
    queryKey: ['audit', 'cells', panel, entryId],
    enabled: entryId !== null,
    queryFn: () => request<{ cells: AuditCell[]; truncated: boolean }>(`${panel ? '/admin/audit' : '/audit'}/${entryId}/cells`, { fallback: M.failedLoadData }),
  });
}

/** Downloads the log as CSV, narrowed as it is shown (the panel's: of the tenant chosen, or the platform's). */
export function exportAudit(filters: AuditFilters, panel: { tenantId: string | null } | null) {
  const path = panel
    ? `/admin/audit/export?${filterQuery(filters, panel.tenantId ? { tenantId: panel.tenantId } : {})}`
    : `/audit/export?${filterQuery(filters)}`;
  return downloadFile(path, 'audit-log.csv', M.failedLoadData);
}

/** A tenant's audit log, or the platform's ('platform'), for the super admin panel; nothing until one is chosen. */
export function useAdminAudit(choice: string | null, filters: AuditFilters = {}) {
  const tenantId = choice && choice !== PLATFORM_LOG ? choice : null;
  return useAuditPages(
    (before) => `/admin/audit?${pageQuery(filters, before, tenantId ? { tenantId } : {})}`,
    ['audit', 'admin', choice, filters],
    choice !== null,
  );
}

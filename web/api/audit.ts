import { useInfiniteQuery } from '@tanstack/react-query';
import { M } from '../../common/messages';
import { request } from './client';

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
  actor_name: string | null;
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

function useAuditPages(path: (before: number | null) => string, key: readonly unknown[], enabled = true) {
  return useInfiniteQuery({
    queryKey: key,
    enabled,
    initialPageParam: null as number | null,
    queryFn: ({ pageParam }) => request<AuditPage>(path(pageParam), { fallback: M.failedLoadData }),
    getNextPageParam: (last) => last.next_before,
  });
}

/** The current tenant's audit log, newest first, a page at a time (tenant admins). */
export function useTenantAudit() {
  return useAuditPages((before) => `/audit?limit=${PAGE}${before ? `&before=${before}` : ''}`, ['audit', 'tenant']);
}

/** A tenant's audit log, or the platform's ('platform'), for the super admin panel; nothing until one is chosen. */
export function useAdminAudit(choice: string | null) {
  const tenantId = choice && choice !== PLATFORM_LOG ? choice : null;
  return useAuditPages(
    (before) => `/admin/audit?limit=${PAGE}${tenantId ? `&tenantId=${tenantId}` : ''}${before ? `&before=${before}` : ''}`,
    ['audit', 'admin', choice],
    choice !== null,
  );
}

import type { ServicePermissions } from '../../common/permissions';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { M } from '../../common/messages';
import type { Role, SnapshotVisibility } from '../../common/roles';
import type { Aspect, Category } from './catalog';
import { ApiError, authHeaders, errorText, request } from './client';
import { serviceKeys, type Service } from './services';
import { storage } from './storage';
import type { CreateSnapshotInput } from '../../common/schemas/settings';

export interface ActorRole {
  id: string;
  role_name: string;
  position: number;
}
export interface QuickTemplateItem {
  id: string;
  template_text: string;
  position: number;
}
export interface TenantUser {
  id: string;
  name: string;
  email: string;
  role: Role;
}
export interface Assignment {
  id: string;
  user_id: string;
  user_email: string;
  user_name: string;
  role: Role;
}
export interface SettingsData {
  service: Service;
  roles: ActorRole[];
  templates: QuickTemplateItem[];
  users: TenantUser[];
  assignments: Assignment[];
  permissions: ServicePermissions;
}
export interface SnapshotSummary {
  id: string;
  label: string;
  visibility: SnapshotVisibility;
  note: string;
  created_by: string;
  created_at: string;
}
export interface Snapshot extends SnapshotSummary {
  data: { service: Service; categories: Category[]; resolved_data: { aspects: Aspect[]; timeline: string[] } };
}

export const settingsKeys = {
  data: (id: string) => [...serviceKeys.all, 'settings', id] as const,
  snapshots: (id: string) => [...serviceKeys.all, 'snapshots', id] as const,
  snapshot: (id: string) => ['snapshot', id] as const,
};

export function useSettingsData(serviceId: string) {
  return useQuery({
    queryKey: settingsKeys.data(serviceId),
    queryFn: () => request<SettingsData>(`/services/${serviceId}/settings-data`, { fallback: M.failedLoadData }),
    retry: false,
  });
}

/** Every settings write refreshes the service's data everywhere (settings, catalog, lists). */
function useSettingsMutation<TVars, TResult>(mutationFn: (vars: TVars) => Promise<TResult>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn,
    // A user created here is one the tenant's user selectors must find too.
    onSettled: () => Promise.all([client.invalidateQueries({ queryKey: serviceKeys.all }), client.invalidateQueries({ queryKey: ['tenant-users'] })]),
  });
}

export interface ServiceDetailsBody {
  name: string;
  description: string;
  service_owner: string;
  subscription_model: string;
  icon_url: string | null;
  timeline: { first: string; last: string };
}

export function useUpdateServiceDetails(serviceId: string) {
  return useSettingsMutation((body: ServiceDetailsBody) =>
    request<{ service: Service }>(`/services/${serviceId}`, { method: 'PUT', body, fallback: M.failedUpdateService }),
  );
}

export function useAddActorRole(serviceId: string) {
  return useSettingsMutation((roleName: string) =>
    request<{ role: ActorRole }>('/actor-roles', { method: 'POST', body: { serviceId, roleName }, fallback: M.failedCreateActorRole }),
  );
}
export function useDeleteActorRole() {
  return useSettingsMutation((id: string) => request(`/actor-roles/${id}`, { method: 'DELETE', fallback: M.failedDeleteActorRole }));
}
export function useAddQuickTemplate(serviceId: string) {
  return useSettingsMutation((templateText: string) =>
    request<{ template: QuickTemplateItem }>('/quick-templates', {
      method: 'POST',
      body: { serviceId, templateText },
      fallback: M.failedCreateQuickTemplate,
    }),
  );
}
export function useDeleteQuickTemplate() {
  return useSettingsMutation((id: string) => request(`/quick-templates/${id}`, { method: 'DELETE', fallback: M.failedDeleteQuickTemplate }));
}

/** Assigns a tenant user picked from the tenant's users (callers who may list them) or named by email (anyone who manages the service's assignments). */
export function useAssignUser(serviceId: string) {
  return useSettingsMutation((body: { userId: string; role: Role } | { userEmail: string; role: Role }) =>
    'userId' in body
      ? request<{ assignment: Assignment }>(`/services/${serviceId}/users`, { method: 'POST', body, fallback: M.failedAddAssignment })
      : request<{ assignment: Assignment }>('/service-roles', { method: 'POST', body: { serviceId, ...body }, fallback: M.failedAddAssignment }),
  );
}
export function useChangeAssignment(serviceId: string) {
  return useSettingsMutation((vars: { userId: string; role: Role }) =>
    request(`/services/${serviceId}/users/${vars.userId}`, { method: 'PUT', body: { role: vars.role }, fallback: M.failedUpdateRole }),
  );
}
export function useRemoveAssignment(serviceId: string) {
  return useSettingsMutation((userId: string) => request(`/services/${serviceId}/users/${userId}`, { method: 'DELETE', fallback: M.failedDeleteAssignment }));
}
export interface NewUserBody {
  email: string;
  name: string;
  password?: string;
  role: Role;
  assign: boolean;
}
export function useCreateServiceUser(serviceId: string) {
  return useSettingsMutation((body: NewUserBody) => request(`/services/${serviceId}/users/new`, { method: 'POST', body, fallback: M.failedCreateUser }));
}

/** A service's snapshots, newest first, a page at a time (docs/decisions/0114-paged-lists.md). */
export function useSnapshots(serviceId: string, pageSize = 50) {
  return useInfiniteQuery({
    queryKey: settingsKeys.snapshots(serviceId),
    initialPageParam: null as string | null,
    queryFn: ({ pageParam }) =>
      request<{ snapshots: SnapshotSummary[]; next_before: string | null }>(
        `/snapshots/service/${serviceId}?limit=${pageSize}${pageParam ? `&before=${pageParam}` : ''}`,
        { fallback: M.failedLoadData },
      ),
    getNextPageParam: (last) => last.next_before,
  });
}
/**
 * Whether the service has any snapshot the caller may see; undefined while loading or when not asked
 * (`enabled` false). Snapshots are never deleted: once one is known, the catalog's writes (which
 * refresh every query of the service) stop asking again.
 */
export function useHasSnapshot(serviceId: string, enabled: boolean) {
  const queryKey = [...settingsKeys.snapshots(serviceId), 'any'];
  const known = useQueryClient().getQueryData<boolean>(queryKey);
  return useQuery({
    queryKey,
    queryFn: () =>
      request<{ snapshots: SnapshotSummary[] }>(`/snapshots/service/${serviceId}?limit=1`, { fallback: M.failedLoadData }).then((r) => r.snapshots.length > 0),
    enabled: enabled && known !== true,
  }).data;
}
/** Whether the service has a public snapshot (an edition of its public page); undefined while loading. */
export function useHasPublicEdition(serviceId: string) {
  return useQuery({
    queryKey: [...settingsKeys.snapshots(serviceId), 'public-edition'],
    queryFn: () =>
      request<{ snapshots: SnapshotSummary[] }>(`/snapshots/service/${serviceId}?visibility=public&limit=1`, { fallback: M.failedLoadData }).then(
        (r) => r.snapshots.length > 0,
      ),
  }).data;
}
export function useSnapshot(snapshotId: string | null) {
  return useQuery({
    queryKey: settingsKeys.snapshot(snapshotId ?? ''),
    queryFn: () => request<{ snapshot: Snapshot }>(`/snapshots/${snapshotId}`, { fallback: M.failedLoadData }).then((r) => r.snapshot),
    enabled: Boolean(snapshotId),
    staleTime: Infinity,
  });
}
export function useCreateSnapshot(serviceId: string) {
  return useSettingsMutation((body: Omit<CreateSnapshotInput, 'serviceId'>) =>
    request<{ snapshot: Snapshot }>('/snapshots', { method: 'POST', body: { serviceId, ...body }, fallback: M.failedCreateSnapshot }),
  );
}

/**
 * Moving takes the service out of this tenant, so its settings cannot be refetched here: the page
 * leaves first, then forgets the service's queries (see useForgetService).
 */
export function useMoveService(serviceId: string) {
  return useMutation({
    mutationFn: (targetTenantId: string) =>
      request<{ service: Service; droppedAssignments: number }>(`/services/${serviceId}/move-tenant`, {
        method: 'PATCH',
        body: { targetTenantId },
        fallback: M.failedMoveService,
      }),
  });
}

/** Drops a service that left the tenant from the caches and refreshes the service lists. */
export function useForgetService(serviceId: string) {
  const client = useQueryClient();
  return () => {
    client.removeQueries({ queryKey: settingsKeys.data(serviceId) });
    client.removeQueries({ queryKey: settingsKeys.snapshots(serviceId) });
    void client.invalidateQueries({ queryKey: serviceKeys.all });
  };
}

/** Saves a server answer as a file through an authenticated request: no token ever goes into a URL. */
export async function downloadFile(path: string, filename: string, fallback: string): Promise<void> {
  const res = await request<Response>(path, { raw: true, fallback });
  const blob = await res.blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** What the server reads from a .catalog file before it is imported (POST /services/import/preview). */
export interface CatalogPreview {
  name: string;
  slug: string;
  /** The file's name, or the first free 'name (n)' of the tenant. */
  proposed_name: string;
  /** The file's slug, or the first free 'slug-n' of the tenant. */
  proposed_slug: string;
  categories: number;
  aspects: number;
}

/** Sends a .catalog file to be read, not imported: the import dialog proposes a free name and slug from it. */
export async function previewCatalog(file: File): Promise<CatalogPreview> {
  const form = new FormData();
  form.append('file', file);
  const res = await request<{ preview: CatalogPreview }>('/services/import/preview', { method: 'POST', body: form, fallback: M.failedImportService });
  return res.preview;
}

/**
 * Uploads a .catalog file with progress (XMLHttpRequest reports upload progress; fetch does not),
 * under the name and slug chosen for it when given. Answers the created service.
 */
export function uploadCatalog(file: File, onProgress: (percent: number) => void, naming: { name?: string; slug?: string } = {}): Promise<Service> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/services/import');
    for (const [name, value] of Object.entries(authHeaders())) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(Math.round((e.loaded / e.total) * 100));
    };
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = null;
      }
      if (xhr.status === 401) {
        storage.clearSession();
        window.location.assign('/login');
      }
      if (xhr.status >= 200 && xhr.status < 300 && body && typeof body === 'object' && 'service' in body) {
        resolve((body as { service: Service }).service);
      } else {
        reject(new ApiError(xhr.status, errorText(body, M.failedImportService), body));
      }
    };
    xhr.onerror = () => reject(new Error(M.failedImportService));
    const form = new FormData();
    // The text fields go first, so the server has them when the file arrives.
    if (naming.name !== undefined) form.append('name', naming.name);
    if (naming.slug !== undefined) form.append('slug', naming.slug);
    form.append('file', file);
    xhr.send(form);
  });
}

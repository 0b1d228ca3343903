import type { TenantPermissions } from '../../common/permissions';

/*
 * The stored session: what every request sends (bearer token, tenant header). It sits with the API
 * client so that web/api needs nothing from web/session, which builds on both.
 */

/** The browser keeps a session under exactly these keys (spec sections 3 and 9). */
export const STORAGE_KEYS = { token: 'token', user: 'user', activeTenant: 'activeTenant' } as const;

export interface SessionTenant {
  id: string;
  name: string;
  slug: string;
  archived?: boolean;
  created_at?: string;
  createdAt?: string;
}

export interface SessionUser {
  id: string;
  name: string;
  email: string;
  role: 'reader' | 'editor' | 'admin';
  super_admin: boolean;
  tenant_id: string;
  tenant_ids: string[];
  tenant_name: string | null;
  user_group: 'manual' | 'entra_auto';
  auth_provider: 'local' | 'entra';
  created_at: string;
  /** Browser session extras: the tenant in use and every tenant the user may switch to. */
  tenant: SessionTenant | null;
  availableTenants: SessionTenant[];
  /**
   * How many tenants the user may switch to: more than availableTenants holds when the session's
   * list reached its cap (a super admin of many tenants), the rest found by searching.
   */
  availableTenantsTotal?: number;
  /** Set while a super admin impersonates this user. */
  impersonating?: boolean;
  /** The reason the super admin gave for the impersonation, if any. */
  impersonationReason?: string | null;
  /** What the server says the user may do in the tenant in use. */
  permissions?: TenantPermissions;
}

/** Whether the session lists only the first of the user's tenants (a super admin of many): the rest are searched on the server. */
export function tenantsCapped(user: SessionUser): boolean {
  return (user.availableTenantsTotal ?? 0) > user.availableTenants.length;
}

function readJson<T>(key: string): T | null {
  try {
    const raw = localStorage.getItem(key);
    return raw ? (JSON.parse(raw) as T) : null;
  } catch {
    return null;
  }
}

export const storage = {
  getToken: (): string | null => localStorage.getItem(STORAGE_KEYS.token),
  setToken: (token: string) => localStorage.setItem(STORAGE_KEYS.token, token),
  getUser: (): SessionUser | null => readJson<SessionUser>(STORAGE_KEYS.user),
  setUser: (user: SessionUser) => localStorage.setItem(STORAGE_KEYS.user, JSON.stringify(user)),
  getActiveTenant: (): SessionTenant | null => readJson<SessionTenant>(STORAGE_KEYS.activeTenant),
  setActiveTenant: (tenant: SessionTenant) => localStorage.setItem(STORAGE_KEYS.activeTenant, JSON.stringify(tenant)),
  clearActiveTenant: () => localStorage.removeItem(STORAGE_KEYS.activeTenant),
  /** A 401 or Log Out clears token and user. */
  clearSession: () => {
    localStorage.removeItem(STORAGE_KEYS.token);
    localStorage.removeItem(STORAGE_KEYS.user);
  },
};

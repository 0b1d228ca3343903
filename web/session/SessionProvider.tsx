import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { ReceivedInvitation } from '../../common/schemas/invitations';
import { fetchMe, logout as apiLogout, type SessionAnswer } from '../api/auth';
import { ApiError, request } from '../api/client';
import { useLiveUpdates } from '../api/liveUpdates';
import { storage, type SessionTenant, type SessionUser } from '../api/storage';

interface SessionValue {
  user: SessionUser | null;
  /** The tenant the session works in. */
  tenant: SessionTenant | null;
  /** Stores a session answered by the server (login, sign-in callback, impersonation). */
  establish: (token: string, answer: SessionAnswer) => void;
  /** Revokes the token, clears the session and goes to /login. */
  logout: () => Promise<void>;
  /** Stores the chosen tenant and reloads the page. */
  switchTenant: (tenant: SessionTenant) => void;
  /** Invitations to other tenants waiting for the person's answer (kept in memory, not stored). */
  invitations: ReceivedInvitation[];
  /** Reads the session from the server again (after joining a tenant, say). */
  refresh: () => Promise<void>;
}

const SessionContext = createContext<SessionValue | null>(null);

export function toSessionUser(answer: SessionAnswer): SessionUser {
  return {
    ...answer.user,
    tenant: answer.tenant,
    availableTenants: answer.availableTenants,
    availableTenantsTotal: answer.availableTenantsTotal,
    impersonating: Boolean(answer.impersonating?.isImpersonating),
    impersonationReason: answer.impersonating?.reason ?? null,
    permissions: answer.permissions,
  };
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<SessionUser | null>(() => (storage.getToken() ? storage.getUser() : null));
  const [invitations, setInvitations] = useState<ReceivedInvitation[]>([]);

  // Refresh the stored user from the server once per page load (roles and tenants may have changed).
  useEffect(() => {
    if (!storage.getToken()) return;
    let cancelled = false;
    fetchMe()
      .then((answer) => {
        if (cancelled) return;
        const next = toSessionUser(answer);
        storage.setUser(next);
        setUser(next);
        setInvitations(answer.invitations ?? []);
      })
      .catch(() => {
        /* a 401 already cleared the session and went to /login */
      });
    return () => {
      cancelled = true;
    };
  }, []);

  const establish = useCallback((token: string, answer: SessionAnswer) => {
    const next = toSessionUser(answer);
    storage.setToken(token);
    storage.setUser(next);
    if (answer.tenant) storage.setActiveTenant(answer.tenant);
    setUser(next);
    setInvitations(answer.invitations ?? []);
  }, []);

  const refresh = useCallback(async () => {
    const answer = await fetchMe();
    const next = toSessionUser(answer);
    storage.setUser(next);
    // Live updates read the session often: an unchanged answer does not render every page again.
    setUser((prev) => (JSON.stringify(prev) === JSON.stringify(next) ? prev : next));
    setInvitations((prev) => (JSON.stringify(prev) === JSON.stringify(answer.invitations ?? []) ? prev : (answer.invitations ?? [])));
  }, []);

  const logout = useCallback(async () => {
    try {
      await apiLogout();
    } catch {
      /* the session ends locally whatever the server answers */
    }
    storage.clearSession();
    storage.clearActiveTenant();
    // One navigation, which loads the login page afresh (nothing of the session stays in memory).
    // Clearing the user first had the router move to /login on its own, a moment before it.
    window.location.assign('/login');
  }, []);

  const switchTenant = useCallback((tenant: SessionTenant) => {
    storage.setActiveTenant(tenant);
    window.location.reload();
  }, []);

  const tenant = useMemo(() => {
    if (!user) return null;
    const active = storage.getActiveTenant();
    return (active && user.availableTenants.find((t) => t.id === active.id)) || user.tenant;
  }, [user]);

  /**
   * The person's access changed elsewhere: the session is read again. A 401 has already signed them
   * out (the API client's path); a 403 means the tenant in use is no longer theirs, and they go back
   * to their own tenant's dashboard, or are signed out when none is left.
   */
  const recheck = useCallback(async () => {
    try {
      await refresh();
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 403) return;
      storage.clearActiveTenant();
      try {
        // An empty tenant header: the server answers with the person's own tenant.
        const answer = await request<SessionAnswer>('/auth/me', { headers: { 'X-Tenant-Slug': '' } });
        if (!answer.tenant && !answer.user.super_admin) return await logout();
        storage.setUser(toSessionUser(answer));
        if (answer.tenant) storage.setActiveTenant(answer.tenant);
        window.location.assign('/');
      } catch (again) {
        if (again instanceof ApiError && again.status === 403) await logout();
      }
    }
  }, [refresh, logout]);

  useLiveUpdates({
    token: user ? storage.getToken() : null,
    tenantSlug: tenant?.slug ?? null,
    onAccessChanged: () => void recheck(),
    onEnded: recheck,
  });

  const value = useMemo(
    () => ({ user, tenant, establish, logout, switchTenant, invitations, refresh }),
    [user, tenant, establish, logout, switchTenant, invitations, refresh],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession must be used inside SessionProvider');
  return value;
}

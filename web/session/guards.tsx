import type { ReactNode } from 'react';
import { Navigate } from 'react-router';
import { useSession } from './SessionProvider';

/** Signed-out visitors go to /login. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const { user } = useSession();
  if (!user) return <Navigate to="/login" replace />;
  return <>{children}</>;
}

/** /login sends a signed-in user to /. */
export function RedirectIfSignedIn({ children }: { children: ReactNode }) {
  const { user } = useSession();
  if (user) return <Navigate to="/" replace />;
  return <>{children}</>;
}

/** /super-admin: super admin only, otherwise / (the server's answer with the session says which). */
export function RequireSuperAdmin({ children }: { children: ReactNode }) {
  const { user } = useSession();
  if (!user) return <Navigate to="/login" replace />;
  if (!user.permissions?.canManagePlatform) return <Navigate to="/" replace />;
  return <>{children}</>;
}

/** /tenant-settings: an admin who is not a super admin, otherwise /. */
export function RequireTenantAdmin({ children }: { children: ReactNode }) {
  const { user } = useSession();
  if (!user) return <Navigate to="/login" replace />;
  if (!user.permissions?.canOpenTenantSettings) return <Navigate to="/" replace />;
  return <>{children}</>;
}

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

/** /super-admin: super admin only, otherwise /. */
export function RequireSuperAdmin({ children }: { children: ReactNode }) {
  const { user } = useSession();
  if (!user) return <Navigate to="/login" replace />;
  if (!user.super_admin || user.impersonating) return <Navigate to="/" replace />;
  return <>{children}</>;
}

/** /tenant-settings: an admin who is not a super admin, otherwise /. */
export function RequireTenantAdmin({ children }: { children: ReactNode }) {
  const { user } = useSession();
  if (!user) return <Navigate to="/login" replace />;
  if (user.role !== 'admin' || user.super_admin) return <Navigate to="/" replace />;
  return <>{children}</>;
}

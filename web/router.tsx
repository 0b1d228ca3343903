import { lazy, Suspense, type ReactNode } from 'react';
import { createBrowserRouter, Navigate } from 'react-router';
import { LoginPage } from './pages/Login/LoginPage';
import { UnsavedChangesGuard } from './lib/unsavedChanges';
import { RedirectIfSignedIn, RequireAuth, RequireSuperAdmin, RequireTenantAdmin } from './session/guards';

// Every screen but the login page loads on demand, so signing in downloads only what it needs.
const DashboardPage = lazy(() => import('./pages/Dashboard/DashboardPage').then((m) => ({ default: m.DashboardPage })));
const CatalogPage = lazy(() => import('./pages/Catalog/CatalogPage').then((m) => ({ default: m.CatalogPage })));
const ServiceSettingsPage = lazy(() => import('./pages/ServiceSettings/ServiceSettingsPage'));
const SuperAdminPage = lazy(() => import('./pages/SuperAdmin/SuperAdminPage'));
const TenantSettingsPage = lazy(() => import('./pages/TenantSettings/TenantSettingsPage'));

const onDemand = (page: ReactNode) => <Suspense fallback={null}>{page}</Suspense>;

/** The routes table of spec section 2, inside the guard that keeps unsaved work from being left by accident. */
export const router = createBrowserRouter([
  {
    element: <UnsavedChangesGuard />,
    children: [
      {
        path: '/login',
        element: (
          <RedirectIfSignedIn>
            <LoginPage />
          </RedirectIfSignedIn>
        ),
      },
      { path: '/', element: <RequireAuth>{onDemand(<DashboardPage />)}</RequireAuth> },
      { path: '/catalog/:serviceId', element: <RequireAuth>{onDemand(<CatalogPage />)}</RequireAuth> },
      { path: '/catalog/:serviceId/settings', element: <RequireAuth>{onDemand(<ServiceSettingsPage />)}</RequireAuth> },
      { path: '/super-admin', element: <RequireSuperAdmin>{onDemand(<SuperAdminPage />)}</RequireSuperAdmin> },
      { path: '/tenant-settings', element: <RequireTenantAdmin>{onDemand(<TenantSettingsPage />)}</RequireTenantAdmin> },
      { path: '*', element: <Navigate to="/" replace /> },
    ],
  },
]);

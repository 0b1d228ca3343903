import { lazy, Suspense } from 'react';
import { createBrowserRouter, Navigate } from 'react-router';
import { LoginPage } from './pages/Login/LoginPage';
import { DashboardPage } from './pages/Dashboard/DashboardPage';
import { RedirectIfSignedIn, RequireAuth, RequireSuperAdmin, RequireTenantAdmin } from './session/guards';

const CatalogPage = lazy(() => import('./pages/Catalog/CatalogPage').then((m) => ({ default: m.CatalogPage })));

const ServiceSettingsPage = lazy(() => import('./pages/ServiceSettings/ServiceSettingsPage'));
const SuperAdminPage = lazy(() => import('./pages/SuperAdmin/SuperAdminPage'));
const TenantSettingsPage = lazy(() => import('./pages/TenantSettings/TenantSettingsPage'));

/** The routes table of spec section 2. Heavy screens load on demand. */
export const router = createBrowserRouter([
  {
    path: '/login',
    element: (
      <RedirectIfSignedIn>
        <LoginPage />
      </RedirectIfSignedIn>
    ),
  },
  {
    path: '/',
    element: (
      <RequireAuth>
        <DashboardPage />
      </RequireAuth>
    ),
  },
  {
    path: '/catalog/:serviceId',
    element: (
      <RequireAuth>
        <Suspense fallback={null}>
          <CatalogPage />
        </Suspense>
      </RequireAuth>
    ),
  },
  {
    path: '/catalog/:serviceId/settings',
    element: (
      <RequireAuth>
        <Suspense fallback={null}>
          <ServiceSettingsPage />
        </Suspense>
      </RequireAuth>
    ),
  },
  {
    path: '/super-admin',
    element: (
      <RequireSuperAdmin>
        <Suspense fallback={null}>
          <SuperAdminPage />
        </Suspense>
      </RequireSuperAdmin>
    ),
  },
  {
    path: '/tenant-settings',
    element: (
      <RequireTenantAdmin>
        <Suspense fallback={null}>
          <TenantSettingsPage />
        </Suspense>
      </RequireTenantAdmin>
    ),
  },
  { path: '*', element: <Navigate to="/" replace /> },
]);

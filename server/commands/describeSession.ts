import type { Executor } from '../db';
import { listAvailableTenants, type TenantRow, type UserWithTenants } from '../db/queries/users';
import { presentTenant, presentUser } from '../presenters/users';
import { tenantPermissions } from '../policies';

/**
 * What the browser keeps for a session: the user, the tenant to work in and every tenant the user
 * may switch to. The preferred tenant wins when it is available; then the primary tenant; then the
 * first available one. `permissions` says what the caller may do in the tenant (the access layer's
 * answer), so the web app shows only what the server accepts.
 */
export async function describeSession(db: Executor, user: UserWithTenants, superAdmin: boolean, preferred?: TenantRow | null) {
  const available = await listAvailableTenants(db, user, superAdmin);
  const tenant = (preferred && available.find((t) => t.id === preferred.id)) ?? available.find((t) => t.id === user.tenantId) ?? available[0] ?? null;
  const primary = available.find((t) => t.id === user.tenantId);
  return {
    user: presentUser(user, primary?.name ?? tenant?.name ?? null),
    tenant: tenant ? presentTenant(tenant) : null,
    availableTenants: available.map(presentTenant),
    permissions: tenantPermissions({ userId: user.id, role: user.role, superAdmin }),
  };
}

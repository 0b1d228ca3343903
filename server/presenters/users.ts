import type { TenantRow, UserWithTenants } from '../db/queries/users';

/** What the user shape is built from: an account, or what a tenant admin entered for an invitation. */
export type PresentableUser = Pick<
  UserWithTenants,
  'id' | 'name' | 'email' | 'role' | 'superAdmin' | 'tenantId' | 'tenantIds' | 'userGroup' | 'authProvider' | 'createdAt'
>;

/** The spec's user shape (section 3); never the password hash. */
export function presentUser(user: PresentableUser, tenantName?: string | null) {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    role: user.role,
    super_admin: user.superAdmin,
    tenant_id: user.tenantId,
    tenant_ids: user.tenantIds,
    tenant_name: tenantName ?? null,
    user_group: user.userGroup,
    auth_provider: user.authProvider,
    created_at: user.createdAt.toISOString(),
  };
}
export type PresentedUser = ReturnType<typeof presentUser>;

/** Tenants carry both created_at and createdAt (CONTRACT section 2). */
export function presentTenant(tenant: TenantRow) {
  const created = tenant.createdAt.toISOString();
  return {
    id: tenant.id,
    name: tenant.name,
    slug: tenant.slug,
    archived: tenant.archived,
    created_at: created,
    createdAt: created,
  };
}
export type PresentedTenant = ReturnType<typeof presentTenant>;

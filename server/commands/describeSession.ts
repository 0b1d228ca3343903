import type { Executor } from '../db';
import { listAvailableTenants, roleIn, type TenantRow, type UserWithTenants } from '../db/queries/users';
import { presentTenant, presentUser } from '../presenters/users';
import { tenantPermissions } from '../policies';
import { M } from '../../common/messages';
import type { TokenService } from '../auth/tokens';
import { forbidden } from '../errors';
import { writeAudit } from './audit';
import { acceptInvitationsOfMember } from './invitations';

/**
 * What the browser keeps for a session: the user, the tenant to work in and the tenants the user
 * may switch to (a super admin's first SESSION_TENANTS_CAP, with the count of all). The preferred
 * tenant wins when it is available; then the primary tenant; then the first available one.
 * `permissions` says what the caller may do in the tenant (the access layer's answer), so the web
 * app shows only what the server accepts.
 */
export async function describeSession(db: Executor, user: UserWithTenants, superAdmin: boolean, preferred?: TenantRow | null) {
  const always = preferred ? [preferred.id, user.tenantId] : [user.tenantId];
  const { tenants: available, total } = await listAvailableTenants(db, user, superAdmin, always);
  const tenant = (preferred && available.find((t) => t.id === preferred.id)) ?? available.find((t) => t.id === user.tenantId) ?? available[0] ?? null;
  const primary = available.find((t) => t.id === user.tenantId);
  // Roles are held per membership: the answer's role is the one in the tenant the session works in.
  const role = tenant && user.tenantIds.includes(tenant.id) ? roleIn(user, tenant.id) : user.role;
  return {
    user: presentUser({ ...user, role }, primary?.name ?? tenant?.name ?? null),
    tenant: tenant ? presentTenant(tenant) : null,
    availableTenants: available.map(presentTenant),
    availableTenantsTotal: total,
    permissions: tenantPermissions({ userId: user.id, role, superAdmin }),
  };
}

/**
 * Opens a session for someone who has just proved who they are (a password, Microsoft sign-in):
 * what the browser keeps (403 when every tenant of theirs is archived), invitations to tenants they
 * already belong to accepted, the token signed, and the sign-in audited.
 */
export async function openSession(
  db: Executor,
  tokens: TokenService,
  ttlSeconds: number,
  user: UserWithTenants,
  details?: Record<string, unknown>,
): Promise<{ token: string } & Awaited<ReturnType<typeof describeSession>>> {
  const info = await describeSession(db, user, user.superAdmin);
  if (!info.tenant && !user.superAdmin) throw forbidden(M.allTenantsArchived);
  // Before the answer lists invitations: a tenant the person already belongs to needs no notice.
  await acceptInvitationsOfMember(db, user);
  const { token } = await tokens.sign({ sub: user.id, ttlSeconds });
  await writeAudit(db, null, {
    tenantId: info.tenant?.id ?? null,
    action: 'auth.login',
    targetType: 'user',
    targetId: user.id,
    actorId: user.id,
    actorEmail: user.email,
    ...(details ? { details } : {}),
  });
  return { token, ...info };
}

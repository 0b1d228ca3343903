import { M } from '../../common/messages';
import type { Role } from '../../common/roles';
import { hashPassword } from '../auth/passwords';
import type { Executor } from '../db';
import { insertUser } from '../db/queries/admin';
import { belongsTo, insertInvitation, type TenantInvitation } from '../db/queries/invitations';
import type { ServiceRow } from '../db/queries/services';
import { findAssignment, findAssignmentOf, insertAssignment, updateAssignmentRole, type AssignmentRow } from '../db/queries/settings';
import { findUserByEmail, type TenantRow } from '../db/queries/users';
import { conflict } from '../errors';
import type { Actor } from '../plugins/context';
import { mayLearnOfAccount, type CreatorScope } from '../policies';
import type { PresentableUser } from '../presenters/users';
import { writeAudit } from './audit';

export interface CreateUserInput {
  email: string;
  name: string;
  role: Role;
  password?: string | null;
}

export interface CreateUserRequest {
  actor: Actor;
  scope: CreatorScope;
  /** The tenant the user is created in. */
  tenant: TenantRow;
  input: CreateUserInput;
  /**
   * A tenant's own pages (Tenant Settings, a service's Create New User): every person added is
   * recorded as a pending invitation, a new account as well as one outside the tenant, so that
   * the two read the same to the tenant's admins until the person signs in or accepts. The super
   * admin panel leaves it out: it creates plain accounts.
   */
  asInvitation: boolean;
  /** A service's Create New User: the service, and whether to assign the user to it with the role entered. */
  service?: { row: ServiceRow; assign: boolean };
}

/** A user with the name of their primary tenant: what every create route presents. */
export type CreatedUserView = PresentableUser & { tenantName: string | null };

export interface CreatedUser {
  /** The account made, or for an invitation the user the creator entered: the same fields either way. */
  user: CreatedUserView;
  assignment: AssignmentRow | null;
}

/**
 * Creates a user for POST /users, POST /admin/users and a service's Create New User.
 *
 * A new address makes an account whose primary tenant is `tenant`. An address that already has an
 * account answers 409 when the creator may know it: to a super admin always, to a tenant admin
 * when the account is a member of (or already invited to) their tenant. Otherwise the tenant admin
 * must not learn that it exists: the account is invited instead, untouched (its name, password and
 * tenants stay its own; accepting makes it a member here with the role entered, and its roles
 * elsewhere stay as they are). From the tenant's pages a new account is recorded as an
 * invitation too, so the answer, the list, the audit and the assignment are built the same way
 * from what was entered in both cases (docs/decisions/0110-user-creation-without-enumeration.md).
 */
export async function createUser(db: Executor, req: CreateUserRequest): Promise<CreatedUser> {
  const { input, tenant } = req;
  // Hashed whether or not it is used, so that an invitation takes as long as a creation.
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  const authProvider = passwordHash ? ('local' as const) : ('entra' as const);
  return db.transaction(async (tx) => {
    const existing = await findUserByEmail(tx, input.email);
    if (!existing) {
      const row = await insertUser(tx, { email: input.email, name: input.name, role: input.role, tenantId: tenant.id, passwordHash });
      if (row && req.asInvitation) return invite(tx, req, { id: row.id, email: row.email }, authProvider);
      if (row) {
        await writeAudit(tx, req.actor, {
          tenantId: tenant.id,
          action: 'user.create',
          targetType: 'user',
          targetId: row.id,
          details: { email: row.email, role: row.role, ...(req.service ? { serviceId: req.service.row.id } : {}) },
        });
        const user = { ...row, tenantName: tenant.name };
        const assignment = req.service?.assign ? await assignTo(tx, req, req.service.row, row.id) : null;
        return { user, assignment };
      }
    }
    // Taken, possibly a moment ago by another request.
    const account = existing ?? (await findUserByEmail(tx, input.email));
    if (!account || (await mayLearnOfAccount(req.scope, () => belongsTo(tx, tenant.id, account)))) throw conflict(M.emailTaken);
    return invite(tx, req, account, authProvider);
  });
}

/**
 * Records the pending invitation of an account (just created here, or outside the tenant), its
 * audit row and the assignment asked for: the same statements and the same answer either way.
 */
async function invite(tx: Executor, req: CreateUserRequest, account: { id: string; email: string }, authProvider: 'local' | 'entra'): Promise<CreatedUser> {
  const { input, tenant } = req;
  const invitation = await insertInvitation(tx, {
    tenantId: tenant.id,
    userId: account.id,
    name: input.name,
    role: input.role,
    authProvider,
    serviceId: req.service?.assign ? req.service.row.id : null,
    invitedBy: req.actor.apiToken ? null : req.actor.user.id,
  });
  // Invited before: the same answer as creating one new address twice.
  if (!invitation) throw conflict(M.emailTaken);
  await writeAudit(tx, req.actor, {
    tenantId: tenant.id,
    action: 'user.invite',
    targetType: 'invitation',
    targetId: invitation.id,
    details: { email: account.email, name: input.name, role: input.role, ...(req.service ? { serviceId: req.service.row.id } : {}) },
  });
  const user = presentInvitationAsUser({ ...invitation, email: account.email }, tenant);
  // Assigned at once in both cases: an account outside the tenant gains nothing by it until it
  // joins, since the tenant plugin refuses non-members.
  const assignment = req.service?.assign ? await assignTo(tx, req, req.service.row, account.id) : null;
  return { user, assignment };
}

/** A tenant's invitation as its admins see it: the user they entered, in their tenant only. */
export function presentInvitationAsUser(invitation: TenantInvitation, tenant: TenantRow): CreatedUserView {
  return {
    id: invitation.id,
    name: invitation.name,
    email: invitation.email,
    role: invitation.role,
    superAdmin: false,
    tenantId: tenant.id,
    tenantIds: [tenant.id],
    tenantName: tenant.name,
    userGroup: 'manual',
    authProvider: invitation.authProvider,
    createdAt: invitation.createdAt,
  };
}

/**
 * Assigns the account to the service with the role entered. An assignment the account already has
 * there (left behind by an earlier stay in the tenant) takes that role, so that the answer does not
 * differ from a first assignment.
 */
async function assignTo(tx: Executor, req: CreateUserRequest, service: ServiceRow, accountId: string): Promise<AssignmentRow> {
  const created = await insertAssignment(tx, req.tenant.id, service.id, accountId, req.input.role);
  const id = created?.id ?? (await findAssignmentOf(tx, req.tenant.id, service.id, accountId));
  if (!created) await updateAssignmentRole(tx, req.tenant.id, id, req.input.role);
  const row = (await findAssignment(tx, req.tenant.id, { id }))!;
  await writeAudit(tx, req.actor, {
    tenantId: req.tenant.id,
    action: 'service_role.assign',
    targetType: 'service',
    targetId: service.id,
    // The id the tenant's admins know the person by (the invitation's while it is pending).
    details: { userId: row.userId, role: req.input.role },
  });
  return row;
}

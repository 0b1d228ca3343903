import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  ADMIN_MESSAGES,
  createTenantUserSchema,
  idParamSchema,
  memberRoleChangeSchema,
  tenantListUserSchema,
  tenantUserPageSchema,
  userAnswerSchema,
} from '../../../common/schemas/users';
import { M } from '../../../common/messages';
import { documented, type RouteDoc } from '../../routeDoc';

const tenantUsers = documented('Tenant users');
const doc = <E extends Partial<RouteDoc> = object>(summary: string, responses: RouteDoc['responses'], extra?: E) =>
  tenantUsers(summary, 'tenant.users (a person, never an API token)', responses, extra);
import { notFound } from '../../errors';
import { deleteUser, findTenantUser, listTenantUsers, pageTenantPeople, removeFromTenant, setMembershipRole } from '../../db/queries/admin';
import type { TenantRow } from '../../db/queries/users';
import { encodeCursor, isPaged, USER_LIST_CAP, USER_PAGE_DEFAULT, userPageQuerySchema, type UserPageQuery } from '../../../common/schemas/paging';
import { findInvitationOf, findTenantInvitation, listTenantInvitations, setInvitationRole } from '../../db/queries/invitations';
import { presentTenantListUser } from '../../presenters/invitations';
import { presentUser } from '../../presenters/users';
import { scope } from '../../plugins/context';
import { requireAccessManager, requireActingAsSelf, requireMayChangeRole, requireMayRemoveUser, decideCreatorScope } from '../../policies';
import { bodyOf, queryOf } from '../../validation';
import { writeAudit } from '../../commands/audit';
import { createUser, presentInvitationAsUser } from '../../commands/createUser';
import { withdrawInvitation } from '../../commands/invitations';

/**
 * The users of the current tenant (Tenant Settings). Deleting removes the user from this tenant;
 * when it is their primary tenant the account itself goes (docs/decisions/0006-tenant-users.md).
 */
export default async function userRoutes(app: FastifyInstance) {
  const db = () => app.database.db;

  app.get(
    '/users',
    doc(
      "The tenant's users and pending invitations, by name; a page of them with search, limit or after",
      { 200: tenantUserPageSchema },
      { query: userPageQuerySchema },
    ),
    async (req) => {
      const { actor, tenantId } = scope(req);
      requireAccessManager(actor);
      const query = queryOf(req);
      if (isPaged(query)) return pageOfUsers(tenantId, scope(req).tenant, query);
      const [members, invitations] = await Promise.all([listTenantUsers(db(), tenantId), listTenantInvitations(db(), tenantId)]);
      // A person with a pending invitation is listed as the invitation, with what the admin entered,
      // whether the account is outside the tenant or was created here and has not signed in yet.
      const pending = new Set(invitations.map((i) => i.userId));
      const rows = [
        ...members.filter((u) => !pending.has(u.id)).map((u) => presentTenantListUser(u, false)),
        ...invitations.map((i) => presentTenantListUser(presentInvitationAsUser(i, scope(req).tenant), true)),
      ];
      rows.sort((a, b) => a.name.localeCompare(b.name) || a.email.localeCompare(b.email));
      // Without paging parameters the answer is the whole list up to its cap (decision 0114).
      return { users: rows.slice(0, USER_LIST_CAP) };
    },
  );

  /** One page of the list above, in the database's order of name then email, and the next page's cursor. */
  async function pageOfUsers(tenantId: string, tenant: TenantRow, query: UserPageQuery) {
    const limit = query.limit ?? USER_PAGE_DEFAULT;
    // One row more than asked tells whether a next page exists.
    const keys = await pageTenantPeople(db(), tenantId, { search: query.search, after: query.after, limit: limit + 1 });
    const shown = keys.slice(0, limit);
    const invitations = await listTenantInvitations(
      db(),
      tenantId,
      shown.filter((k) => k.invitation).map((k) => k.id),
    );
    const byId = new Map<string, ReturnType<typeof presentTenantListUser>>([
      ...shown.flatMap((k) => (k.user ? [[k.id, presentTenantListUser(k.user, false)] as const] : [])),
      ...invitations.map((i) => [i.id, presentTenantListUser(presentInvitationAsUser(i, tenant), true)] as const),
    ]);
    // A row removed between the two reads is left out rather than shown half.
    const users = shown.flatMap((k) => byId.get(k.id) ?? []);
    const last = users.at(-1);
    return { users, next_after: keys.length > limit && last ? encodeCursor([last.name, last.email]) : null };
  }

  app.post(
    '/users',
    doc(
      'Add a user to the tenant; an address with an account elsewhere is invited, with the same answer',
      { 201: userAnswerSchema },
      { body: createTenantUserSchema, errors: { 409: M.emailTaken } },
    ),
    async (req, reply) => {
      const { actor } = scope(req);
      requireAccessManager(actor);
      requireActingAsSelf(actor);
      const input = bodyOf(req);
      // An account outside the tenant is invited, with the same answer as a new one (decision 0110).
      const { user } = await createUser(db(), { actor, scope: decideCreatorScope(actor), tenant: scope(req).tenant, input, asInvitation: true });
      return reply.status(201).send({ user: presentUser(user, user.tenantName) });
    },
  );

  app.patch(
    '/users/:id',
    doc(
      "Change a member's role in this tenant (or the role a pending invitation grants); never your own, never a super admin's",
      { 200: z.object({ user: tenantListUserSchema }) },
      { body: memberRoleChangeSchema, errors: { 400: M.cannotChangeOwnRole, 403: M.cannotChangeSuperAdminRole } },
    ),
    async (req) => {
      const { actor, tenant, tenantId } = scope(req);
      const parsed = idParamSchema.safeParse(req.params);
      if (!parsed.success) throw notFound(ADMIN_MESSAGES.userNotFound);
      const id = parsed.data.id;
      requireMayChangeRole(actor, { id });
      const { role } = bodyOf(req);
      const invitation = await findTenantInvitation(db(), tenantId, id);
      if (invitation) {
        await db().transaction(async (tx) => {
          await setInvitationRole(tx, tenantId, id, role);
          await writeAudit(tx, actor, {
            tenantId,
            action: 'user.role_change',
            targetType: 'invitation',
            targetId: id,
            details: { email: invitation.email, from: invitation.role, to: role },
          });
        });
        return { user: presentTenantListUser(presentInvitationAsUser({ ...invitation, role }, tenant), true) };
      }
      const user = await findTenantUser(db(), tenantId, id);
      if (!user || (await findInvitationOf(db(), tenantId, id))) throw notFound(ADMIN_MESSAGES.userNotFound);
      requireMayChangeRole(actor, user);
      if (user.role !== role) {
        await db().transaction(async (tx) => {
          await setMembershipRole(tx, tenantId, id, role);
          await writeAudit(tx, actor, {
            tenantId,
            action: 'user.role_change',
            targetType: 'user',
            targetId: id,
            details: { email: user.email, from: user.role, to: role },
          });
        });
      }
      return { user: presentTenantListUser({ ...user, role }, false) };
    },
  );

  app.delete(
    '/users/:id',
    doc(
      'Remove a user from the tenant (the account itself when this is its primary tenant), or withdraw a pending invitation',
      { 204: null },
      { errors: { 400: M.cannotDeleteOwnAccount } },
    ),
    async (req, reply) => {
      const { actor, tenantId } = scope(req);
      requireAccessManager(actor);
      const parsed = idParamSchema.safeParse(req.params);
      if (!parsed.success) throw notFound(ADMIN_MESSAGES.userNotFound);
      const id = parsed.data.id;
      requireMayRemoveUser(actor, { id }, 'tenant');
      // The list gives a pending invitation's id: deleting it withdraws the invitation.
      const invitation = await findTenantInvitation(db(), tenantId, id);
      if (invitation) {
        await withdrawInvitation(db(), actor, invitation);
        return reply.status(204).send();
      }
      const user = await findTenantUser(db(), tenantId, id);
      // A pending invitee is known by the invitation's id only, as the list shows it.
      if (!user || (await findInvitationOf(db(), tenantId, id))) throw notFound(ADMIN_MESSAGES.userNotFound);
      requireMayRemoveUser(actor, user, 'tenant');
      const wholeAccount = user.tenantId === tenantId;
      await db().transaction(async (tx) => {
        if (wholeAccount) await deleteUser(tx, id);
        else await removeFromTenant(tx, tenantId, id);
        await writeAudit(tx, actor, {
          tenantId,
          action: 'user.delete',
          targetType: 'user',
          targetId: id,
          details: { email: user.email, scope: wholeAccount ? 'account' : 'membership' },
        });
      });
      return reply.status(204).send();
    },
  );
}

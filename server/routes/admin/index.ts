import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { M } from '../../../common/messages';
import {
  ADMIN_MESSAGES,
  createAdminUserSchema,
  idParamSchema,
  membershipsSchema,
  panelDataSchema,
  roleChangeSchema,
  tenantPageSchema,
  userAnswerSchema,
  userPageSchema,
} from '../../../common/schemas/users';
import { documented, type RouteDoc } from '../../routeDoc';
import { conflict, invalid, notFound } from '../../errors';
import { findTenantById, roleIn } from '../../db/queries/users';
import type { Executor } from '../../db/client';
import {
  encodeCursor,
  isPaged,
  panelPageQuerySchema,
  tenantPageQuerySchema,
  USER_LIST_CAP,
  USER_PAGE_DEFAULT,
  adminUserPageQuerySchema,
  type AdminUserPageQuery,
  type UserPageQuery,
} from '../../../common/schemas/paging';
import { listTenants } from '../../db/queries/tenants';
import {
  activeImpersonations,
  countTenants,
  deleteUser,
  findAnyUser,
  listAllUsers,
  replaceMemberships,
  setMembershipRole,
  type UserListing,
} from '../../db/queries/admin';
import { presentTenant, presentUser } from '../../presenters/users';
import { requireActor } from '../../plugins/context';
import { requireMayRemoveUser, requirePlatform } from '../../policies';
import { bodyOf, queryOf } from '../../validation';
import { writeAudit } from '../../commands/audit';
import { createUser } from '../../commands/createUser';

const panelQuery = panelPageQuerySchema.extend({
  includeArchived: z
    .enum(['true', 'false', '1', '0'], { error: 'includeArchived must be true or false' })
    .optional()
    .transform((v) => v === 'true' || v === '1'),
});

/** A page of users (decision 0114): one row more than asked tells whether a next page exists. */
async function pageOfAllUsers(db: Executor, query: UserPageQuery & { group?: AdminUserPageQuery['group'] }) {
  const limit = query.limit ?? USER_PAGE_DEFAULT;
  const rows = await listAllUsers(db, { search: query.search, after: query.after, group: query.group, limit: limit + 1 });
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return { users: shown.map(present), next_after: rows.length > limit && last ? encodeCursor([last.name, last.email]) : null };
}

/** A page of the panel's tenants, by name then id. */
async function pageOfTenants(db: Executor, query: { includeArchived: boolean; search?: string; after?: [string, string]; limit?: number; ids?: string[] }) {
  const limit = query.limit ?? USER_PAGE_DEFAULT;
  const rows = await listTenants(db, { ...query, limit: limit + 1 });
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return { tenants: shown.map(presentTenant), next_after: rows.length > limit && last ? encodeCursor([last.name, last.id]) : null };
}

/** A user as the panel lists them: the role in their primary tenant, and their role in each tenant of theirs. */
const present = (u: UserListing) => ({ ...presentUser(u, u.tenantName), tenant_roles: { ...u.roles } });

function userIdOf(req: FastifyRequest): string {
  const parsed = idParamSchema.safeParse(req.params);
  if (!parsed.success) throw notFound(ADMIN_MESSAGES.userNotFound);
  return parsed.data.id;
}

/** Users across tenants (super admin). These routes ignore the tenant header. */
export default async function adminRoutes(app: FastifyInstance) {
  const platform = documented('Super Admin Panel', { tenant: false });
  const cross = <E extends Partial<RouteDoc> = object>(summary: string, responses: RouteDoc['responses'], extra?: E) =>
    platform(summary, 'platform.manage', responses, extra);
  const db = () => app.database.db;
  const user = { 200: userAnswerSchema };

  app.get(
    '/admin/users',
    cross('Every user of the installation; a page of them with search, limit, after or group', { 200: userPageSchema }, { query: adminUserPageQuerySchema }),
    async (req) => {
      requirePlatform(requireActor(req));
      const query = queryOf(req);
      if (isPaged(query)) return pageOfAllUsers(db(), query);
      return { users: (await listAllUsers(db(), { limit: USER_LIST_CAP })).map(present) };
    },
  );

  // The panel's tenants a page at a time, searched, or looked up by id: its table and every
  // selector of a tenant read them here rather than the whole list (decision 0114).
  app.get(
    '/admin/tenants',
    cross('A page of tenants by name, searched on name or slug, or the tenants named by ids', { 200: tenantPageSchema }, { query: tenantPageQuerySchema }),
    async (req) => {
      requirePlatform(requireActor(req));
      return pageOfTenants(db(), queryOf(req));
    },
  );

  app.get(
    '/admin/panel-data',
    cross(
      "The Super Admin Panel's tenants and users (each list paged by its own parameters) and the caller's running impersonation",
      { 200: panelDataSchema },
      { query: panelQuery },
    ),
    async (req) => {
      const actor = requireActor(req);
      requirePlatform(actor);
      const query = queryOf(req);
      // Each list is paged when one of its own parameters is given, and then says where its next page starts.
      const usersPaged = isPaged(query);
      const tenantsPaged = isPaged({ search: query.tenantSearch, limit: query.tenantsLimit, after: query.tenantsAfter });
      const [tenants, users, active] = await Promise.all([
        tenantsPaged
          ? pageOfTenants(db(), { includeArchived: query.includeArchived, search: query.tenantSearch, after: query.tenantsAfter, limit: query.tenantsLimit })
          : listTenants(db(), { includeArchived: query.includeArchived, limit: USER_LIST_CAP }).then((rows) => ({
              tenants: rows.map(presentTenant),
              next_after: null,
            })),
        usersPaged
          ? pageOfAllUsers(db(), query)
          : listAllUsers(db(), { limit: USER_LIST_CAP }).then((rows) => ({ users: rows.map(present), next_after: null })),
        activeImpersonations(db(), actor.user.id),
      ]);
      const current = active.at(-1);
      return {
        tenants: tenants.tenants,
        users: users.users,
        ...(tenantsPaged ? { next_tenants_after: tenants.next_after } : {}),
        ...(usersPaged ? { next_users_after: users.next_after } : {}),
        is_impersonating: Boolean(current),
        impersonation: current
          ? {
              id: current.impersonation.id,
              impersonated_user: current.user,
              tenant: presentTenant(current.tenant),
              started_at: current.impersonation.startedAt.toISOString(),
              expires_at: current.impersonation.expiresAt.toISOString(),
            }
          : null,
      };
    },
  );

  app.post(
    '/admin/users',
    cross(
      'Create a user with a primary tenant; without a password the user signs in with Microsoft',
      { 201: userAnswerSchema },
      { body: createAdminUserSchema, errors: { 409: `${M.emailTaken}; or: ${M.tenantArchived}` } },
    ),
    async (req, reply) => {
      const actor = requireActor(req);
      requirePlatform(actor);
      const input = bodyOf(req);
      const tenant = await findTenantById(db(), input.tenantId);
      if (!tenant) throw notFound(ADMIN_MESSAGES.tenantNotFound);
      if (tenant.archived) throw conflict(M.tenantArchived);
      // The panel lists every tenant's users, so an address in use anywhere is a 409 here.
      const { user } = await createUser(db(), { actor, scope: 'installation', tenant, input, asInvitation: false });
      return reply.status(201).send({ user: presentUser(user, user.tenantName) });
    },
  );

  app.patch(
    '/admin/users/:id',
    cross("Change a user's role in one tenant of theirs (tenantId; their primary tenant without it)", user, {
      body: roleChangeSchema,
      errors: { 400: ADMIN_MESSAGES.notTenantMember },
    }),
    async (req) => {
      const actor = requireActor(req);
      requirePlatform(actor);
      const id = userIdOf(req);
      const input = bodyOf(req);
      const user = await findAnyUser(db(), id);
      if (!user) throw notFound(ADMIN_MESSAGES.userNotFound);
      const tenantId = input.tenantId ?? user.tenantId;
      if (!user.tenantIds.includes(tenantId)) throw invalid(ADMIN_MESSAGES.notTenantMember, 'tenantId');
      const from = roleIn(user, tenantId);
      if (from !== input.role) {
        await db().transaction(async (tx) => {
          await setMembershipRole(tx, tenantId, id, input.role);
          await writeAudit(tx, actor, {
            tenantId,
            action: 'user.role_change',
            targetType: 'user',
            targetId: id,
            details: { from, to: input.role },
          });
        });
      }
      return { user: present((await findAnyUser(db(), id))!) };
    },
  );

  app.delete('/admin/users/:id', cross('Delete a user account (not your own)', { 204: null }), async (req, reply) => {
    const actor = requireActor(req);
    requirePlatform(actor);
    const id = userIdOf(req);
    requireMayRemoveUser(actor, { id }, 'platform');
    const user = await findAnyUser(db(), id);
    if (!user) throw notFound(ADMIN_MESSAGES.userNotFound);
    await db().transaction(async (tx) => {
      await deleteUser(tx, id);
      await writeAudit(tx, actor, { tenantId: user.tenantId, action: 'user.delete', targetType: 'user', targetId: id, details: { email: user.email } });
    });
    return reply.status(204).send();
  });

  app.patch(
    '/admin/users/:id/tenants',
    cross("Replace a user's tenant memberships (the primary tenant must stay)", user, { body: membershipsSchema }),
    async (req) => {
      const actor = requireActor(req);
      requirePlatform(actor);
      const id = userIdOf(req);
      const input = bodyOf(req);
      const user = await findAnyUser(db(), id);
      if (!user) throw notFound(ADMIN_MESSAGES.userNotFound);
      if (!input.tenantIds.includes(user.tenantId)) throw invalid(M.membershipPrimary, 'tenantIds');
      if ((await countTenants(db(), input.tenantIds)) !== input.tenantIds.length) throw invalid(ADMIN_MESSAGES.unknownTenant, 'tenantIds');
      const after = (await db().transaction(async (tx) => {
        // A new membership takes the role held in the primary tenant unless one is chosen.
        await replaceMemberships(tx, id, input.memberships, user.role);
        const changed = (await findAnyUser(tx, id))!;
        const rolesOf = (u: UserListing) => Object.fromEntries([...u.tenantIds].sort().map((t) => [t, roleIn(u, t)]));
        await writeAudit(tx, actor, {
          tenantId: user.tenantId,
          action: 'user.memberships_change',
          targetType: 'user',
          targetId: id,
          details: { from: [...user.tenantIds].sort(), to: [...input.tenantIds].sort(), roles: { from: rolesOf(user), to: rolesOf(changed) } },
        });
        return changed;
      }))!;
      return { user: present(after) };
    },
  );
}

import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  assignmentAnswerSchema,
  assignmentListSchema,
  assignUserSchema,
  changeAssignmentSchema,
  createdServiceUserSchema,
  createServiceUserSchema,
  SETTINGS_MESSAGES,
  settingsIdSchema,
} from '../../../common/schemas/settings';
import { settingsDataSchema } from '../../../common/schemas/services';
import { M } from '../../../common/messages';
import { documented } from '../../routeDoc';
import { createUser } from '../../commands/createUser';
import { findAssignment, findTenantUser, listActorRoles, listAssignments, listQuickTemplates, listTenantUsers } from '../../db/queries/settings';
import { notFound } from '../../errors';
import { presentService } from '../../presenters/services';
import { presentActorRole, presentAssignment, presentQuickTemplate, presentTenantUser } from '../../presenters/settings';
import { bodyOf } from '../../validation';
import { scope, serviceOf } from '../../plugins/context';
import { managesAccess, requireActingAsSelf, requirePerson, requireTenant, decideCreatorScope } from '../../policies';
import { assign, changeRole, removeAssignment } from './assignments';

const serviceParams = z.object({ id: settingsIdSchema });
const userParams = z.object({ id: settingsIdSchema, userId: settingsIdSchema });

const doc = documented('Service users');
/** Assignments give people access: managed by a person with the service's admin rights. */
const SERVICE_ACCESS = 'service.admin (a person, never an API token)';
const noAssignment = { 404: `Not found; or: ${SETTINGS_MESSAGES.assignmentNotFound}` };

function params<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const r = schema.safeParse(input);
  if (!r.success) throw notFound();
  return r.data;
}

/** Service settings data and the service's user assignments (admins manage assignments). */
export default async function serviceUserRoutes(app: FastifyInstance) {
  const db = () => app.database.db;

  app.get(
    '/services/:id/settings-data',
    documented('Services')(
      "The service settings screen's data: the service, its actor roles and quick templates, the tenant's users (for those who may manage them) and the service's assignments (for its admins)",
      'service.settings',
      { 200: settingsDataSchema },
    ),
    async (req) => {
      const { id } = params(serviceParams, req.params);
      const { service, tenantId, permissions, actor } = await serviceOf(req, id, 'service.settings');
      // The tenant's users are a tenant right: a service assignment shows this service's assignments only.
      // People and access are a person's to manage: an API token is shown neither.
      const people = managesAccess(actor);
      const [roles, templates, tenantUsers, assignments] = await Promise.all([
        listActorRoles(db(), tenantId, service.id),
        listQuickTemplates(db(), tenantId, service.id),
        people && permissions.canManageUsers ? listTenantUsers(db(), tenantId) : Promise.resolve([]),
        people && permissions.canAdmin ? listAssignments(db(), tenantId, service.id) : Promise.resolve([]),
      ]);
      return {
        service: presentService(service),
        roles: roles.map(presentActorRole),
        templates: templates.map(presentQuickTemplate),
        users: tenantUsers.map(presentTenantUser),
        assignments: assignments.map(presentAssignment),
        permissions,
      };
    },
  );

  app.get('/services/:id/users', doc("A service's user assignments", SERVICE_ACCESS, { 200: assignmentListSchema }), async (req) => {
    const { id } = params(serviceParams, req.params);
    requirePerson(scope(req).actor);
    const { service, tenantId } = await serviceOf(req, id, 'service.admin');
    const rows = await listAssignments(db(), tenantId, service.id);
    return { assignments: rows.map(presentAssignment) };
  });

  app.post(
    '/services/:id/users',
    doc(
      'Assign a user of the tenant a role on the service',
      SERVICE_ACCESS,
      { 201: assignmentAnswerSchema },
      { body: assignUserSchema, errors: { 404: `Not found; or: ${SETTINGS_MESSAGES.userNotMember}`, 409: SETTINGS_MESSAGES.alreadyAssigned } },
    ),
    async (req, reply) => {
      const { id } = params(serviceParams, req.params);
      requirePerson(scope(req).actor);
      const input = bodyOf(req);
      const ctx = await serviceOf(req, id, 'service.admin');
      const user = await findTenantUser(db(), ctx.tenantId, { id: input.userId });
      if (!user) throw notFound(SETTINGS_MESSAGES.userNotMember);
      const row = await assign(db(), ctx, user.accountId, input.role);
      return reply.status(201).send({ assignment: presentAssignment(row) });
    },
  );

  app.put(
    '/services/:id/users/:userId',
    doc("Change a user's role on the service", SERVICE_ACCESS, { 200: assignmentAnswerSchema }, { body: changeAssignmentSchema, errors: noAssignment }),
    async (req) => {
      const p = params(userParams, req.params);
      requirePerson(scope(req).actor);
      const input = bodyOf(req);
      const ctx = await serviceOf(req, p.id, 'service.admin');
      const current = await findAssignment(db(), ctx.tenantId, { serviceId: ctx.service.id, userId: p.userId });
      if (!current) throw notFound(SETTINGS_MESSAGES.assignmentNotFound);
      const row = await changeRole(db(), ctx, current, input.role);
      return { assignment: presentAssignment(row) };
    },
  );

  app.delete(
    '/services/:id/users/:userId',
    doc("Remove a user's assignment to the service", SERVICE_ACCESS, { 204: null }, { errors: noAssignment }),
    async (req, reply) => {
      const p = params(userParams, req.params);
      requirePerson(scope(req).actor);
      const ctx = await serviceOf(req, p.id, 'service.admin');
      const current = await findAssignment(db(), ctx.tenantId, { serviceId: ctx.service.id, userId: p.userId });
      if (!current) throw notFound(SETTINGS_MESSAGES.assignmentNotFound);
      await removeAssignment(db(), ctx, current);
      return reply.status(204).send();
    },
  );

  /** 'Create New User' in service settings: a user of the current tenant, optionally assigned to the service. */
  app.post(
    '/services/:id/users/new',
    doc(
      'Create a user of the tenant from service settings, assigned to the service unless assign is false; an address with an account elsewhere is invited, with the same answer',
      'service.admin and tenant.users (a person, never an API token)',
      { 201: createdServiceUserSchema },
      { body: createServiceUserSchema, errors: { 409: M.emailTaken } },
    ),
    async (req, reply) => {
      const { id } = params(serviceParams, req.params);
      requirePerson(scope(req).actor);
      const input = bodyOf(req);
      const ctx = await serviceOf(req, id, 'service.admin');
      // Creating a user of the tenant is a tenant right, which no service assignment gives.
      requireTenant(ctx.actor, 'tenant.users');
      requireActingAsSelf(ctx.actor);
      // The same command as Tenant Settings: an account outside the tenant is invited (decision 0110).
      const result = await createUser(db(), {
        actor: ctx.actor,
        scope: decideCreatorScope(ctx.actor),
        tenant: scope(req).tenant,
        input,
        asInvitation: true,
        service: { row: ctx.service, assign: input.assign },
      });
      return reply.status(201).send({
        user: presentTenantUser(result.user),
        assignment: result.assignment ? presentAssignment(result.assignment) : null,
      });
    },
  );
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { assignUserSchema, changeAssignmentSchema, createServiceUserSchema, SETTINGS_MESSAGES, settingsIdSchema } from '../../../common/schemas/settings';
import { createUser, decideCreatorScope } from '../../commands/createUser';
import { findAssignment, findTenantUser, listActorRoles, listAssignments, listQuickTemplates, listTenantUsers } from '../../db/queries/settings';
import { notFound } from '../../errors';
import { presentService } from '../../presenters/services';
import { presentActorRole, presentAssignment, presentQuickTemplate, presentTenantUser } from '../../presenters/settings';
import { parse } from '../../validation';
import { scope, serviceOf } from '../../plugins/context';
import { requireTenant } from '../../policies';
import { assign, changeRole, removeAssignment } from './assignments';

const serviceParams = z.object({ id: settingsIdSchema });
const userParams = z.object({ id: settingsIdSchema, userId: settingsIdSchema });

function params<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const r = schema.safeParse(input);
  if (!r.success) throw notFound();
  return r.data;
}

/** Service settings data and the service's user assignments (admins manage assignments). */
export default async function serviceUserRoutes(app: FastifyInstance) {
  const db = () => app.database.db;

  app.get('/services/:id/settings-data', async (req) => {
    const { id } = params(serviceParams, req.params);
    const { service, tenantId, permissions } = await serviceOf(req, id, 'service.settings');
    // The tenant's users are a tenant right: a service assignment shows this service's assignments only.
    const [roles, templates, tenantUsers, assignments] = await Promise.all([
      listActorRoles(db(), tenantId, service.id),
      listQuickTemplates(db(), tenantId, service.id),
      permissions.canManageUsers ? listTenantUsers(db(), tenantId) : Promise.resolve([]),
      permissions.canAdmin ? listAssignments(db(), tenantId, service.id) : Promise.resolve([]),
    ]);
    return {
      service: presentService(service),
      roles: roles.map(presentActorRole),
      templates: templates.map(presentQuickTemplate),
      users: tenantUsers.map(presentTenantUser),
      assignments: assignments.map(presentAssignment),
      permissions,
    };
  });

  app.get('/services/:id/users', async (req) => {
    const { id } = params(serviceParams, req.params);
    const { service, tenantId } = await serviceOf(req, id, 'service.admin');
    const rows = await listAssignments(db(), tenantId, service.id);
    return { assignments: rows.map(presentAssignment) };
  });

  app.post('/services/:id/users', async (req, reply) => {
    const { id } = params(serviceParams, req.params);
    const input = parse(assignUserSchema, req.body);
    const ctx = await serviceOf(req, id, 'service.admin');
    const user = await findTenantUser(db(), ctx.tenantId, { id: input.userId });
    if (!user) throw notFound(SETTINGS_MESSAGES.userNotMember);
    const row = await assign(db(), ctx, user.accountId, input.role);
    return reply.status(201).send({ assignment: presentAssignment(row) });
  });

  app.put('/services/:id/users/:userId', async (req) => {
    const p = params(userParams, req.params);
    const input = parse(changeAssignmentSchema, req.body);
    const ctx = await serviceOf(req, p.id, 'service.admin');
    const current = await findAssignment(db(), ctx.tenantId, { serviceId: ctx.service.id, userId: p.userId });
    if (!current) throw notFound(SETTINGS_MESSAGES.assignmentNotFound);
    const row = await changeRole(db(), ctx, current, input.role);
    return { assignment: presentAssignment(row) };
  });

  app.delete('/services/:id/users/:userId', async (req, reply) => {
    const p = params(userParams, req.params);
    const ctx = await serviceOf(req, p.id, 'service.admin');
    const current = await findAssignment(db(), ctx.tenantId, { serviceId: ctx.service.id, userId: p.userId });
    if (!current) throw notFound(SETTINGS_MESSAGES.assignmentNotFound);
    await removeAssignment(db(), ctx, current);
    return reply.status(204).send();
  });

  /** 'Create New User' in service settings: a user of the current tenant, optionally assigned to the service. */
  app.post('/services/:id/users/new', async (req: FastifyRequest, reply) => {
    const { id } = params(serviceParams, req.params);
    const input = parse(createServiceUserSchema, req.body);
    const ctx = await serviceOf(req, id, 'service.admin');
    // Creating a user of the tenant is a tenant right, which no service assignment gives.
    requireTenant(ctx.actor, 'tenant.users');
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
  });
}

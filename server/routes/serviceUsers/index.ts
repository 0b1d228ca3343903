import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { M } from '../../../common/messages';
import {
  assignUserSchema,
  changeAssignmentSchema,
  createServiceUserSchema,
  SETTINGS_MESSAGES,
  settingsIdSchema,
} from '../../../common/schemas/settings';
import { hashPassword } from '../../auth/passwords';
import { writeAudit } from '../../commands/audit';
import {
  findAssignment,
  findTenantUser,
  listActorRoles,
  listAssignments,
  listQuickTemplates,
  listTenantUsers,
} from '../../db/queries/settings';
import { findUserByEmail } from '../../db/queries/users';
import { tenantMemberships, users } from '../../db/schema';
import { conflict, notFound } from '../../errors';
import { presentService } from '../../presenters/services';
import { presentActorRole, presentAssignment, presentQuickTemplate, presentTenantUser } from '../../presenters/settings';
import { parse } from '../../validation';
import { loadServiceFor } from './access';
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
    const { service, tenantId, can } = await loadServiceFor(db(), req, id, 'service.settings');
    const manageUsers = can('service.admin');
    const [roles, templates, tenantUsers, assignments] = await Promise.all([
      listActorRoles(db(), tenantId, service.id),
      listQuickTemplates(db(), tenantId, service.id),
      manageUsers ? listTenantUsers(db(), tenantId) : Promise.resolve([]),
      manageUsers ? listAssignments(db(), tenantId, service.id) : Promise.resolve([]),
    ]);
    return {
      service: presentService(service),
      roles: roles.map(presentActorRole),
      templates: templates.map(presentQuickTemplate),
      users: tenantUsers.map(presentTenantUser),
      assignments: assignments.map(presentAssignment),
      permissions: { settings: true, admin: manageUsers, hard_delete: can('services.hardDelete') },
    };
  });

  app.get('/services/:id/users', async (req) => {
    const { id } = params(serviceParams, req.params);
    const { service, tenantId } = await loadServiceFor(db(), req, id, 'service.admin');
    const rows = await listAssignments(db(), tenantId, service.id);
    return { assignments: rows.map(presentAssignment) };
  });

  app.post('/services/:id/users', async (req, reply) => {
    const { id } = params(serviceParams, req.params);
    const input = parse(assignUserSchema, req.body);
    const ctx = await loadServiceFor(db(), req, id, 'service.admin');
    const user = await findTenantUser(db(), ctx.tenantId, { id: input.userId });
    if (!user) throw notFound(SETTINGS_MESSAGES.userNotMember);
    const row = await assign(db(), ctx, user.id, input.role);
    return reply.status(201).send({ assignment: presentAssignment(row) });
  });

  app.put('/services/:id/users/:userId', async (req) => {
    const p = params(userParams, req.params);
    const input = parse(changeAssignmentSchema, req.body);
    const ctx = await loadServiceFor(db(), req, p.id, 'service.admin');
    const current = await findAssignment(db(), ctx.tenantId, { serviceId: ctx.service.id, userId: p.userId });
    if (!current) throw notFound(SETTINGS_MESSAGES.assignmentNotFound);
    const row = await changeRole(db(), ctx, current, input.role);
    return { assignment: presentAssignment(row) };
  });

  app.delete('/services/:id/users/:userId', async (req, reply) => {
    const p = params(userParams, req.params);
    const ctx = await loadServiceFor(db(), req, p.id, 'service.admin');
    const current = await findAssignment(db(), ctx.tenantId, { serviceId: ctx.service.id, userId: p.userId });
    if (!current) throw notFound(SETTINGS_MESSAGES.assignmentNotFound);
    await removeAssignment(db(), ctx, current);
    return reply.status(204).send();
  });

  /** 'Create New User' in service settings: a user of the current tenant, optionally assigned to the service. */
  app.post('/services/:id/users/new', async (req: FastifyRequest, reply) => {
    const { id } = params(serviceParams, req.params);
    const input = parse(createServiceUserSchema, req.body);
    const ctx = await loadServiceFor(db(), req, id, 'service.admin');
    if (await findUserByEmail(db(), input.email)) throw conflict(M.emailTaken);
    const passwordHash = input.password ? await hashPassword(input.password) : null;
    const result = await db().transaction(async (tx) => {
      const [user] = await tx
        .insert(users)
        .values({ email: input.email, name: input.name, role: input.role, tenantId: ctx.tenantId, passwordHash })
        .onConflictDoNothing()
        .returning();
      if (!user) throw conflict(M.emailTaken);
      await tx.insert(tenantMemberships).values({ userId: user.id, tenantId: ctx.tenantId });
      await writeAudit(tx, ctx.actor, {
        tenantId: ctx.tenantId,
        action: 'user.create',
        targetType: 'user',
        targetId: user.id,
        details: { email: user.email, role: user.role, serviceId: ctx.service.id },
      });
      const assignment = input.assign ? await assign(tx, ctx, user.id, input.role) : null;
      return { user, assignment };
    });
    return reply.status(201).send({
      user: presentTenantUser(result.user),
      assignment: result.assignment ? presentAssignment(result.assignment) : null,
    });
  });
}

import type { FastifyInstance } from 'fastify';
import {
  assignmentAnswerSchema,
  assignmentListSchema,
  changeAssignmentSchema,
  createServiceRoleSchema,
  SETTINGS_MESSAGES,
} from '../../../common/schemas/settings';
import { documented } from '../../routeDoc';
import { findAssignment, findTenantUser, listAssignments } from '../../db/queries/settings';
import { notFound } from '../../errors';
import { scope, serviceOf } from '../../plugins/context';
import { presentAssignment } from '../../presenters/settings';
import { bodyOf } from '../../validation';
import { assign, changeRole, removeAssignment } from '../serviceUsers/assignments';
import { parseIdParam } from '../../commands/serviceWrites';
import { requirePerson } from '../../policies';

const doc = documented('Service roles');
/** Assignments give people access: managed by a person with the service's admin rights. */
const SERVICE_ACCESS = 'service.admin (a person, never an API token)';

/** Service role assignments addressed by assignment id, the user named by email (admins only). */
export default async function serviceRoleRoutes(app: FastifyInstance) {
  const db = () => app.database.db;

  async function loadAssignment(req: Parameters<typeof scope>[0], id: string) {
    const { actor, tenantId } = scope(req);
    requirePerson(actor);
    const current = await findAssignment(db(), tenantId, { id });
    if (!current) throw notFound(SETTINGS_MESSAGES.assignmentNotFound);
    const ctx = await serviceOf(req, current.serviceId, 'service.admin');
    return { ctx, current };
  }

  app.get('/service-roles/service/:id', doc("A service's role assignments", SERVICE_ACCESS, { 200: assignmentListSchema }), async (req) => {
    requirePerson(scope(req).actor);
    const { service, tenantId } = await serviceOf(req, parseIdParam(req.params), 'service.admin');
    const rows = await listAssignments(db(), tenantId, service.id);
    return { assignments: rows.map(presentAssignment) };
  });

  app.post(
    '/service-roles',
    doc(
      'Assign a member of the tenant, named by email, a role on a service',
      SERVICE_ACCESS,
      { 201: assignmentAnswerSchema },
      { body: createServiceRoleSchema, errors: { 404: `Not found; or: ${SETTINGS_MESSAGES.userNotMember}`, 409: SETTINGS_MESSAGES.alreadyAssigned } },
    ),
    async (req, reply) => {
      requirePerson(scope(req).actor);
      const input = bodyOf(req);
      const ctx = await serviceOf(req, input.serviceId, 'service.admin');
      const user = await findTenantUser(db(), ctx.tenantId, { email: input.userEmail });
      if (!user) throw notFound(SETTINGS_MESSAGES.userNotMember);
      const row = await assign(db(), ctx, user.accountId, input.role);
      return reply.status(201).send({ assignment: presentAssignment(row) });
    },
  );

  app.put(
    '/service-roles/:id',
    doc("Change an assignment's role", SERVICE_ACCESS, { 200: assignmentAnswerSchema }, { body: changeAssignmentSchema }),
    async (req) => {
      const id = parseIdParam(req.params);
      const input = bodyOf(req);
      const { ctx, current } = await loadAssignment(req, id);
      const row = await changeRole(db(), ctx, current, input.role);
      return { assignment: presentAssignment(row) };
    },
  );

  app.delete('/service-roles/:id', doc('Remove an assignment', SERVICE_ACCESS, { 204: null }), async (req, reply) => {
    const { ctx, current } = await loadAssignment(req, parseIdParam(req.params));
    await removeAssignment(db(), ctx, current);
    return reply.status(204).send();
  });
}

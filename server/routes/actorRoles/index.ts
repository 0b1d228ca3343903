import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  createActorRoleSchema,
  reorderActorRolesSchema,
  SETTINGS_MESSAGES,
  settingsIdSchema,
  updateActorRoleSchema,
} from '../../../common/schemas/settings';
import {
  deleteActorRole,
  findActorRole,
  insertActorRole,
  listActorRoles,
  reorderActorRoles,
  updateActorRole,
} from '../../db/queries/settings';
import { assertWritable, loadWritableService, touchService } from '../../commands/serviceWrites';
import { invalid, notFound } from '../../errors';
import { scope, serviceOf } from '../../plugins/context';
import { presentActorRole } from '../../presenters/settings';
import { parse } from '../../validation';

const idParams = z.object({ id: settingsIdSchema });

/** Actor roles of a service (Actor Roles tab): editors and up, never on an archived service. */
export default async function actorRoleRoutes(app: FastifyInstance) {
  const db = () => app.database.db;

  const parseId = (params: unknown) => {
    const r = idParams.safeParse(params);
    if (!r.success) throw notFound();
    return r.data.id;
  };

  /** Loads a role of the request's tenant and checks the caller may change it. */
  async function loadRole(req: Parameters<typeof scope>[0], id: string) {
    const { tenantId } = scope(req);
    const role = await findActorRole(db(), tenantId, id);
    if (!role) throw notFound();
    const { service } = await serviceOf(req, role.serviceId, 'service.settings');
    assertWritable(service);
    return { role, tenantId };
  }

  app.get('/actor-roles/service/:id', async (req) => {
    const { service, tenantId } = await serviceOf(req, parseId(req.params), 'service.settings');
    const rows = await listActorRoles(db(), tenantId, service.id);
    return { roles: rows.map(presentActorRole) };
  });

  app.post('/actor-roles', async (req, reply) => {
    const input = parse(createActorRoleSchema, req.body);
    const { service, tenantId } = await serviceOf(req, input.serviceId, 'service.settings');
    assertWritable(service);
    const row = await db().transaction(async (tx) => {
      await loadWritableService(tx, tenantId, service.id);
      const created = await insertActorRole(tx, tenantId, service.id, input.roleName);
      await touchService(tx, tenantId, service.id);
      return created;
    });
    return reply.status(201).send({ role: presentActorRole(row) });
  });

  app.put('/actor-roles/:id', async (req) => {
    const id = parseId(req.params);
    const input = parse(updateActorRoleSchema, req.body);
    const { role, tenantId } = await loadRole(req, id);
    const row = await db().transaction(async (tx) => {
      await loadWritableService(tx, tenantId, role.serviceId);
      const updated = await updateActorRole(tx, tenantId, role.id, input.roleName);
      await touchService(tx, tenantId, role.serviceId);
      return updated;
    });
    return { role: presentActorRole(row) };
  });

  app.delete('/actor-roles/:id', async (req, reply) => {
    const { role, tenantId } = await loadRole(req, parseId(req.params));
    await db().transaction(async (tx) => {
      await loadWritableService(tx, tenantId, role.serviceId);
      await deleteActorRole(tx, tenantId, role.id);
      await touchService(tx, tenantId, role.serviceId);
    });
    return reply.status(204).send();
  });

  app.patch('/actor-roles/reorder', async (req) => {
    const input = parse(reorderActorRolesSchema, req.body);
    const { service, tenantId } = await serviceOf(req, input.serviceId, 'service.settings');
    assertWritable(service);
    const rows = await db().transaction(async (tx) => {
      await loadWritableService(tx, tenantId, service.id);
      const current = await listActorRoles(tx, tenantId, service.id);
      const ids = new Set(current.map((r) => r.id));
      const given = new Set(input.roleIds);
      if (given.size !== input.roleIds.length || given.size !== ids.size || input.roleIds.some((x) => !ids.has(x))) {
        throw invalid(SETTINGS_MESSAGES.reorderMismatch, 'roleIds');
      }
      await reorderActorRoles(tx, tenantId, service.id, input.roleIds);
      await touchService(tx, tenantId, service.id);
      return listActorRoles(tx, tenantId, service.id);
    });
    return { roles: rows.map(presentActorRole) };
  });
}

import { M } from '../../common/messages';
import { idSchema } from '../../common/schemas/catalog';
import type { Role } from '../../common/roles';
import type { Executor } from '../db';
import { findServiceWithRole, lockService, updateService, type ServiceRow } from '../db/queries/services';
import { conflict, notFound } from '../errors';
import type { Actor } from '../plugins/context';
import { authorize, type Capability } from '../policies';
import type { StampedCache } from '../db/writeStamps';

/** The tables a service and its caller's service role are read from. */
export const SERVICE_ACCESS_TABLES = ['services', 'service_role_assignments'];
export type ServiceAccessCache = StampedCache<ServiceAccess | undefined>;

/** A path id that is not a uuid names no record: 404, before the database sees it. */
export function pathId(value: unknown): string {
  const parsed = idSchema.safeParse(value);
  if (!parsed.success) throw notFound();
  return parsed.data;
}

export interface ServiceAccess {
  service: ServiceRow;
  /** The caller's service role assignment, which raises their role on this service. */
  serviceRole: Role | null;
}

/**
 * Loads a service of the tenant (404 when it is not there) and checks that the caller holds the
 * capability on it, their service role assignment included.
 */
export async function authorizeService(
  db: Executor,
  actor: Actor,
  tenantId: string,
  serviceId: string,
  capability: Capability,
  notFoundMessage: string = M.serviceNotFound,
  /** Outside a transaction only: reuses the service and role read by an earlier request. */
  cache?: ServiceAccessCache,
): Promise<ServiceAccess> {
  const load = () => findServiceWithRole(db, tenantId, serviceId, actor.user.id);
  const found = cache ? await cache.get(serviceAccessKey(tenantId, serviceId, actor), load) : await load();
  if (!found) throw notFound(notFoundMessage);
  return checkServiceAccess(actor, tenantId, found, capability);
}

/** The cache key of a caller's access to a service. */
export function serviceAccessKey(tenantId: string, serviceId: string, actor: Actor): string {
  return `${tenantId}|${serviceId}|${actor.user.id}`;
}

/** Throws unless the caller holds the capability on the service, their service role included. */
export function checkServiceAccess(actor: Actor, tenantId: string, access: ServiceAccess, capability: Capability): ServiceAccess {
  const { service, serviceRole } = access;
  authorize(actor, capability, { tenantId, recordTenantId: service.tenantId, serviceRole });
  return access;
}

/**
 * Inside a write transaction: locks the service row (writes to one service run one at a time),
 * 404 when it is gone, 409 when it is archived and therefore read-only.
 */
export async function loadWritableService(tx: Executor, tenantId: string, serviceId: string): Promise<ServiceRow> {
  const service = await lockService(tx, tenantId, serviceId);
  if (!service) throw notFound(M.serviceNotFound);
  if (service.archived) throw conflict(M.serviceArchivedConflict);
  return service;
}

/** Marks a service's content as changed: bumps its version and last_updated in the same transaction. */
export async function touchService(tx: Executor, tenantId: string, serviceId: string): Promise<ServiceRow> {
  const row = await updateService(tx, tenantId, serviceId, {});
  if (!row) throw notFound(M.serviceNotFound);
  return row;
}

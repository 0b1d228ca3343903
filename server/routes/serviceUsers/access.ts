import type { FastifyRequest } from 'fastify';
import { M } from '../../../common/messages';
import type { Executor } from '../../db';
import { findService, findServiceRole, type ServiceRow } from '../../db/queries/services';
import { conflict, notFound } from '../../errors';
import { scope } from '../../plugins/context';
import { authorize, can, type Capability } from '../../policies';

/**
 * Loads a service of the request's tenant and checks the caller's capability on it, their service
 * role assignment included. Another tenant's service is a 404; a missing right is a 403.
 */
export async function loadServiceFor(db: Executor, req: FastifyRequest, serviceId: string, capability: Capability) {
  const { actor, tenantId } = scope(req);
  const service = await findService(db, tenantId, serviceId);
  if (!service) throw notFound(M.serviceNotFound);
  const serviceRole = await findServiceRole(db, tenantId, serviceId, actor.userId);
  authorize(actor, capability, { tenantId, recordTenantId: service.tenantId, serviceRole });
  return {
    service,
    actor,
    tenantId,
    /** Whether the caller holds another capability on this same service. */
    can: (other: Capability) => can(actor, other, { tenantId, serviceRole }),
  };
}

/** Archived services are read-only (CONTRACT section 4). */
export function assertWritable(service: ServiceRow): void {
  if (service.archived) throw conflict(M.serviceArchivedConflict);
}

import type { Role } from '../../../common/roles';
import type { Executor } from '../../db';
import { findAspect, type AspectRow } from '../../db/queries/catalog';
import { findServiceRole } from '../../db/queries/services';
import type { Actor } from '../../plugins/context';
import { authorize, can, type Capability } from '../../policies';
import { notFound } from '../../errors';
import { pathId } from '../../commands/serviceWrites';

/**
 * Loads an aspect of the tenant and checks the caller holds the capability on its service. A
 * private aspect does not exist for those who may not see private aspects (readers): 404.
 */
export async function authorizeAspect(
  db: Executor,
  actor: Actor,
  tenantId: string,
  rawId: unknown,
  capability: Capability,
): Promise<{ aspect: AspectRow; serviceRole: Role | null }> {
  const aspect = await findAspect(db, tenantId, pathId(rawId));
  if (!aspect) throw notFound();
  const serviceRole = await findServiceRole(db, tenantId, aspect.serviceId, actor.user.id);
  const ctx = { tenantId, recordTenantId: aspect.tenantId, serviceRole };
  if (!aspect.isPublic && !can(actor, 'catalog.edit', ctx)) throw notFound();
  authorize(actor, capability, ctx);
  return { aspect, serviceRole };
}

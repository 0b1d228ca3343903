import type { Role } from '../../../common/roles';
import type { Executor } from '../../db';
import { findAspectWithRole, type AspectRow } from '../../db/queries/catalog';
import type { Actor } from '../../plugins/context';
import { authorize, can, type Capability } from '../../policies';
import { notFound } from '../../errors';
import { pathId } from '../../commands/serviceWrites';

/**
 * Loads an aspect of the tenant with the caller's service role on its service (one statement) and
 * checks the caller holds the capability there. A private aspect does not exist for those who may
 * not see private aspects (readers): 404.
 */
export async function authorizeAspect(
  db: Executor,
  actor: Actor,
  tenantId: string,
  rawId: unknown,
  capability: Capability,
): Promise<{ aspect: AspectRow; serviceRole: Role | null }> {
  const found = await findAspectWithRole(db, tenantId, pathId(rawId), actor.user.id);
  if (!found) throw notFound();
  const { aspect, serviceRole } = found;
  const ctx = { tenantId, recordTenantId: aspect.tenantId, serviceRole };
  if (!aspect.isPublic && !can(actor, 'catalog.edit', ctx)) throw notFound();
  authorize(actor, capability, ctx);
  return { aspect, serviceRole };
}

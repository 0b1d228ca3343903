import { and, eq, sql } from 'drizzle-orm';
import { M } from '../../common/messages';
import { SETTINGS_MESSAGES } from '../../common/schemas/settings';
import type { Executor } from '../db';
import { asSystem } from '../db/scope';
import { lockService } from '../db/queries/services';
import { serviceRoleAssignments, services } from '../db/schema';
import { conflict, notFound } from '../errors';
import type { Actor } from '../plugins/context';
import { writeAudit } from './audit';

/**
 * Moves an active service and all its content to another tenant. Composite foreign keys with
 * ON UPDATE CASCADE carry every child row along; assignments of users who are not members of the
 * target tenant are dropped first, and their number is answered. The caller's rights in both tenants
 * are checked before; the move itself writes into the target tenant, so it runs across tenants
 * (docs/decisions/0004-row-level-security.md).
 */
export async function moveService(db: Executor, actor: Actor, fromTenantId: string, serviceId: string, targetTenantId: string) {
  return asSystem(() =>
    db.transaction(async (tx) => {
      const service = await lockService(tx, fromTenantId, serviceId);
      if (!service) throw notFound(M.serviceNotFound);
      if (service.archived) throw conflict(M.serviceArchivedConflict);
      const [clash] = await tx
        .select({ id: services.id })
        .from(services)
        .where(and(eq(services.tenantId, targetTenantId), eq(services.slug, service.slug)))
        .limit(1);
      if (clash) throw conflict(SETTINGS_MESSAGES.targetSlugTaken);
      const dropped = await tx
        .delete(serviceRoleAssignments)
        .where(
          and(
            eq(serviceRoleAssignments.tenantId, fromTenantId),
            eq(serviceRoleAssignments.serviceId, serviceId),
            sql`not exists (select 1 from users u where u.id = ${serviceRoleAssignments.userId} and u.tenant_id = ${targetTenantId})`,
            sql`not exists (select 1 from tenant_memberships m where m.user_id = ${serviceRoleAssignments.userId} and m.tenant_id = ${targetTenantId})`,
          ),
        )
        .returning({ id: serviceRoleAssignments.id });
      const [moved] = await tx
        .update(services)
        .set({
          tenantId: targetTenantId,
          // The target tenant's admins decide whether it is public there (docs/decisions/0120-public-pages.md).
          published: false,
          version: sql`${services.version} + 1`,
          lastUpdated: sql`now()`,
        })
        .where(and(eq(services.tenantId, fromTenantId), eq(services.id, serviceId)))
        .returning();
      const details = { fromTenantId, toTenantId: targetTenantId, slug: service.slug, droppedAssignments: dropped.length };
      for (const tenantId of [fromTenantId, targetTenantId]) {
        await writeAudit(tx, actor, { tenantId, action: 'service.move', targetType: 'service', targetId: serviceId, details });
      }
      return { service: moved!, droppedAssignments: dropped.length };
    }),
  );
}

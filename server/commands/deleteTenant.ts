import { eq } from 'drizzle-orm';
import type { Database } from '../db';
import { tenants, users, webhookEvents } from '../db/schema';
import { lockTenant } from '../db/queries/tenants';
import { conflict, notFound } from '../errors';
import { ADMIN_MESSAGES } from '../../common/schemas/users';
import type { Actor } from '../plugins/context';
import { writeAudit } from './audit';

/**
 * Permanently deletes an archived tenant, all or nothing: its services with their categories,
 * aspects, availabilities and history, snapshots, actor roles, quick templates and service role
 * assignments, its memberships, impersonations and audit rows (all through the tenant's foreign-key
 * cascades), and every user whose primary tenant it was. The audit row of the deletion itself has
 * no tenant, so it outlives the tenant.
 */
export async function deleteTenant(database: Database, actor: Actor, tenantId: string) {
  return database.db.transaction(async (tx) => {
    const tenant = await lockTenant(tx, tenantId);
    if (!tenant) throw notFound(ADMIN_MESSAGES.tenantNotFound);
    if (!tenant.archived) throw conflict(ADMIN_MESSAGES.tenantNotArchived);
    if (actor.user.tenantId === tenant.id) throw conflict(ADMIN_MESSAGES.cannotDeleteOwnTenant);
    const removedUsers = await tx.delete(users).where(eq(users.tenantId, tenant.id)).returning({ id: users.id });
    // The webhook outbox has no foreign key (a row every write pays for): its events go by hand.
    await tx.delete(webhookEvents).where(eq(webhookEvents.tenantId, tenant.id));
    await tx.delete(tenants).where(eq(tenants.id, tenant.id));
    await writeAudit(tx, actor, {
      tenantId: null,
      action: 'tenant.delete',
      targetType: 'tenant',
      targetId: tenant.id,
      details: { name: tenant.name, slug: tenant.slug, removedUsers: removedUsers.length },
    });
    return tenant;
  });
}

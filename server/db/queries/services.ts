import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from '../client';
import { serviceRoleAssignments, services } from '../schema';

export type ServiceRow = typeof services.$inferSelect;

export async function listServices(db: Executor, tenantId: string, opts: { includeArchived: boolean }): Promise<ServiceRow[]> {
  const where = opts.includeArchived
    ? eq(services.tenantId, tenantId)
    : and(eq(services.tenantId, tenantId), eq(services.archived, false));
  return db.select().from(services).where(where).orderBy(asc(services.name), asc(services.id));
}

export async function findService(db: Executor, tenantId: string, serviceId: string): Promise<ServiceRow | undefined> {
  const [row] = await db
    .select()
    .from(services)
    .where(and(eq(services.tenantId, tenantId), eq(services.id, serviceId)))
    .limit(1);
  return row;
}

/** The caller's service role assignment on one service, which raises their role there. */
export async function findServiceRole(db: Executor, tenantId: string, serviceId: string, userId: string) {
  const [row] = await db
    .select({ role: serviceRoleAssignments.role })
    .from(serviceRoleAssignments)
    .where(
      and(
        eq(serviceRoleAssignments.tenantId, tenantId),
        eq(serviceRoleAssignments.serviceId, serviceId),
        eq(serviceRoleAssignments.userId, userId),
      ),
    )
    .limit(1);
  return row?.role ?? null;
}

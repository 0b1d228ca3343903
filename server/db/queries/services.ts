import { and, asc, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../client';
import { serviceRoleAssignments, services } from '../schema';
import { likeText } from './admin';
import { SERVICE_LIST_CAP } from '../../../common/schemas/paging';

/**
 * A service's columns as the server reads them: all but search_text, which only a search's
 * condition reads (it holds the description's text again, so reading it would double a list's bytes).
 */
const { searchText: _searchText, ...serviceColumns } = getTableColumns(services);
export type ServiceRow = Omit<typeof services.$inferSelect, 'searchText'>;
type ServiceRoleAssignment = typeof serviceRoleAssignments.$inferSelect;

/**
 * The services of a tenant that exist for every reader: not one an import is still writing
 * (docs/decisions/0136-imports-in-steps.md). Every read of a service goes through it.
 */
export const visibleService = (tenantId: string) => and(eq(services.tenantId, tenantId), eq(services.importing, false))!;

/** A tenant's services by name, at most `SERVICE_LIST_CAP` of them (GET /api/services without paging; decision 0114). */
export async function listServices(db: Executor, tenantId: string, opts: { includeArchived: boolean; only?: readonly string[] }): Promise<ServiceRow[]> {
  const where: SQL[] = [visibleService(tenantId)];
  if (!opts.includeArchived) where.push(eq(services.archived, false));
  if (opts.only) where.push(onlyServices(opts.only));
  return db
    .select(serviceColumns)
    .from(services)
    .where(and(...where))
    .orderBy(asc(services.name), asc(services.id))
    .limit(SERVICE_LIST_CAP);
}

/** Only the services named (none when the list is empty). */
const onlyServices = (ids: readonly string[]): SQL => (ids.length ? inArray(services.id, [...ids]) : sql`false`);

/** One page of a tenant's services: a search, after a (name, id) key, at most `limit` rows. */
export interface ServicePageRequest {
  includeArchived: boolean;
  search?: string;
  after?: [name: string, id: string];
  limit: number;
  /** Only these services (an API token limited to some): read before paging, so that a page is full. */
  only?: readonly string[];
}

/** One page of the list above in the same order (name, then id), the search matching name, slug, description or owner. */
export async function pageServices(db: Executor, tenantId: string, page: ServicePageRequest): Promise<ServiceRow[]> {
  return servicesPageQuery(db, tenantId, page);
}

/** The statement of pageServices (its plan is checked by the tests: a page of a large tenant walks the name index). */
export const servicesPageStatement = (db: Executor, tenantId: string, page: ServicePageRequest) => servicesPageQuery(db, tenantId, page).getSQL();

function servicesPageQuery(db: Executor, tenantId: string, page: ServicePageRequest) {
  const where: SQL[] = [visibleService(tenantId)];
  if (!page.includeArchived) where.push(eq(services.archived, false));
  // search_text: name, slug, owner and the description's text, lower-cased (schema/catalog.ts).
  if (page.search) where.push(sql`${services.searchText} like lower(${likeText(page.search)})`);
  if (page.after) where.push(sql`(${services.name}, ${services.id}) > (${page.after[0]}, ${page.after[1]}::uuid)`);
  if (page.only) where.push(onlyServices(page.only));
  return db
    .select(serviceColumns)
    .from(services)
    .where(and(...where))
    .orderBy(asc(services.name), asc(services.id))
    .limit(page.limit);
}

export async function findService(db: Executor, tenantId: string, serviceId: string): Promise<ServiceRow | undefined> {
  const [row] = await db
    .select(serviceColumns)
    .from(services)
    .where(and(visibleService(tenantId), eq(services.id, serviceId)))
    .limit(1);
  return row;
}

/** Some of the tenant's services, by id (in no order); others' and hidden ones are not found. */
export async function findServices(db: Executor, tenantId: string, serviceIds: readonly string[]): Promise<ServiceRow[]> {
  if (serviceIds.length === 0) return [];
  return db
    .select(serviceColumns)
    .from(services)
    .where(and(visibleService(tenantId), sql`${services.id} = any(${sql.param([...serviceIds])}::uuid[])`));
}

/**
 * A service of the tenant and the caller's service role assignment on it, in one statement: the
 * authorization every request on a service starts with.
 */
export async function findServiceWithRole(
  db: Executor,
  tenantId: string,
  serviceId: string,
  userId: string,
): Promise<{ service: ServiceRow; serviceRole: ServiceRoleAssignment['role'] | null } | undefined> {
  const [row] = await db
    .select({
      service: serviceColumns,
      // Table and columns spelt out: inside a select list Drizzle leaves column names unqualified.
      serviceRole: sql<ServiceRoleAssignment['role'] | null>`(select sra.role from service_role_assignments sra
        where sra.tenant_id = ${tenantId} and sra.service_id = ${serviceId} and sra.user_id = ${userId} limit 1)`,
    })
    .from(services)
    .where(and(visibleService(tenantId), eq(services.id, serviceId)))
    .limit(1);
  return row ? { service: row.service, serviceRole: row.serviceRole ?? null } : undefined;
}

/** A user's service role assignments in a tenant, by service. */
export async function listUserServiceRoles(
  db: Executor,
  tenantId: string,
  userId: string,
  serviceIds?: string[],
): Promise<{ serviceId: string; role: ServiceRoleAssignment['role'] }[]> {
  if (serviceIds?.length === 0) return [];
  const where = [eq(serviceRoleAssignments.tenantId, tenantId), eq(serviceRoleAssignments.userId, userId)];
  // A page of the list needs the assignments on its services only: one array, not a parameter per service.
  if (serviceIds) where.push(sql`${serviceRoleAssignments.serviceId} = any(${sql.param(serviceIds)}::uuid[])`);
  return db
    .select({ serviceId: serviceRoleAssignments.serviceId, role: serviceRoleAssignments.role })
    .from(serviceRoleAssignments)
    .where(and(...where));
}

export type NewService = Omit<typeof services.$inferInsert, 'id' | 'tenantId' | 'version' | 'lastUpdated' | 'createdAt'>;

/** Inserts a service; undefined when the slug is already taken in the tenant. */
export async function insertService(db: Executor, tenantId: string, values: NewService): Promise<ServiceRow | undefined> {
  const [row] = await db
    .insert(services)
    .values({ ...values, tenantId })
    .onConflictDoNothing({ target: [services.tenantId, services.slug] })
    .returning();
  return row;
}

export type ServiceChanges = Partial<
  Pick<ServiceRow, 'name' | 'description' | 'serviceOwner' | 'subscriptionModel' | 'iconUrl' | 'timeline' | 'archived' | 'published'>
>;

/** Applies changes to a service and bumps its version and last_updated. */
export async function updateService(db: Executor, tenantId: string, serviceId: string, changes: ServiceChanges): Promise<ServiceRow | undefined> {
  const [row] = await db
    .update(services)
    .set({ ...changes, version: sql`${services.version} + 1`, lastUpdated: sql`now()` })
    .where(and(visibleService(tenantId), eq(services.id, serviceId)))
    .returning();
  return row;
}

/** The service row locked for the rest of the transaction, so writes to one service run one at a time. */
export async function lockService(db: Executor, tenantId: string, serviceId: string): Promise<ServiceRow | undefined> {
  const [row] = await db
    .select(serviceColumns)
    .from(services)
    .where(and(visibleService(tenantId), eq(services.id, serviceId)))
    .for('update')
    .limit(1);
  return row;
}

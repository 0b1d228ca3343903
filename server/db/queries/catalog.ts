import { and, asc, desc, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../client';
import type { Role } from '../../../common/roles';
import { aspects, availabilities, availabilityHistory, categories, serviceRoleAssignments } from '../schema';

export type CategoryRow = typeof categories.$inferSelect;
export type AspectRow = typeof aspects.$inferSelect;
export type AvailabilityRow = typeof availabilities.$inferSelect;
export type HistoryRow = typeof availabilityHistory.$inferSelect;

// Categories

export async function listCategories(db: Executor, tenantId: string, serviceId: string): Promise<CategoryRow[]> {
  return db
    .select()
    .from(categories)
    .where(and(eq(categories.tenantId, tenantId), eq(categories.serviceId, serviceId)))
    .orderBy(asc(categories.position), asc(categories.createdAt), asc(categories.id));
}

export async function findCategory(db: Executor, tenantId: string, categoryId: string): Promise<CategoryRow | undefined> {
  const [row] = await db
    .select()
    .from(categories)
    .where(and(eq(categories.tenantId, tenantId), eq(categories.id, categoryId)))
    .limit(1);
  return row;
}

/** The position after the last category of a service. */
export async function nextCategoryPosition(db: Executor, tenantId: string, serviceId: string): Promise<number> {
  const [row] = await db
    .select({ next: sql<number>`coalesce(max(${categories.position}) + 1, 0)::int` })
    .from(categories)
    .where(and(eq(categories.tenantId, tenantId), eq(categories.serviceId, serviceId)));
  return Number(row?.next ?? 0);
}

export async function insertCategory(db: Executor, values: { tenantId: string; serviceId: string; name: string; position: number }): Promise<CategoryRow> {
  const [row] = await db.insert(categories).values(values).returning();
  return row!;
}

export async function renameCategory(db: Executor, tenantId: string, categoryId: string, name: string): Promise<CategoryRow | undefined> {
  const [row] = await db
    .update(categories)
    .set({ name })
    .where(and(eq(categories.tenantId, tenantId), eq(categories.id, categoryId)))
    .returning();
  return row;
}

/** Deletes a category; its aspects, availabilities and history go with it (foreign keys cascade). */
export async function deleteCategory(db: Executor, tenantId: string, categoryId: string): Promise<void> {
  await db.delete(categories).where(and(eq(categories.tenantId, tenantId), eq(categories.id, categoryId)));
}

// Aspects

export interface AspectFilter {
  includePrivate: boolean;
  categoryId?: string;
}

/** A service's aspects in display order: by category position, then aspect position. */
export async function listAspects(db: Executor, tenantId: string, serviceId: string, filter: AspectFilter): Promise<AspectRow[]> {
  const conditions: SQL[] = [eq(aspects.tenantId, tenantId), eq(aspects.serviceId, serviceId)];
  if (!filter.includePrivate) conditions.push(eq(aspects.isPublic, true));
  if (filter.categoryId) conditions.push(eq(aspects.categoryId, filter.categoryId));
  return db
    .select(getTableColumns(aspects))
    .from(aspects)
    .innerJoin(categories, eq(categories.id, aspects.categoryId))
    .where(and(...conditions))
    .orderBy(asc(categories.position), asc(categories.createdAt), asc(categories.id), asc(aspects.position), asc(aspects.createdAt), asc(aspects.id));
}

export async function findAspect(db: Executor, tenantId: string, aspectId: string): Promise<AspectRow | undefined> {
  const [row] = await db
    .select()
    .from(aspects)
    .where(and(eq(aspects.tenantId, tenantId), eq(aspects.id, aspectId)))
    .limit(1);
  return row;
}

/** The tables of records that belong to one service: their row and the service they are in. */
type ServiceOwnedTable = typeof aspects | typeof categories;

/**
 * A record of a service (an aspect or a category) of the tenant and the caller's service role
 * assignment on its service, in one statement: the authorization every request on one starts with.
 */
async function findWithServiceRole<T extends ServiceOwnedTable>(
  db: Executor,
  table: T,
  tenantId: string,
  id: string,
  userId: string,
): Promise<{ row: T['$inferSelect']; serviceRole: Role | null } | undefined> {
  const owned = table as ServiceOwnedTable;
  const [found] = await db
    .select({ row: owned, serviceRole: serviceRoleAssignments.role })
    .from(owned)
    .leftJoin(
      serviceRoleAssignments,
      and(
        eq(serviceRoleAssignments.tenantId, owned.tenantId),
        eq(serviceRoleAssignments.serviceId, owned.serviceId),
        eq(serviceRoleAssignments.userId, userId),
      ),
    )
    .where(and(eq(owned.tenantId, tenantId), eq(owned.id, id)))
    .limit(1);
  return found ? { row: found.row as T['$inferSelect'], serviceRole: found.serviceRole ?? null } : undefined;
}

export const findAspectWithRole = (db: Executor, tenantId: string, aspectId: string, userId: string) =>
  findWithServiceRole(db, aspects, tenantId, aspectId, userId);

export const findCategoryWithRole = (db: Executor, tenantId: string, categoryId: string, userId: string) =>
  findWithServiceRole(db, categories, tenantId, categoryId, userId);

/** The position after the last aspect of a category. */
export async function nextAspectPosition(db: Executor, tenantId: string, categoryId: string): Promise<number> {
  const [row] = await db
    .select({ next: sql<number>`coalesce(max(${aspects.position}) + 1, 0)::int` })
    .from(aspects)
    .where(and(eq(aspects.tenantId, tenantId), eq(aspects.categoryId, categoryId)));
  return Number(row?.next ?? 0);
}

export async function insertAspect(db: Executor, values: typeof aspects.$inferInsert): Promise<AspectRow> {
  const [row] = await db.insert(aspects).values(values).returning();
  return row!;
}

/** Several aspects in one statement; answers them in the order given. */
export async function insertAspects(db: Executor, values: (typeof aspects.$inferInsert)[]): Promise<{ id: string }[]> {
  if (!values.length) return [];
  const rows = await db.insert(aspects).values(values).returning({ id: aspects.id, categoryId: aspects.categoryId, position: aspects.position });
  // RETURNING follows the VALUES order in practice; matched by category and position to depend on nothing.
  const byPlace = new Map(rows.map((r) => [`${r.categoryId}|${r.position}`, r.id]));
  return values.map((v) => ({ id: byPlace.get(`${v.categoryId}|${v.position}`)! }));
}

export type AspectChanges = Partial<Pick<AspectRow, 'title' | 'description' | 'isPublic' | 'categoryId' | 'position'>>;

/** Applies changes to an aspect and bumps its version. */
export async function updateAspect(db: Executor, tenantId: string, aspectId: string, changes: AspectChanges): Promise<AspectRow | undefined> {
  const [row] = await db
    .update(aspects)
    .set({ ...changes, version: sql`${aspects.version} + 1`, updatedAt: sql`now()` })
    .where(and(eq(aspects.tenantId, tenantId), eq(aspects.id, aspectId)))
    .returning();
  return row;
}

export async function deleteAspect(db: Executor, tenantId: string, aspectId: string): Promise<void> {
  await db.delete(aspects).where(and(eq(aspects.tenantId, tenantId), eq(aspects.id, aspectId)));
}

export async function aspectIdsOfCategory(db: Executor, tenantId: string, categoryId: string): Promise<string[]> {
  const rows = await db
    .select({ id: aspects.id })
    .from(aspects)
    .where(and(eq(aspects.tenantId, tenantId), eq(aspects.categoryId, categoryId)));
  return rows.map((r) => r.id);
}

/** Sets the positions of a category's aspects to the order given, in one statement. */
export async function setAspectPositions(db: Executor, tenantId: string, categoryId: string, orderedIds: string[]): Promise<void> {
  if (orderedIds.length === 0) return;
  const values = sql.join(
    orderedIds.map((id, index) => sql`(${id}::uuid, ${index}::int)`),
    sql`, `,
  );
  await db.execute(sql`
    update ${aspects} set position = v.position
    from (values ${values}) as v(id, position)
    where ${aspects.id} = v.id and ${aspects.tenantId} = ${tenantId} and ${aspects.categoryId} = ${categoryId}`);
}

// Availabilities

export async function availabilitiesOfAspects(db: Executor, tenantId: string, aspectIds: string[]): Promise<AvailabilityRow[]> {
  if (aspectIds.length === 0) return [];
  return db
    .select()
    .from(availabilities)
    .where(and(eq(availabilities.tenantId, tenantId), inArray(availabilities.aspectId, aspectIds)))
    .orderBy(asc(availabilities.timeBucket));
}

/** Every availability of a service, private aspects' included only when asked. */
export async function availabilitiesOfService(
  db: Executor,
  tenantId: string,
  serviceId: string,
  opts: { includePrivate: boolean },
): Promise<AvailabilityRow[]> {
  const conditions: SQL[] = [eq(availabilities.tenantId, tenantId), eq(availabilities.serviceId, serviceId)];
  if (!opts.includePrivate) conditions.push(eq(aspects.isPublic, true));
  return db
    .select(getTableColumns(availabilities))
    .from(availabilities)
    .innerJoin(aspects, eq(aspects.id, availabilities.aspectId))
    .where(and(...conditions));
}

export * from './cellWrites';
/**
 * A page of an aspect's availability history, newest first, older than the entry `before`. The
 * order is the one the history always had (time of change, then id), so that the index on
 * (aspect, time) reads only the page; `before` stands for its entry's place in that order.
 */
export async function historyOfAspect(db: Executor, tenantId: string, aspectId: string, page: { before?: number; limit: number }): Promise<HistoryRow[]> {
  const conditions: SQL[] = [eq(availabilityHistory.tenantId, tenantId), eq(availabilityHistory.aspectId, aspectId)];
  if (page.before !== undefined) {
    conditions.push(sql`(${availabilityHistory.changedAt}, ${availabilityHistory.id}) < (
      select b.changed_at, b.id from availability_history b where b.id = ${page.before} and b.aspect_id = ${aspectId})`);
  }
  return db
    .select()
    .from(availabilityHistory)
    .where(and(...conditions))
    .orderBy(desc(availabilityHistory.changedAt), desc(availabilityHistory.id))
    .limit(page.limit);
}

import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../client';
import { actorRoles, quickTemplates } from '../schema';

/**
 * A service's ordered list of short texts (actor roles, quick templates): the same columns but
 * the text's, so one set of queries serves every such table.
 */
export type OrderedTagTable = typeof actorRoles | typeof quickTemplates;
type TextKey<T extends OrderedTagTable> = Exclude<keyof T['$inferSelect'], 'id' | 'tenantId' | 'serviceId' | 'position'>;

export interface OrderedTagSource<T extends OrderedTagTable> {
  table: T;
  /** The field of the row that holds the text (`roleName`, `templateText`). */
  text: TextKey<T>;
}

export function orderedTagQueries<T extends OrderedTagTable>({ table, text }: OrderedTagSource<T>) {
  type Row = T['$inferSelect'];
  // Drizzle cannot pick a column out of a union of tables by a generic key; the key is one of the row's fields.
  const t = table as typeof actorRoles;
  const textColumn = (table as unknown as Record<string, typeof actorRoles.roleName>)[text as string]!;
  const own = (tenantId: string, id: string) => and(eq(t.tenantId, tenantId), eq(t.id, id));

  return {
    list(db: Executor, tenantId: string, serviceId: string): Promise<Row[]> {
      return db
        .select()
        .from(t)
        .where(and(eq(t.tenantId, tenantId), eq(t.serviceId, serviceId)))
        .orderBy(asc(t.position), asc(textColumn), asc(t.id)) as Promise<Row[]>;
    },

    async find(db: Executor, tenantId: string, id: string): Promise<Row | undefined> {
      const [row] = await db.select().from(t).where(own(tenantId, id)).limit(1);
      return row as Row | undefined;
    },

    /** Adds the text at the end of the service's list. */
    async insert(db: Executor, tenantId: string, serviceId: string, value: string): Promise<Row> {
      const [row] = await db
        .insert(t)
        .values({
          tenantId,
          serviceId,
          [text]: value,
          position: sql`(select coalesce(max(${t.position}) + 1, 0) from ${t} where ${t.serviceId} = ${serviceId})`,
        } as unknown as typeof actorRoles.$inferInsert)
        .returning();
      return row as Row;
    },

    async update(db: Executor, tenantId: string, id: string, value: string): Promise<Row> {
      const [row] = await db
        .update(t)
        .set({ [text]: value } as Partial<typeof actorRoles.$inferInsert>)
        .where(own(tenantId, id))
        .returning();
      return row as Row;
    },

    async remove(db: Executor, tenantId: string, id: string) {
      await db.delete(t).where(own(tenantId, id));
    },

    /** Sets positions in the given order with one statement. */
    async reorder(db: Executor, tenantId: string, serviceId: string, ids: string[]) {
      if (!ids.length) return;
      const cases = sql.join(
        ids.map((id, i) => sql`when ${id}::uuid then ${i}::int`),
        sql` `,
      );
      await db
        .update(t)
        .set({ position: sql`case ${t.id} ${cases} end` })
        .where(and(eq(t.tenantId, tenantId), eq(t.serviceId, serviceId), inArray(t.id, ids)));
    },
  };
}

export const actorRoleQueries = orderedTagQueries({ table: actorRoles, text: 'roleName' });
export const quickTemplateQueries = orderedTagQueries({ table: quickTemplates, text: 'templateText' });

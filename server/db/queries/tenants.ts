import { and, asc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../client';
import { tenants } from '../schema';
import { likeText } from './admin';

/**
 * The tenants, by name then id; with `limit`, one page of them: a search on name or slug, after a
 * (name, id) key, or only those of `ids` (the names of tenants a screen already holds the ids of).
 */
export async function listTenants(
  db: Executor,
  opts: { includeArchived: boolean; search?: string; after?: [name: string, id: string]; limit?: number; ids?: string[] },
) {
  const where: SQL[] = [];
  if (!opts.includeArchived) where.push(eq(tenants.archived, false));
  if (opts.ids) where.push(opts.ids.length ? inArray(tenants.id, opts.ids) : sql`false`);
  if (opts.search) where.push(sql`(${tenants.name} ilike ${likeText(opts.search)} or ${tenants.slug} ilike ${likeText(opts.search)})`);
  if (opts.after) where.push(sql`(${tenants.name}, ${tenants.id}::text) > (${opts.after[0]}, ${opts.after[1]})`);
  const q = db
    .select()
    .from(tenants)
    .where(where.length ? and(...where) : undefined)
    // The id as text: the same order as the cursor compares it in.
    .orderBy(asc(tenants.name), asc(sql`${tenants.id}::text`));
  return opts.limit === undefined ? q : q.limit(opts.limit);
}

/** Creates a tenant; answers undefined when the slug is taken. */
export async function insertTenant(db: Executor, input: { name: string; slug: string }) {
  const [row] = await db.insert(tenants).values(input).onConflictDoNothing({ target: tenants.slug }).returning();
  return row;
}

/** Loads a tenant and locks its row until the transaction ends. */
export async function lockTenant(db: Executor, id: string) {
  const [row] = await db.select().from(tenants).where(eq(tenants.id, id)).for('update').limit(1);
  return row;
}

/** Renames a tenant; its slug never changes. */
export async function renameTenant(db: Executor, id: string, name: string) {
  const [row] = await db.update(tenants).set({ name }).where(eq(tenants.id, id)).returning();
  return row;
}

export async function setTenantArchived(db: Executor, id: string, archived: boolean) {
  const [row] = await db.update(tenants).set({ archived }).where(eq(tenants.id, id)).returning();
  return row;
}

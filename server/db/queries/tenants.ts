import { asc, eq } from 'drizzle-orm';
import type { Executor } from '../client';
import { tenants } from '../schema';

export async function listTenants(db: Executor, opts: { includeArchived: boolean }) {
  const q = db.select().from(tenants);
  return (opts.includeArchived ? q : q.where(eq(tenants.archived, false))).orderBy(asc(tenants.name), asc(tenants.id));
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

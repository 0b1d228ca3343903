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

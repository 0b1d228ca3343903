import { eq } from 'drizzle-orm';
import type { Executor } from '../client';
import { tenants } from '../schema';

/** The origins allowed to frame the tenant's public pages. */
export async function getEmbedOrigins(db: Executor, tenantId: string): Promise<string[]> {
  const [row] = await db.select({ origins: tenants.embedOrigins }).from(tenants).where(eq(tenants.id, tenantId)).limit(1);
  return row?.origins ?? [];
}

export async function setEmbedOrigins(db: Executor, tenantId: string, origins: string[]): Promise<void> {
  await db.update(tenants).set({ embedOrigins: origins }).where(eq(tenants.id, tenantId));
}

import { sql } from 'drizzle-orm';
import type { Db } from '../db';
import { tenantMemberships, tenants, users } from '../db/schema';
import { hashPassword, randomPassword } from '../auth/passwords';
import { seedDemoService } from './seedDemo';

export interface BootstrapResult {
  created: boolean;
  email?: string;
  /** Set only when the password was generated: it is printed once and never again. */
  generatedPassword?: string;
  tenantSlug?: string;
}

/**
 * On a database with no users: creates the super admin (ADMIN_EMAIL/ADMIN_PASSWORD, else
 * admin@example.com with a random password), a first tenant and, unless turned off, the Demo service.
 */
export async function bootstrap(db: Db, options: { adminEmail?: string; adminPassword?: string; seedDemo: boolean }): Promise<BootstrapResult> {
  return db.transaction(async (tx) => {
    // Serialise concurrent first starts against one PostgreSQL database.
    await tx.execute(sql`select pg_advisory_xact_lock(4815162342)`);
    const [{ count }] = await tx.select({ count: sql<number>`count(*)::int` }).from(users);
    if (count > 0) return { created: false };
    const email = (options.adminEmail ?? 'admin@example.com').toLowerCase();
    const generatedPassword = options.adminPassword ? undefined : randomPassword();
    const password = options.adminPassword ?? generatedPassword!;
    const [tenant] = await tx
      .insert(tenants)
      .values({ name: 'My Organisation', slug: 'my-organisation' })
      .onConflictDoUpdate({ target: tenants.slug, set: { archived: false } })
      .returning();
    const [admin] = await tx
      .insert(users)
      .values({ email, name: 'Administrator', legacyRole: 'admin', superAdmin: true, tenantId: tenant.id, passwordHash: await hashPassword(password) })
      .returning();
    await tx.insert(tenantMemberships).values({ userId: admin.id, tenantId: tenant.id, role: 'admin' }).onConflictDoNothing();
    if (options.seedDemo) await seedDemoService(tx, tenant.id, admin.email);
    return { created: true, email, generatedPassword, tenantSlug: tenant.slug };
  });
}

import { sql } from 'drizzle-orm';
import { index, pgTable, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { services } from './catalog';
import { tenants, users } from './tenancy';

/**
 * A tenant admin's invitation of an account that already exists outside the tenant
 * (docs/decisions/0110-user-creation-without-enumeration.md). Name, role and sign-in kind are what
 * the admin entered, never the account's own; the account joins only when its owner accepts.
 */
export const tenantInvitations = pgTable(
  'tenant_invitations',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    role: text('role', { enum: ['reader', 'editor', 'admin'] }).notNull(),
    /** Whether the admin typed a password ('local') or not ('entra'), as a new user would show it. */
    authProvider: text('auth_provider', { enum: ['local', 'entra'] }).notNull(),
    /**
     * The service whose Create New User sent it, to assign on acceptance. A plain key, not a
     * (tenant_id, service_id) pair: a service that moves away or is deleted must leave the
     * invitation in its tenant, and acceptance assigns only a service still in this tenant.
     */
    serviceId: uuid('service_id').references(() => services.id, { onDelete: 'set null' }),
    invitedBy: uuid('invited_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    unique('tenant_invitations_tenant_user_unique').on(t.tenantId, t.userId),
    unique('tenant_invitations_tenant_id_unique').on(t.tenantId, t.id),
    index('tenant_invitations_user_idx').on(t.userId),
  ],
);

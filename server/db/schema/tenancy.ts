import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

const id = () =>
  uuid('id')
    .primaryKey()
    .default(sql`gen_random_uuid()`);
const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

export const tenants = pgTable(
  'tenants',
  {
    id: id(),
    name: text('name').notNull(),
    slug: text('slug').notNull().unique(),
    archived: boolean('archived').notNull().default(false),
    /** Origins allowed to frame the tenant's public pages (CSP frame-ancestors); none by default. */
    embedOrigins: jsonb('embed_origins').$type<string[]>().notNull().default([]),
    createdAt: createdAt(),
  },
  // The panel pages tenants in this order: a page reads only its rows.
  (t) => [
    index('tenants_name_idx').on(t.name, sql`(${t.id}::text)`),
    // The panel's tenant search (`%text%` in a name or slug) reads these (migration 0017).
    index('tenants_name_trgm_idx').using('gin', sql`${t.name} gin_trgm_ops`),
    index('tenants_slug_trgm_idx').using('gin', sql`${t.slug} gin_trgm_ops`),
  ],
);

export const users = pgTable(
  'users',
  {
    id: id(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    /**
     * Not read: a person's role is held per tenant, by their membership (tenant_memberships.role,
     * docs/decisions/0144-roles-per-membership.md). The column stays so that the processes of the
     * previous release keep working on the migrated schema during a rolling upgrade; a release that
     * removes columns drops it.
     */
    legacyRole: text('role', { enum: ['reader', 'editor', 'admin'] })
      .notNull()
      .default('reader'),
    superAdmin: boolean('super_admin').notNull().default(false),
    /** The primary tenant: deleting it deletes the user (spec section 4). */
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    userGroup: text('user_group', { enum: ['manual', 'entra_auto'] })
      .notNull()
      .default('manual'),
    authProvider: text('auth_provider', { enum: ['local', 'entra'] })
      .notNull()
      .default('local'),
    passwordHash: text('password_hash'),
    /** Microsoft identity: issuer tenant id and object id, never the mutable email claim. */
    entraTid: text('entra_tid'),
    entraOid: text('entra_oid'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('users_email_unique').on(t.email),
    uniqueIndex('users_entra_identity_unique').on(t.entraTid, t.entraOid),
    // A tenant's own users in its list's order: a page of them reads only its rows (migration 0017).
    index('users_tenant_name_email_idx').on(t.tenantId, t.name, t.email),
    // The installation's user list is paged in this order: a page reads only its rows.
    index('users_name_email_idx').on(t.name, t.email),
    // A search for a part of a name or an address (`%text%`) reads these (migration 0017).
    index('users_name_trgm_idx').using('gin', sql`${t.name} gin_trgm_ops`),
    index('users_email_trgm_idx').using('gin', sql`${t.email} gin_trgm_ops`),
  ],
);

export const tenantMemberships = pgTable(
  'tenant_memberships',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    /** The person's role in this tenant (CONTRACT section 4): each tenant's own, whatever they hold elsewhere. */
    role: text('role', { enum: ['reader', 'editor', 'admin'] })
      .notNull()
      .default('reader'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.tenantId] }), index('tenant_memberships_tenant_idx').on(t.tenantId)],
);

/** Revoked session tokens (Log Out); rows past their expiry can be purged. */
export const revokedTokens = pgTable('revoked_tokens', {
  jti: text('jti').primaryKey(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
});

/** Impersonation sessions started by super admins. */
export const impersonations = pgTable(
  'impersonations',
  {
    id: id(),
    superAdminId: uuid('super_admin_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    impersonatedUserId: uuid('impersonated_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    tokenJti: text('token_jti').notNull(),
    startedAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    endedAt: timestamp('ended_at', { withTimezone: true, mode: 'date' }),
    /**
     * The super admin's session the impersonation was started from (its token id and expiry): it
     * ends when that session is revoked, and stopping it hands that same session back. Null on rows
     * written before impersonations were bound to a session.
     */
    sessionJti: text('session_jti'),
    sessionExpiresAt: timestamp('session_expires_at', { withTimezone: true, mode: 'date' }),
    /** Why the super admin started it, in their words (optional). */
    reason: text('reason'),
  },
  (t) => [
    index('impersonations_super_admin_idx').on(t.superAdminId),
    // Revoking a token ends the impersonations it carries or was started from (revokeToken).
    index('impersonations_token_jti_idx').on(t.tokenJti),
    index('impersonations_session_jti_idx').on(t.sessionJti),
  ],
);

/** One-time codes that hand a Microsoft sign-in over to the page (CONTRACT section 5). */
export const authHandoffs = pgTable('auth_handoffs', {
  codeHash: text('code_hash').primaryKey(),
  userId: uuid('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  /** Hash of the browser-bound secret set as a cookie when sign-in began. */
  browserHash: text('browser_hash').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
  attempts: integer('attempts').notNull().default(0),
});

import { sql } from 'drizzle-orm';
import { bigserial, boolean, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { tenants, users } from './tenancy';

const id = () =>
  uuid('id')
    .primaryKey()
    .default(sql`gen_random_uuid()`);
const tenantId = () =>
  uuid('tenant_id')
    .notNull()
    .references(() => tenants.id, { onDelete: 'cascade' });
const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' }).notNull().defaultNow();

/**
 * Children point at their parent through (tenant_id, parent id) composite keys, so a row can never
 * belong to a parent of another tenant; ON UPDATE CASCADE carries tenant_id along when a service moves.
 */
export const services = pgTable(
  'services',
  {
    id: id(),
    tenantId: tenantId(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    description: text('description').notNull().default(''),
    serviceOwner: text('service_owner').notNull().default(''),
    subscriptionModel: text('subscription_model').notNull().default(''),
    iconUrl: text('icon_url'),
    archived: boolean('archived').notNull().default(false),
    /** Readable by anyone at /p/{tenant slug}/{service slug} (its latest public snapshot); off by default. */
    published: boolean('published').notNull().default(false),
    /**
     * An import still writing this service's content (docs/decisions/0136-imports-in-steps.md):
     * every reader treats it as not existing until the import's last step clears the flag.
     */
    importing: boolean('importing').notNull().default(false),
    timeline: jsonb('timeline').$type<string[]>().notNull(),
    /** Bumped on every write to the service or its content; drives caches and ETags. */
    version: integer('version').notNull().default(1),
    lastUpdated: at('last_updated'),
    createdAt: at('created_at'),
    /**
     * What the dashboard's search reads (GET /api/services?search=), lower-cased and kept by the
     * database: name, slug, owner and the description's text as common/richText htmlToText reads
     * it (tags dropped, a line break after a block, entities read), one unit separator between
     * them. A search then tests one plain column instead of rewriting every description's markup.
     */
    searchText: text('search_text').generatedAlwaysAs(
      sql`lower(name || E'\\x1f' || slug || E'\\x1f' || service_owner || E'\\x1f' || replace(replace(replace(replace(replace(replace(
  regexp_replace(regexp_replace(description, '<(br|/p|/li|/h[1-6]|/blockquote|/pre)\\s*/?>', E'\\n', 'gi'), '<[^>]*>', '', 'g'),
  '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&'))`,
    ),
  },
  (t) => [
    unique('services_tenant_slug_unique').on(t.tenantId, t.slug),
    unique('services_tenant_id_unique').on(t.tenantId, t.id),
    // The dashboard pages a tenant's services in this order: a page reads only its rows.
    index('services_tenant_name_idx').on(t.tenantId, t.name, t.id),
    // The dashboard's search (`%text%` in search_text) reads this (migration 0017).
    index('services_search_text_trgm_idx').using('gin', sql`${t.searchText} gin_trgm_ops`),
  ],
);

export const categories = pgTable(
  'categories',
  {
    id: id(),
    tenantId: uuid('tenant_id').notNull(),
    serviceId: uuid('service_id').notNull(),
    name: text('name').notNull(),
    position: integer('position').notNull().default(0),
    createdAt: at('created_at'),
  },
  (t) => [
    foreignKey({ columns: [t.tenantId, t.serviceId], foreignColumns: [services.tenantId, services.id] })
      .onDelete('cascade')
      .onUpdate('cascade'),
    unique('categories_scope_unique').on(t.tenantId, t.serviceId, t.id),
    index('categories_service_idx').on(t.serviceId, t.position),
  ],
);

export const aspects = pgTable(
  'aspects',
  {
    id: id(),
    tenantId: uuid('tenant_id').notNull(),
    serviceId: uuid('service_id').notNull(),
    categoryId: uuid('category_id').notNull(),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    isPublic: boolean('is_public').notNull().default(true),
    position: integer('position').notNull().default(0),
    /** Optimistic concurrency: a write names the version it started from. */
    version: integer('version').notNull().default(1),
    createdAt: at('created_at'),
    updatedAt: at('updated_at'),
  },
  (t) => [
    foreignKey({
      columns: [t.tenantId, t.serviceId, t.categoryId],
      foreignColumns: [categories.tenantId, categories.serviceId, categories.id],
    })
      .onDelete('cascade')
      .onUpdate('cascade'),
    unique('aspects_scope_unique').on(t.tenantId, t.serviceId, t.id),
    index('aspects_service_idx').on(t.serviceId),
    index('aspects_category_idx').on(t.categoryId, t.position),
  ],
);

export const availabilities = pgTable(
  'availabilities',
  {
    tenantId: uuid('tenant_id').notNull(),
    serviceId: uuid('service_id').notNull(),
    aspectId: uuid('aspect_id').notNull(),
    timeBucket: text('time_bucket').notNull(),
    value: text('value').notNull(),
    version: integer('version').notNull().default(1),
    updatedAt: at('updated_at'),
  },
  (t) => [
    primaryKey({ columns: [t.aspectId, t.timeBucket] }),
    foreignKey({
      columns: [t.tenantId, t.serviceId, t.aspectId],
      foreignColumns: [aspects.tenantId, aspects.serviceId, aspects.id],
    })
      .onDelete('cascade')
      .onUpdate('cascade'),
    index('availabilities_service_idx').on(t.serviceId),
  ],
);

export const availabilityHistory = pgTable(
  'availability_history',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tenantId: uuid('tenant_id').notNull(),
    serviceId: uuid('service_id').notNull(),
    aspectId: uuid('aspect_id').notNull(),
    timeBucket: text('time_bucket').notNull(),
    value: text('value').notNull(),
    changedBy: text('changed_by').notNull(),
    changedAt: at('changed_at'),
    /** The request that wrote it, as its audit entry names it (null before requests were recorded). */
    requestId: uuid('request_id'),
  },
  (t) => [
    foreignKey({
      columns: [t.tenantId, t.serviceId, t.aspectId],
      foreignColumns: [aspects.tenantId, aspects.serviceId, aspects.id],
    })
      .onDelete('cascade')
      .onUpdate('cascade'),
    index('availability_history_aspect_idx').on(t.aspectId, t.changedAt),
    index('availability_history_request_idx')
      .on(t.requestId)
      .where(sql`request_id is not null`),
  ],
);

const serviceChild = (t: { tenantId: any; serviceId: any }) =>
  foreignKey({ columns: [t.tenantId, t.serviceId], foreignColumns: [services.tenantId, services.id] })
    .onDelete('cascade')
    .onUpdate('cascade');

export const snapshots = pgTable(
  'snapshots',
  {
    id: id(),
    tenantId: uuid('tenant_id').notNull(),
    serviceId: uuid('service_id').notNull(),
    label: text('label').notNull(),
    visibility: text('visibility', { enum: ['internal', 'public'] })
      .notNull()
      .default('internal'),
    note: text('note').notNull().default(''),
    /** The frozen catalog at that moment; never changes afterwards. */
    data: jsonb('data').notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: at('created_at'),
  },
  (t) => [serviceChild(t), index('snapshots_service_idx').on(t.serviceId, t.createdAt)],
);

export const actorRoles = pgTable(
  'actor_roles',
  {
    id: id(),
    tenantId: uuid('tenant_id').notNull(),
    serviceId: uuid('service_id').notNull(),
    roleName: text('role_name').notNull(),
    position: integer('position').notNull().default(0),
  },
  (t) => [serviceChild(t), index('actor_roles_service_idx').on(t.serviceId, t.position)],
);

export const quickTemplates = pgTable(
  'quick_templates',
  {
    id: id(),
    tenantId: uuid('tenant_id').notNull(),
    serviceId: uuid('service_id').notNull(),
    templateText: text('template_text').notNull(),
    position: integer('position').notNull().default(0),
  },
  (t) => [serviceChild(t), index('quick_templates_service_idx').on(t.serviceId, t.position)],
);

/** What a CSV apply in steps writes, chosen before its first step (docs/decisions/0139-csv-apply-in-steps.md). */
export interface CsvApplyJournal {
  categories: { id: string; name: string; position: number }[];
  aspects: { id: string; categoryId: string; title: string; description: string; isPublic: boolean; position: number }[];
  updates: { id: string; before: { isPublic?: boolean; description?: string }; after: { isPublic?: boolean; description?: string } }[];
  /** [aspect id, quarter, text before, text after]. */
  cells: [string, string, string, string][];
}

/**
 * A CSV apply in steps under way: one per service at a time. A failed step, or a process that
 * stopped, has what the steps wrote undone from it; a finished apply removes it.
 */
export const csvApplies = pgTable(
  'csv_applies',
  {
    serviceId: uuid('service_id').primaryKey(),
    tenantId: uuid('tenant_id').notNull(),
    changedBy: text('changed_by').notNull(),
    stepCells: integer('step_cells').notNull(),
    stepsDone: integer('steps_done').notNull().default(0),
    journal: jsonb('journal').$type<CsvApplyJournal>().notNull(),
    createdAt: at('created_at'),
  },
  (t) => [serviceChild(t)],
);

export const serviceRoleAssignments = pgTable(
  'service_role_assignments',
  {
    id: id(),
    tenantId: uuid('tenant_id').notNull(),
    serviceId: uuid('service_id').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['reader', 'editor', 'admin'] }).notNull(),
    createdAt: at('created_at'),
  },
  (t) => [serviceChild(t), unique('service_role_assignments_unique').on(t.serviceId, t.userId), index('service_role_assignments_user_idx').on(t.userId)],
);

/** Audit trail (CONTRACT section 5). Rows of a deleted tenant go with it; platform rows have no tenant. */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tenantId: uuid('tenant_id').references(() => tenants.id, { onDelete: 'cascade' }),
    actorId: uuid('actor_id'),
    actorEmail: text('actor_email'),
    impersonatorId: uuid('impersonator_id'),
    impersonatorEmail: text('impersonator_email'),
    /** Who acted: a person (actor_id, actor_email), an API token (actor_id is the token's) or the system. */
    actorKind: text('actor_kind', { enum: ['person', 'api_token', 'system'] })
      .notNull()
      .default('person'),
    /** The actor's name when it acted: the person's, the token's, or what the system was doing. */
    actorName: text('actor_name'),
    /** The service the entry concerns, if any (the audit log is filtered by it). */
    serviceId: uuid('service_id'),
    /** The request of a cell write: its cells' history rows carry the same id. */
    requestId: uuid('request_id'),
    action: text('action').notNull(),
    targetType: text('target_type'),
    targetId: text('target_id'),
    details: jsonb('details').$type<Record<string, unknown>>(),
    createdAt: at('created_at'),
  },
  (t) => [index('audit_log_tenant_idx').on(t.tenantId, t.createdAt), index('audit_log_service_idx').on(t.tenantId, t.serviceId, t.id)],
);

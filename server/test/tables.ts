/** The tables that hold a tenant's catalog content, for tests that count or compare their rows. */
export const CATALOG_TABLES = [
  'services',
  'categories',
  'aspects',
  'availabilities',
  'availability_history',
  'snapshots',
  'actor_roles',
  'quick_templates',
  'service_role_assignments',
  'audit_log',
] as const;

/** Every table with a tenant_id: the catalog tables, memberships, impersonations, invitations, users, API tokens, webhooks and CSV applies under way. */
export const TENANT_TABLES = [
  ...CATALOG_TABLES,
  'tenant_memberships',
  'impersonations',
  'tenant_invitations',
  'users',
  'api_tokens',
  'webhook_endpoints',
  'webhook_deliveries',
  'webhook_events',
  'csv_applies',
] as const;

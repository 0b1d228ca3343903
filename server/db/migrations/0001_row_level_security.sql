-- Row-level security on every tenant-owned table (docs/decisions/0004-row-level-security.md).
-- The application works as catalog_app, a role that owns nothing and cannot bypass row-level
-- security; each of its connections says whose rows it may touch in two settings:
--   catalog.scope      'tenant' (only catalog.tenant_id's rows), 'system' (every tenant's rows),
--                      anything else or unset: no rows;
--   catalog.tenant_id  the tenant's id when the scope is 'tenant'.
-- The settings are read in sub-selects, so a query reads them once, not once per row.
-- Roles belong to the whole server, so the role is created only when it does not exist yet.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'catalog_app') THEN
    CREATE ROLE catalog_app NOLOGIN NOSUPERUSER NOBYPASSRLS NOINHERIT;
  END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL; -- created at the same moment by another database's migration
END $$;
--> statement-breakpoint
DO $$
BEGIN
  -- A migrating role that is not a superuser must be a member to switch to the role.
  IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
     AND NOT pg_has_role(current_user, 'catalog_app', 'MEMBER') THEN
    EXECUTE format('GRANT catalog_app TO %I', current_user);
  END IF;
END $$;
--> statement-breakpoint
GRANT USAGE ON SCHEMA public TO catalog_app;
--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO catalog_app;
--> statement-breakpoint
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO catalog_app;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO catalog_app;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO catalog_app;
--> statement-breakpoint
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY[
    'services', 'categories', 'aspects', 'availabilities', 'availability_history', 'snapshots',
    'actor_roles', 'quick_templates', 'service_role_assignments', 'audit_log', 'tenant_memberships',
    'impersonations'
  ] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format(
      $policy$CREATE POLICY tenant_isolation ON %I
        USING ((SELECT current_setting('catalog.scope', true)) = 'system'
               OR ((SELECT current_setting('catalog.scope', true)) = 'tenant'
                   AND tenant_id = (SELECT nullif(current_setting('catalog.tenant_id', true), '')::uuid)))$policy$,
      t);
  END LOOP;
END $$;

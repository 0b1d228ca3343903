-- Row-level security the planner can estimate (docs/decisions/0004-row-level-security.md).
-- The policies of migrations 0001, 0006 and 0011 read the scope in sub-selects joined by OR:
-- the planner cannot see through them, so it estimated the rows a tenant may see at half a percent
-- of a table (75 of a tenant's 10,000 services), and a page of a large tenant's list read and
-- sorted every row rather than walking its index. Now:
--   catalog_app     (tenant scope, or no scope) sees the rows whose tenant_id is
--                   catalog_scope_tenant(): the scope's tenant, or a tenant that does not exist
--                   when the scope is not a tenant's. Read once per statement (a sub-select), it is
--                   a value of no column: the planner puts it in one class with the query's own
--                   `tenant_id = ...`, checks the two agree once, and estimates from the table's
--                   statistics; a statement with no tenant condition compares each row with it;
--   catalog_system  (the system scope) a member of catalog_app, which a policy of its own lets see
--                   every row. It is no superuser, owns nothing and has no BYPASSRLS either.
-- The settings stay as they were (catalog.scope, catalog.tenant_id); the server switches to
-- catalog_system for the system scope. A table added later gets both policies.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'catalog_system') THEN
    CREATE ROLE catalog_system NOLOGIN NOSUPERUSER NOBYPASSRLS INHERIT IN ROLE catalog_app;
  END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL; -- created at the same moment by another database's migration
END $$;
--> statement-breakpoint
DO $$
BEGIN
  -- A migrating role that is not a superuser must be a member to switch to the role.
  IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
     AND NOT pg_has_role(current_user, 'catalog_system', 'MEMBER') THEN
    EXECUTE format('GRANT catalog_system TO %I', current_user);
  END IF;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION catalog_scope_tenant() RETURNS uuid
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN current_setting('catalog.scope', true) = 'tenant'
    THEN coalesce(nullif(current_setting('catalog.tenant_id', true), '')::uuid, '00000000-0000-0000-0000-000000000000'::uuid)
    ELSE '00000000-0000-0000-0000-000000000000'::uuid END
$$;
--> statement-breakpoint
DO $$
DECLARE
  t text;
BEGIN
  FOR t IN SELECT tablename FROM pg_policies WHERE schemaname = current_schema() AND policyname = 'tenant_isolation' LOOP
    EXECUTE format('DROP POLICY tenant_isolation ON %I', t);
    EXECUTE format('CREATE POLICY tenant_isolation ON %I TO catalog_app USING (tenant_id = (SELECT catalog_scope_tenant()))', t);
    EXECUTE format('CREATE POLICY system_scope ON %I TO catalog_system USING (true)', t);
  END LOOP;
END $$;

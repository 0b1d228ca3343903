-- The tenant whose rows catalog_app may see (docs/decisions/0004-row-level-security.md): the
-- scope's tenant, or a tenant that does not exist when the scope is not a tenant's. Every
-- tenant_isolation policy reads it once per statement (a sub-select), so the planner estimates
-- from the table's statistics.
CREATE OR REPLACE FUNCTION catalog_scope_tenant() RETURNS uuid
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN current_setting('catalog.scope', true) = 'tenant'
    THEN coalesce(nullif(current_setting('catalog.tenant_id', true), '')::uuid, '00000000-0000-0000-0000-000000000000'::uuid)
    ELSE '00000000-0000-0000-0000-000000000000'::uuid END
$$;

-- The change stream's trigger (docs/decisions/0115-change-stream.md) on every table whose rows a
-- server process keeps in memory, or that decide who may do what: each statement announces, through
-- catalog_announce_send, the tenants, services, users and tokens of the rows it wrote. The tables
-- a roadmap is made of announce their inserts, updates and deletes with
-- catalog_announce_service_rows; their truncation is announced here.
CREATE OR REPLACE FUNCTION catalog_announce() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  ids jsonb;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('catalog_changes', json_build_object('t', TG_TABLE_NAME, 'tn', NULL, 'sv', NULL, 'us', NULL, 'jt', NULL)::text);
    RETURN NULL;
  END IF;
  -- Each transition table is named only in the branch of the operations that have it.
  IF TG_OP = 'INSERT' THEN
    SELECT jsonb_agg(DISTINCT catalog_announce_ids(TG_TABLE_NAME, to_jsonb(n))) INTO ids FROM catalog_new_rows n;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT jsonb_agg(DISTINCT catalog_announce_ids(TG_TABLE_NAME, to_jsonb(o))) INTO ids FROM catalog_old_rows o;
  ELSE
    SELECT jsonb_agg(DISTINCT x) INTO ids FROM (
      SELECT catalog_announce_ids(TG_TABLE_NAME, to_jsonb(n)) AS x FROM catalog_new_rows n
      UNION ALL
      SELECT catalog_announce_ids(TG_TABLE_NAME, to_jsonb(o)) FROM catalog_old_rows o
    ) both_rows;
  END IF;
  -- A statement that touched no row announces nothing.
  IF ids IS NOT NULL THEN
    PERFORM catalog_announce_send(TG_TABLE_NAME, ids);
  END IF;
  RETURN NULL;
END
$$;
DO $$
DECLARE
  tbl text;
BEGIN
  FOREACH tbl IN ARRAY ARRAY[
    'tenants', 'users', 'tenant_memberships', 'revoked_tokens', 'impersonations', 'tenant_invitations',
    'services', 'snapshots', 'actor_roles', 'quick_templates', 'service_role_assignments', 'api_tokens',
    'webhook_endpoints'
  ] LOOP
    EXECUTE format('DROP TRIGGER IF EXISTS catalog_announce_insert ON %I', tbl);
    EXECUTE format('DROP TRIGGER IF EXISTS catalog_announce_update ON %I', tbl);
    EXECUTE format('DROP TRIGGER IF EXISTS catalog_announce_delete ON %I', tbl);
    EXECUTE format('CREATE TRIGGER catalog_announce_insert AFTER INSERT ON %I REFERENCING NEW TABLE AS catalog_new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_announce()', tbl);
    EXECUTE format('CREATE TRIGGER catalog_announce_update AFTER UPDATE ON %I REFERENCING OLD TABLE AS catalog_old_rows NEW TABLE AS catalog_new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_announce()', tbl);
    EXECUTE format('CREATE TRIGGER catalog_announce_delete AFTER DELETE ON %I REFERENCING OLD TABLE AS catalog_old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_announce()', tbl);
  END LOOP;
  FOREACH tbl IN ARRAY ARRAY[
    'tenants', 'users', 'tenant_memberships', 'revoked_tokens', 'impersonations', 'tenant_invitations',
    'services', 'categories', 'aspects', 'availabilities', 'snapshots', 'actor_roles', 'quick_templates',
    'service_role_assignments', 'api_tokens', 'webhook_endpoints'
  ] LOOP
    EXECUTE format('DROP TRIGGER IF EXISTS catalog_announce_truncate ON %I', tbl);
    EXECUTE format('CREATE TRIGGER catalog_announce_truncate AFTER TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION catalog_announce()', tbl);
  END LOOP;
END
$$;

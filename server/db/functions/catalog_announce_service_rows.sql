-- The change stream's announcement (catalog_announce, docs/decisions/0115-change-stream.md) of the
-- tables a roadmap is made of: categories, aspects and availabilities. Each of their rows names its
-- tenant and its service in columns of its own, so their statements read the distinct (tenant,
-- service) pairs of the transition tables directly, instead of turning every row into JSON first as
-- the general function does for any table. A paste or an import of thousands of cells touches one
-- service: the general function built thousands of JSON objects to find that one pair. The payload
-- is the same as before.
CREATE OR REPLACE FUNCTION catalog_announce_service_rows() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  ids jsonb;
BEGIN
  -- Each transition table is named only in the branch of the operations that have it.
  IF TG_OP = 'INSERT' THEN
    SELECT jsonb_agg(jsonb_build_array(p.tenant_id, p.service_id, NULL, NULL)) INTO ids
      FROM (SELECT DISTINCT tenant_id, service_id FROM catalog_new_rows) p;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT jsonb_agg(jsonb_build_array(p.tenant_id, p.service_id, NULL, NULL)) INTO ids
      FROM (SELECT DISTINCT tenant_id, service_id FROM catalog_old_rows) p;
  ELSE
    SELECT jsonb_agg(jsonb_build_array(p.tenant_id, p.service_id, NULL, NULL)) INTO ids FROM (
      SELECT tenant_id, service_id FROM catalog_new_rows
      UNION
      SELECT tenant_id, service_id FROM catalog_old_rows
    ) p;
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
  FOREACH tbl IN ARRAY ARRAY['categories', 'aspects', 'availabilities'] LOOP
    EXECUTE format('DROP TRIGGER IF EXISTS catalog_announce_insert ON %I', tbl);
    EXECUTE format('DROP TRIGGER IF EXISTS catalog_announce_update ON %I', tbl);
    EXECUTE format('DROP TRIGGER IF EXISTS catalog_announce_delete ON %I', tbl);
    EXECUTE format('CREATE TRIGGER catalog_announce_insert AFTER INSERT ON %I REFERENCING NEW TABLE AS catalog_new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_announce_service_rows()', tbl);
    EXECUTE format('CREATE TRIGGER catalog_announce_update AFTER UPDATE ON %I REFERENCING OLD TABLE AS catalog_old_rows NEW TABLE AS catalog_new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_announce_service_rows()', tbl);
    EXECUTE format('CREATE TRIGGER catalog_announce_delete AFTER DELETE ON %I REFERENCING OLD TABLE AS catalog_old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_announce_service_rows()', tbl);
  END LOOP;
END
$$;

-- Several availability writes of one tenant in one statement (server/commands/availabilityWrites.ts):
-- writes that arrive while another of the tenant's is under way are sent together. Each is made by
-- catalog_write_availability exactly as it would be alone, in the order given, and
-- answers its own row: ord (its place in p_items, from 1), status, current_value, service_id.
--
-- p_items: a JSON array of {"aspect": uuid, "bucket": text, "value": text, "changed_by": text,
-- "check": boolean, "expected": text or null, "request": uuid or null}.
--
-- Every service the writes name is locked first, in the order of its id: two groups (from two
-- processes on one database) never wait on each other in a cycle. SECURITY INVOKER, as 0002: row-level
-- security applies to every statement. The request caches see no table in a call:
-- server/db/writeStamps.ts lists what it writes.
CREATE OR REPLACE FUNCTION catalog_write_availabilities(p_tenant uuid, p_items jsonb)
RETURNS TABLE (ord integer, status text, current_value text, service_id uuid, service_version integer)
LANGUAGE plpgsql VOLATILE SECURITY INVOKER
AS $$
DECLARE
  v_item jsonb;
  v_ord integer := 0;
  v_aspects uuid[];
BEGIN
  v_aspects := ARRAY(SELECT (e.value ->> 'aspect')::uuid FROM jsonb_array_elements(p_items) e);
  PERFORM 1 FROM services s
  WHERE s.tenant_id = p_tenant
    AND s.id = ANY (ARRAY(SELECT DISTINCT a.service_id FROM aspects a WHERE a.tenant_id = p_tenant AND a.id = ANY (v_aspects)))
  ORDER BY s.id
  FOR UPDATE;
  FOR v_item IN SELECT e.value FROM jsonb_array_elements(p_items) e LOOP
    v_ord := v_ord + 1;
    RETURN QUERY
      SELECT v_ord, w.status, w.current_value, w.service_id, w.service_version
      FROM catalog_write_availability(
        p_tenant,
        (v_item ->> 'aspect')::uuid,
        v_item ->> 'bucket',
        v_item ->> 'value',
        v_item ->> 'changed_by',
        (v_item ->> 'check')::boolean,
        v_item ->> 'expected',
        (v_item ->> 'request')::uuid
      ) w;
  END LOOP;
END
$$;
REVOKE EXECUTE ON FUNCTION catalog_write_availabilities(uuid, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION catalog_write_availabilities(uuid, jsonb) TO catalog_app;

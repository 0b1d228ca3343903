-- The availability writes (migrations 0002 and 0003) also answer the service's version after each
-- applied write, service_version (null when nothing was written). A process that knows which
-- versions its own availability writes made, and which aspect each touched, can bring a /full body
-- it holds up to date by reading those aspects alone (server/routes/services/fullParts.ts).
-- Otherwise the same functions, statement for statement: see 0002 and 0003 for why they are so.
-- A function's result type cannot be changed in place, so both are made again.
DROP FUNCTION catalog_write_availabilities(uuid, jsonb);
--> statement-breakpoint
DROP FUNCTION catalog_write_availability(uuid, uuid, text, text, text, boolean, text);
--> statement-breakpoint
CREATE FUNCTION catalog_write_availability(
  p_tenant uuid,
  p_aspect uuid,
  p_bucket text,
  p_value text,
  p_changed_by text,
  p_check boolean,
  p_expected text
) RETURNS TABLE (status text, current_value text, service_id uuid, service_version integer)
LANGUAGE plpgsql VOLATILE SECURITY INVOKER
AS $$
DECLARE
  v_service uuid;
  v_archived boolean;
  v_current text;
  v_version integer;
BEGIN
  SELECT a.service_id INTO v_service FROM aspects a WHERE a.tenant_id = p_tenant AND a.id = p_aspect;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'not_found'::text, NULL::text, NULL::uuid, NULL::integer;
    RETURN;
  END IF;
  SELECT s.archived INTO v_archived FROM services s WHERE s.tenant_id = p_tenant AND s.id = v_service FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'not_found'::text, NULL::text, NULL::uuid, NULL::integer;
    RETURN;
  END IF;
  IF v_archived THEN
    RETURN QUERY SELECT 'archived'::text, NULL::text, v_service, NULL::integer;
    RETURN;
  END IF;
  SELECT av.value INTO v_current FROM availabilities av
  WHERE av.tenant_id = p_tenant AND av.aspect_id = p_aspect AND av.time_bucket = p_bucket;
  IF p_check AND v_current IS DISTINCT FROM p_expected THEN
    RETURN QUERY SELECT 'conflict'::text, v_current, v_service, NULL::integer;
    RETURN;
  END IF;
  IF p_value = '' THEN
    DELETE FROM availabilities av
    WHERE av.tenant_id = p_tenant AND av.aspect_id = p_aspect AND av.time_bucket = p_bucket;
  ELSE
    INSERT INTO availabilities AS av (tenant_id, service_id, aspect_id, time_bucket, value)
    VALUES (p_tenant, v_service, p_aspect, p_bucket, p_value)
    ON CONFLICT (aspect_id, time_bucket)
    DO UPDATE SET value = excluded.value, version = av.version + 1, updated_at = now();
  END IF;
  INSERT INTO availability_history (tenant_id, service_id, aspect_id, time_bucket, value, changed_by)
  VALUES (p_tenant, v_service, p_aspect, p_bucket, p_value, p_changed_by);
  UPDATE services s SET version = s.version + 1, last_updated = now()
  WHERE s.tenant_id = p_tenant AND s.id = v_service
  RETURNING s.version INTO v_version;
  RETURN QUERY SELECT 'applied'::text, v_current, v_service, v_version;
END
$$;
--> statement-breakpoint
REVOKE EXECUTE ON FUNCTION catalog_write_availability(uuid, uuid, text, text, text, boolean, text) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION catalog_write_availability(uuid, uuid, text, text, text, boolean, text) TO catalog_app;
--> statement-breakpoint
CREATE FUNCTION catalog_write_availabilities(p_tenant uuid, p_items jsonb)
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
        v_item ->> 'expected'
      ) w;
  END LOOP;
END
$$;
--> statement-breakpoint
REVOKE EXECUTE ON FUNCTION catalog_write_availabilities(uuid, jsonb) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION catalog_write_availabilities(uuid, jsonb) TO catalog_app;

ALTER TABLE "audit_log" ADD COLUMN "actor_kind" text DEFAULT 'person' NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "actor_name" text;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "service_id" uuid;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "request_id" uuid;--> statement-breakpoint
ALTER TABLE "availability_history" ADD COLUMN "request_id" uuid;--> statement-breakpoint
CREATE INDEX "audit_log_service_idx" ON "audit_log" USING btree ("tenant_id","service_id","id");--> statement-breakpoint
CREATE INDEX "availability_history_request_idx" ON "availability_history" USING btree ("request_id") WHERE request_id is not null;
--> statement-breakpoint
-- Hand-written below (not generated): the entries written before this migration get the shape of
-- the new columns, and the two functions that write cells record the request of each history row.
UPDATE audit_log SET actor_kind = 'api_token', actor_name = substr(actor_email, 12), actor_email = NULL
WHERE actor_email LIKE 'API token: %';
--> statement-breakpoint
UPDATE audit_log SET actor_kind = 'system', actor_name = actor_email, actor_email = NULL
WHERE actor_id IS NULL AND actor_email = 'Webhook delivery';
--> statement-breakpoint
UPDATE audit_log SET service_id = CASE
    WHEN target_type = 'service' AND target_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN target_id::uuid
    WHEN details ->> 'serviceId' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN (details ->> 'serviceId')::uuid
  END
WHERE tenant_id IS NOT NULL;
--> statement-breakpoint
-- catalog_write_availability as in migration 0022, with the request that writes the cell
-- (p_request), recorded on its history row.
DROP FUNCTION catalog_write_availability(uuid, uuid, text, text, text, boolean, text);
--> statement-breakpoint
CREATE FUNCTION catalog_write_availability(
  p_tenant uuid,
  p_aspect uuid,
  p_bucket text,
  p_value text,
  p_changed_by text,
  p_check boolean,
  p_expected text,
  p_request uuid
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
    -- A cell that is there is updated: an UPDATE fires the statement triggers of an UPDATE only,
    -- where an upsert fires those of an INSERT as well.
    IF v_current IS NOT NULL THEN
      UPDATE availabilities av SET value = p_value, version = av.version + 1, updated_at = now()
      WHERE av.tenant_id = p_tenant AND av.aspect_id = p_aspect AND av.time_bucket = p_bucket;
    END IF;
    -- A new cell, or one removed since it was read: the upsert of migration 0004.
    IF v_current IS NULL OR NOT FOUND THEN
      INSERT INTO availabilities AS av (tenant_id, service_id, aspect_id, time_bucket, value)
      VALUES (p_tenant, v_service, p_aspect, p_bucket, p_value)
      ON CONFLICT (aspect_id, time_bucket)
      DO UPDATE SET value = excluded.value, version = av.version + 1, updated_at = now();
    END IF;
  END IF;
  INSERT INTO availability_history (tenant_id, service_id, aspect_id, time_bucket, value, changed_by, request_id)
  VALUES (p_tenant, v_service, p_aspect, p_bucket, p_value, p_changed_by, p_request);
  UPDATE services s SET version = s.version + 1, last_updated = now()
  WHERE s.tenant_id = p_tenant AND s.id = v_service
  RETURNING s.version INTO v_version;
  RETURN QUERY SELECT 'applied'::text, v_current, v_service, v_version;
END
$$;
--> statement-breakpoint
REVOKE EXECUTE ON FUNCTION catalog_write_availability(uuid, uuid, text, text, text, boolean, text, uuid) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION catalog_write_availability(uuid, uuid, text, text, text, boolean, text, uuid) TO catalog_app;
--> statement-breakpoint
-- catalog_write_availabilities as in migration 0004, passing each item's request on.
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

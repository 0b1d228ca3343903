-- One availability write in one statement (POST /api/availabilities). The write used to take six
-- round trips (read the aspect, read the caller's service role, begin, lock the service, write,
-- commit); on the embedded database every statement of every request waits its turn on the one
-- session, so at 10 writers in flight the p99 was about 87 ms. Authorization stays in the
-- application (server/policies): the function only writes.
--
-- SECURITY INVOKER (the default): it runs as catalog_app, so row-level security applies to every
-- statement in it as to the application's own. VOLATILE: under READ COMMITTED each statement
-- takes a fresh snapshot, so the statements after the service lock see every write committed
-- before the lock was granted; the order (find, lock, read, write) is what keeps the check and
-- the service's version exact while writes to one service run one at a time.
--
-- Answers one row: status 'not_found' (no such aspect in the tenant), 'archived' (the service is
-- read-only; nothing written), 'conflict' (p_check and the stored text differs from p_expected;
-- nothing written) or 'applied'; current_value is the text stored before (null: none).
-- An empty p_value clears the text; the history keeps it as written ('').
-- The request caches see no table in a call: server/db/writeStamps.ts lists what it writes.
--
-- A write to a cell that exists updates it: an upsert fired the statement triggers of an INSERT as
-- well as those of an UPDATE (the change stream's and the webhooks'), each reading an empty
-- transition table, on every edit of a cell; a new cell is inserted by the upsert. p_request, the
-- request that writes the cell, is recorded on its history row (docs/decisions/0168-audit-every-change.md).
CREATE OR REPLACE FUNCTION catalog_write_availability(
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
REVOKE EXECUTE ON FUNCTION catalog_write_availability(uuid, uuid, text, text, text, boolean, text, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION catalog_write_availability(uuid, uuid, text, text, text, boolean, text, uuid) TO catalog_app;

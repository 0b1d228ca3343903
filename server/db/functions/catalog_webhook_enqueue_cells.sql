-- The cells' events (availability.changed, docs/decisions/0132-webhook-delivery.md): one per
-- service and statement (its id shared by every endpoint told), naming each cell with its version
-- (at most 100, in no particular order) and the count, written to the outbox (webhook_events) by
-- one statement that reads the statement's rows where they are. SECURITY DEFINER, as
-- catalog_webhook_enqueue; the payload is shaped in server/integrations/eventContent.ts.
CREATE OR REPLACE FUNCTION catalog_webhook_enqueue_cells() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhook_endpoints WHERE enabled) THEN
    RETURN NULL;
  END IF;
  -- The steps of an import that fill a hidden service tell nothing: its reveal is its creation.
  IF current_setting('catalog.importing', true) = 'on' THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    INSERT INTO webhook_events (tenant_id, event_id, event_type, service_key, data)
    SELECT e.tenant_id, e.event_id, 'availability.changed', e.service_id::text,
           jsonb_build_object('service_id', e.service_id, 'cells', to_jsonb(e.cells[1:100]), 'count', e.n)
      FROM (SELECT n.tenant_id, n.service_id, 'msg_' || replace(gen_random_uuid()::text, '-', '') AS event_id, count(*) AS n,
                   array_agg(jsonb_build_object('aspect_id', n.aspect_id, 'time_bucket', n.time_bucket, 'version', n.version, 'deleted', false)) AS cells
              FROM catalog_wh_new n
             GROUP BY n.tenant_id, n.service_id) e
     WHERE EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.tenant_id = e.tenant_id AND w.enabled AND w.events ? 'availability.changed');
  ELSIF TG_OP = 'UPDATE' THEN
    -- Cells moved to another tenant with their service are told as service.moved only.
    INSERT INTO webhook_events (tenant_id, event_id, event_type, service_key, data)
    SELECT e.tenant_id, e.event_id, 'availability.changed', e.service_id::text,
           jsonb_build_object('service_id', e.service_id, 'cells', to_jsonb(e.cells[1:100]), 'count', e.n)
      FROM (SELECT n.tenant_id, n.service_id, 'msg_' || replace(gen_random_uuid()::text, '-', '') AS event_id, count(*) AS n,
                   array_agg(jsonb_build_object('aspect_id', n.aspect_id, 'time_bucket', n.time_bucket, 'version', n.version, 'deleted', false)) AS cells
              FROM catalog_wh_new n JOIN catalog_wh_old o USING (aspect_id, time_bucket)
             WHERE n.tenant_id = o.tenant_id
             GROUP BY n.tenant_id, n.service_id) e
     WHERE EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.tenant_id = e.tenant_id AND w.enabled AND w.events ? 'availability.changed');
  ELSE
    -- The cells of a service deleted with it are not told one by one.
    INSERT INTO webhook_events (tenant_id, event_id, event_type, service_key, data)
    SELECT e.tenant_id, e.event_id, 'availability.changed', e.service_id::text,
           jsonb_build_object('service_id', e.service_id, 'cells', to_jsonb(e.cells[1:100]), 'count', e.n)
      FROM (SELECT o.tenant_id, o.service_id, 'msg_' || replace(gen_random_uuid()::text, '-', '') AS event_id, count(*) AS n,
                   array_agg(jsonb_build_object('aspect_id', o.aspect_id, 'time_bucket', o.time_bucket, 'version', NULL, 'deleted', true)) AS cells
              FROM catalog_wh_old o
             WHERE EXISTS (SELECT 1 FROM services s WHERE s.id = o.service_id)
             GROUP BY o.tenant_id, o.service_id) e
     WHERE EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.tenant_id = e.tenant_id AND w.enabled AND w.events ? 'availability.changed');
  END IF;
  RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS catalog_webhook_insert ON availabilities;
DROP TRIGGER IF EXISTS catalog_webhook_update ON availabilities;
DROP TRIGGER IF EXISTS catalog_webhook_delete ON availabilities;
CREATE TRIGGER catalog_webhook_insert AFTER INSERT ON availabilities REFERENCING NEW TABLE AS catalog_wh_new FOR EACH STATEMENT EXECUTE FUNCTION catalog_webhook_enqueue_cells();
CREATE TRIGGER catalog_webhook_update AFTER UPDATE ON availabilities REFERENCING OLD TABLE AS catalog_wh_old NEW TABLE AS catalog_wh_new FOR EACH STATEMENT EXECUTE FUNCTION catalog_webhook_enqueue_cells();
CREATE TRIGGER catalog_webhook_delete AFTER DELETE ON availabilities REFERENCING OLD TABLE AS catalog_wh_old FOR EACH STATEMENT EXECUTE FUNCTION catalog_webhook_enqueue_cells();

-- Webhook events (docs/decisions/0131-webhooks.md, 0138-webhook-outbox.md): each statement that
-- writes a service or its categories, aspects or snapshots queues, in its own transaction, one row
-- per event in the outbox (webhook_events), and only when an enabled endpoint of its tenant takes
-- the event's type: a write that rolls back queues nothing, and one that commits is never lost. An
-- event records the facts of a change only (ids, versions, deletions, how many rows); its payload
-- is shaped from them, with the content read when sending as the endpoint's role may see it, in
-- server/integrations/eventContent.ts.
-- SECURITY DEFINER: the endpoints and the outbox are read and written whatever scope the writer
-- works in (a move writes two tenants' rows). A cell's events have catalog_webhook_enqueue_cells.
--
-- A service's update is told by a row-level trigger whose condition passes over the version bump
-- of every catalog write: the condition is evaluated without calling the function. Inserts and
-- deletes of services stay statement-level.
CREATE OR REPLACE FUNCTION catalog_webhook_enqueue() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  changed jsonb;
BEGIN
  -- Nothing to do, at the cost of one index probe, while no tenant has an endpoint.
  IF NOT EXISTS (SELECT 1 FROM webhook_endpoints WHERE enabled) THEN
    RETURN NULL;
  END IF;
  -- The steps of an import that fill a hidden service tell nothing: its reveal is its creation.
  IF current_setting('catalog.importing', true) = 'on' THEN
    RETURN NULL;
  END IF;
  -- Each changed row as {"n": new, "o": old} (the snapshot's frozen catalog left out). A service's
  -- update comes one row at a time: its trigger's condition has found more changed than the version
  -- and time every catalog write bumps.
  IF TG_LEVEL = 'ROW' THEN
    changed := jsonb_build_array(jsonb_build_object('n', to_jsonb(NEW), 'o', to_jsonb(OLD)));
  ELSIF TG_OP = 'INSERT' THEN
    SELECT jsonb_agg(jsonb_build_object('n', to_jsonb(n) - 'data')) INTO changed FROM catalog_wh_new n;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT jsonb_agg(jsonb_build_object('o', to_jsonb(o) - 'data')) INTO changed FROM catalog_wh_old o;
  ELSE
    SELECT jsonb_agg(jsonb_build_object('n', to_jsonb(n) - 'data', 'o', to_jsonb(o) - 'data')) INTO changed
      FROM catalog_wh_new n JOIN catalog_wh_old o ON o.id = n.id;
  END IF;
  IF changed IS NULL THEN
    RETURN NULL;
  END IF;
  WITH r AS (
    SELECT x->'n' AS n, x->'o' AS o FROM jsonb_array_elements(changed) x
  ),
  -- The service events: one per service and kind of change (a statement that publishes and renames
  -- a service tells both).
  service_events AS (
    SELECT coalesce(n->>'tenant_id', o->>'tenant_id') AS tenant_id, coalesce(n->>'id', o->>'id') AS service_id, k.type,
           jsonb_build_object('service_id', coalesce(n->>'id', o->>'id'), 'version', coalesce(n->'version', o->'version')) AS data
      FROM r CROSS JOIN LATERAL (VALUES
        (CASE WHEN TG_OP = 'INSERT' THEN 'service.created' WHEN TG_OP = 'DELETE' THEN 'service.deleted'
              -- An import's service made visible: it is created now.
              WHEN TG_OP = 'UPDATE' AND (o->>'importing')::boolean AND NOT (n->>'importing')::boolean THEN 'service.created' END),
        (CASE WHEN TG_OP = 'UPDATE' AND (n->'archived') IS DISTINCT FROM (o->'archived') THEN
           CASE WHEN (n->>'archived')::boolean THEN 'service.archived' ELSE 'service.unarchived' END END),
        (CASE WHEN TG_OP = 'UPDATE' AND (n->'published') IS DISTINCT FROM (o->'published') THEN
           CASE WHEN (n->>'published')::boolean THEN 'service.published' ELSE 'service.unpublished' END END),
        (CASE WHEN TG_OP = 'UPDATE' AND (n - 'version' - 'last_updated' - 'tenant_id' - 'archived' - 'published' - 'importing')
                                        IS DISTINCT FROM (o - 'version' - 'last_updated' - 'tenant_id' - 'archived' - 'published' - 'importing')
           THEN 'service.updated' END)
      ) k(type)
     WHERE TG_TABLE_NAME = 'services' AND k.type IS NOT NULL AND NOT (TG_OP = 'UPDATE' AND (n->>'tenant_id') <> (o->>'tenant_id'))
       -- A hidden service (an import in progress) is told of when it is made visible, not before.
       AND NOT coalesce((n->>'importing')::boolean, (o->>'importing')::boolean, false)
    UNION ALL
    -- A move is told to both tenants.
    SELECT t.tenant_id, n->>'id', 'service.moved',
           jsonb_build_object('service_id', n->>'id', 'version', n->'version', 'from_tenant_id', o->>'tenant_id', 'to_tenant_id', n->>'tenant_id')
      FROM r CROSS JOIN LATERAL (VALUES (o->>'tenant_id'), (n->>'tenant_id')) t(tenant_id)
     WHERE TG_TABLE_NAME = 'services' AND TG_OP = 'UPDATE' AND (n->>'tenant_id') <> (o->>'tenant_id')
    UNION ALL
    -- A move unpublishes (the target tenant's admins decide): a published service's tenant is told
    -- that its public page is gone.
    SELECT o->>'tenant_id', o->>'id', 'service.unpublished', jsonb_build_object('service_id', o->>'id', 'version', n->'version')
      FROM r
     WHERE TG_TABLE_NAME = 'services' AND TG_OP = 'UPDATE' AND (n->>'tenant_id') <> (o->>'tenant_id')
       AND (o->'published') IS DISTINCT FROM (n->'published') AND (o->>'published')::boolean
  ),
  -- The catalog's events: one per service and statement, naming each row changed (at most 100).
  catalog_rows AS (
    SELECT coalesce(n->>'tenant_id', o->>'tenant_id') AS tenant_id, coalesce(n->>'service_id', o->>'service_id') AS service_id,
           CASE TG_TABLE_NAME
             WHEN 'aspects' THEN jsonb_build_object('kind', 'aspect', 'aspect_id', coalesce(n->>'id', o->>'id'), 'category_id', coalesce(n->>'category_id', o->>'category_id'), 'version', n->'version', 'deleted', n IS NULL)
             WHEN 'categories' THEN jsonb_build_object('kind', 'category', 'category_id', coalesce(n->>'id', o->>'id'), 'deleted', n IS NULL)
             ELSE jsonb_build_object('snapshot_id', n->>'id', 'label', n->>'label', 'visibility', n->>'visibility')
           END AS item
      FROM r
     WHERE TG_TABLE_NAME <> 'services'
       -- The catalog of a service deleted with it is not told item by item.
       AND (TG_OP <> 'DELETE' OR EXISTS (SELECT 1 FROM services s WHERE s.id = (o->>'service_id')::uuid))
       AND NOT (TG_OP = 'UPDATE' AND (n->>'tenant_id') <> (o->>'tenant_id'))
       AND (TG_TABLE_NAME <> 'snapshots' OR TG_OP = 'INSERT')
  ),
  numbered AS (
    SELECT c.*, row_number() OVER (PARTITION BY tenant_id, service_id) AS rn FROM catalog_rows c
  ),
  catalog_events AS (
    SELECT tenant_id, service_id,
           CASE TG_TABLE_NAME WHEN 'snapshots' THEN 'snapshot.taken' ELSE 'catalog.changed' END AS type,
           CASE TG_TABLE_NAME
             WHEN 'snapshots' THEN jsonb_build_object('service_id', service_id) || ((jsonb_agg(item))->0)
             ELSE jsonb_build_object('service_id', service_id, 'changes', jsonb_agg(item) FILTER (WHERE rn <= 100), 'count', count(*))
           END AS data
      FROM numbered
     GROUP BY tenant_id, service_id
  ),
  events AS (
    SELECT e.*, 'msg_' || replace(gen_random_uuid()::text, '-', '') AS event_id
      FROM (SELECT * FROM service_events UNION ALL SELECT * FROM catalog_events) e
  )
  INSERT INTO webhook_events (tenant_id, event_id, event_type, service_key, data)
  SELECT e.tenant_id::uuid, e.event_id, e.type, coalesce(e.service_id, ''), e.data
    FROM events e
   WHERE EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.tenant_id = e.tenant_id::uuid AND w.enabled AND w.events ? e.type);
  RETURN NULL;
END
$$;
DO $$
DECLARE
  tbl text;
BEGIN
  FOREACH tbl IN ARRAY ARRAY['services', 'categories', 'aspects', 'snapshots'] LOOP
    EXECUTE format('DROP TRIGGER IF EXISTS catalog_webhook_insert ON %I', tbl);
    EXECUTE format('DROP TRIGGER IF EXISTS catalog_webhook_update ON %I', tbl);
    EXECUTE format('DROP TRIGGER IF EXISTS catalog_webhook_delete ON %I', tbl);
    EXECUTE format('CREATE TRIGGER catalog_webhook_insert AFTER INSERT ON %I REFERENCING NEW TABLE AS catalog_wh_new FOR EACH STATEMENT EXECUTE FUNCTION catalog_webhook_enqueue()', tbl);
    IF tbl <> 'services' THEN
      EXECUTE format('CREATE TRIGGER catalog_webhook_update AFTER UPDATE ON %I REFERENCING OLD TABLE AS catalog_wh_old NEW TABLE AS catalog_wh_new FOR EACH STATEMENT EXECUTE FUNCTION catalog_webhook_enqueue()', tbl);
    END IF;
    EXECUTE format('CREATE TRIGGER catalog_webhook_delete AFTER DELETE ON %I REFERENCING OLD TABLE AS catalog_wh_old FOR EACH STATEMENT EXECUTE FUNCTION catalog_webhook_enqueue()', tbl);
  END LOOP;
END
$$;
CREATE TRIGGER catalog_webhook_update AFTER UPDATE ON services FOR EACH ROW
  WHEN ((to_jsonb(OLD) - 'version' - 'last_updated') IS DISTINCT FROM (to_jsonb(NEW) - 'version' - 'last_updated'))
  EXECUTE FUNCTION catalog_webhook_enqueue();

CREATE TABLE "webhook_events" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"event_id" text NOT NULL,
	"event_type" text NOT NULL,
	"service_key" text DEFAULT '' NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
-- The outbox (docs/decisions/0138-webhook-outbox.md). A write to the catalog used to add a delivery
-- row per endpoint in its own transaction: a row with two foreign keys to check, four indexes and a
-- random id, which made each write about a fifth slower on the embedded database. It now adds one
-- row per event here, and only when an enabled endpoint of its tenant takes the event's type; the
-- sender turns the rows into deliveries, in order, before each claim. Same row-level security as
-- every tenant-owned table (migration 0016); the triggers write the rows, the sender reads and removes them.
ALTER TABLE webhook_events ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE POLICY tenant_isolation ON webhook_events TO catalog_app USING (tenant_id = (SELECT catalog_scope_tenant()));--> statement-breakpoint
CREATE POLICY system_scope ON webhook_events TO catalog_system USING (true);--> statement-breakpoint
GRANT SELECT, INSERT, DELETE ON webhook_events TO catalog_app;--> statement-breakpoint
GRANT USAGE, SELECT ON SEQUENCE webhook_events_seq_seq TO catalog_app;--> statement-breakpoint
-- The function of migration 0018, writing its events to the outbox.
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
  -- Every catalog write raises its service's version: nothing to tell, found out by a query far
  -- cheaper to plan and run than the one below. (Nested: the old rows exist on UPDATE only.)
  IF TG_TABLE_NAME = 'services' AND TG_OP = 'UPDATE' THEN
    IF NOT EXISTS (
      SELECT 1 FROM catalog_wh_new n JOIN catalog_wh_old o ON o.id = n.id
       WHERE (to_jsonb(n) - 'version' - 'last_updated') IS DISTINCT FROM (to_jsonb(o) - 'version' - 'last_updated')) THEN
      RETURN NULL;
    END IF;
  END IF;
  -- Each changed row as {"n": new, "o": old} (the snapshot's frozen catalog left out).
  IF TG_OP = 'INSERT' THEN
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
$$;--> statement-breakpoint
-- The function of migration 0019, writing its events to the outbox.
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

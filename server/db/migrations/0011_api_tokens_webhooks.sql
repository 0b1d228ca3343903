CREATE TABLE "api_tokens" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"role" text NOT NULL,
	"service_ids" jsonb,
	"secret_hash" text NOT NULL,
	"hint" text NOT NULL,
	"expires_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "api_tokens_secret_hash_unique" UNIQUE("secret_hash")
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seq" bigserial NOT NULL,
	"tenant_id" uuid NOT NULL,
	"endpoint_id" uuid NOT NULL,
	"event_id" text NOT NULL,
	"event_type" text NOT NULL,
	"service_key" text DEFAULT '' NOT NULL,
	"data" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"response_status" integer,
	"duration_ms" integer,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_attempt_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"url" text NOT NULL,
	"events" jsonb NOT NULL,
	"role" text DEFAULT 'reader' NOT NULL,
	"secret" text NOT NULL,
	"previous_secret" text,
	"previous_secret_until" timestamp with time zone,
	"enabled" boolean DEFAULT true NOT NULL,
	"disabled_reason" text,
	"failing_since" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhook_endpoints_tenant_id_unique" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."webhook_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_tokens_tenant_idx" ON "api_tokens" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_order_idx" ON "webhook_deliveries" USING btree ("endpoint_id","service_key","seq");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_log_idx" ON "webhook_deliveries" USING btree ("endpoint_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_endpoints_tenant_idx" ON "webhook_endpoints" USING btree ("tenant_id");--> statement-breakpoint
-- API tokens and webhooks belong to a tenant: the same row-level security as every tenant-owned
-- table (migration 0001, docs/decisions/0004-row-level-security.md). Tokens are resolved before a
-- request's tenant is known, in the system scope, by the hash of their secret.
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['api_tokens', 'webhook_endpoints', 'webhook_deliveries'] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format(
      $policy$CREATE POLICY tenant_isolation ON %I
        USING ((SELECT current_setting('catalog.scope', true)) = 'system'
               OR ((SELECT current_setting('catalog.scope', true)) = 'tenant'
                   AND tenant_id = (SELECT nullif(current_setting('catalog.tenant_id', true), '')::uuid)))$policy$,
      t);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO catalog_app', t);
  END LOOP;
END $$;
--> statement-breakpoint
GRANT USAGE, SELECT ON SEQUENCE webhook_deliveries_seq_seq TO catalog_app;
--> statement-breakpoint
-- The change stream (migration 0008, docs/decisions/0115-change-stream.md) announces writes to the
-- tokens and endpoints every process keeps in memory: a revoked token is refused at once by every
-- process, an endpoint changed is read again.
DO $$
DECLARE
  tbl text;
BEGIN
  FOREACH tbl IN ARRAY ARRAY['api_tokens', 'webhook_endpoints'] LOOP
    EXECUTE format('CREATE TRIGGER catalog_announce_insert AFTER INSERT ON %I REFERENCING NEW TABLE AS catalog_new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_announce()', tbl);
    EXECUTE format('CREATE TRIGGER catalog_announce_update AFTER UPDATE ON %I REFERENCING OLD TABLE AS catalog_old_rows NEW TABLE AS catalog_new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_announce()', tbl);
    EXECUTE format('CREATE TRIGGER catalog_announce_delete AFTER DELETE ON %I REFERENCING OLD TABLE AS catalog_old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_announce()', tbl);
    EXECUTE format('CREATE TRIGGER catalog_announce_truncate AFTER TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION catalog_announce()', tbl);
  END LOOP;
END
$$;
--> statement-breakpoint
-- Webhook events (docs/decisions/0131-webhooks.md): each statement that writes a service or its
-- catalog queues, in its own transaction, one delivery per subscribed endpoint of the tenant and per
-- event: a write that rolls back queues nothing, and one that commits is never lost. The events
-- carry ids and versions only; the content is read when sending, with the endpoint's role.
-- SECURITY DEFINER: the endpoints and the queue are read and written whatever scope the writer
-- works in (a move writes two tenants' rows).
CREATE OR REPLACE FUNCTION catalog_webhook_enqueue() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  changed jsonb;
BEGIN
  -- Nothing to do, at the cost of one index probe, while no tenant has an endpoint.
  IF NOT EXISTS (SELECT 1 FROM webhook_endpoints WHERE enabled) THEN
    RETURN NULL;
  END IF;
  -- Each changed row as {"n": new, "o": old} (the snapshot's frozen catalog left out).
  IF TG_OP = 'INSERT' THEN
    SELECT jsonb_agg(jsonb_build_object('n', to_jsonb(n) - 'data')) INTO changed FROM catalog_wh_new n;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT jsonb_agg(jsonb_build_object('o', to_jsonb(o) - 'data')) INTO changed FROM catalog_wh_old o;
  ELSIF TG_TABLE_NAME = 'availabilities' THEN
    SELECT jsonb_agg(jsonb_build_object('n', to_jsonb(n), 'o', to_jsonb(o))) INTO changed
      FROM catalog_wh_new n JOIN catalog_wh_old o ON o.aspect_id = n.aspect_id AND o.time_bucket = n.time_bucket;
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
  -- The service events: one per service and change.
  service_events AS (
    SELECT coalesce(n->>'tenant_id', o->>'tenant_id') AS tenant_id, coalesce(n->>'id', o->>'id') AS service_id,
           CASE
             WHEN TG_OP = 'INSERT' THEN 'service.created'
             WHEN TG_OP = 'DELETE' THEN 'service.deleted'
             WHEN (n->'archived') IS DISTINCT FROM (o->'archived') THEN
               CASE WHEN (n->>'archived')::boolean THEN 'service.archived' ELSE 'service.unarchived' END
             WHEN (n - 'version' - 'last_updated' - 'tenant_id' - 'archived') IS DISTINCT FROM (o - 'version' - 'last_updated' - 'tenant_id' - 'archived') THEN 'service.updated'
           END AS type,
           jsonb_build_object('service_id', coalesce(n->>'id', o->>'id'), 'version', coalesce(n->'version', o->'version')) AS data
      FROM r
     WHERE TG_TABLE_NAME = 'services' AND NOT (TG_OP = 'UPDATE' AND (n->>'tenant_id') <> (o->>'tenant_id'))
    UNION ALL
    -- A move is told to both tenants.
    SELECT t.tenant_id, n->>'id', 'service.moved',
           jsonb_build_object('service_id', n->>'id', 'version', n->'version', 'from_tenant_id', o->>'tenant_id', 'to_tenant_id', n->>'tenant_id')
      FROM r CROSS JOIN LATERAL (VALUES (o->>'tenant_id'), (n->>'tenant_id')) t(tenant_id)
     WHERE TG_TABLE_NAME = 'services' AND TG_OP = 'UPDATE' AND (n->>'tenant_id') <> (o->>'tenant_id')
  ),
  -- The catalog's events: one per service and statement, naming each row changed (at most 100).
  catalog_rows AS (
    SELECT coalesce(n->>'tenant_id', o->>'tenant_id') AS tenant_id, coalesce(n->>'service_id', o->>'service_id') AS service_id,
           CASE TG_TABLE_NAME
             WHEN 'availabilities' THEN jsonb_build_object('aspect_id', coalesce(n->>'aspect_id', o->>'aspect_id'), 'time_bucket', coalesce(n->>'time_bucket', o->>'time_bucket'), 'version', n->'version', 'deleted', n IS NULL)
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
           CASE TG_TABLE_NAME WHEN 'availabilities' THEN 'availability.changed' WHEN 'snapshots' THEN 'snapshot.taken' ELSE 'catalog.changed' END AS type,
           CASE TG_TABLE_NAME
             WHEN 'availabilities' THEN jsonb_build_object('service_id', service_id, 'cells', jsonb_agg(item) FILTER (WHERE rn <= 100), 'count', count(*))
             WHEN 'snapshots' THEN jsonb_build_object('service_id', service_id) || (jsonb_agg(item))->0
             ELSE jsonb_build_object('service_id', service_id, 'changes', jsonb_agg(item) FILTER (WHERE rn <= 100), 'count', count(*))
           END AS data
      FROM numbered
     GROUP BY tenant_id, service_id
  ),
  events AS (
    SELECT e.*, 'msg_' || replace(gen_random_uuid()::text, '-', '') AS event_id
      FROM (SELECT * FROM service_events WHERE type IS NOT NULL UNION ALL SELECT * FROM catalog_events) e
  )
  INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_id, event_type, service_key, data)
  SELECT w.tenant_id, w.id, e.event_id, e.type, coalesce(e.service_id, ''), e.data
    FROM events e
    JOIN webhook_endpoints w ON w.tenant_id = e.tenant_id::uuid AND w.enabled AND w.events ? e.type;
  RETURN NULL;
END
$$;
--> statement-breakpoint
DO $$
DECLARE
  tbl text;
BEGIN
  FOREACH tbl IN ARRAY ARRAY['services', 'categories', 'aspects', 'availabilities', 'snapshots'] LOOP
    EXECUTE format('CREATE TRIGGER catalog_webhook_insert AFTER INSERT ON %I REFERENCING NEW TABLE AS catalog_wh_new FOR EACH STATEMENT EXECUTE FUNCTION catalog_webhook_enqueue()', tbl);
    EXECUTE format('CREATE TRIGGER catalog_webhook_update AFTER UPDATE ON %I REFERENCING OLD TABLE AS catalog_wh_old NEW TABLE AS catalog_wh_new FOR EACH STATEMENT EXECUTE FUNCTION catalog_webhook_enqueue()', tbl);
    EXECUTE format('CREATE TRIGGER catalog_webhook_delete AFTER DELETE ON %I REFERENCING OLD TABLE AS catalog_wh_old FOR EACH STATEMENT EXECUTE FUNCTION catalog_webhook_enqueue()', tbl);
  END LOOP;
END
$$;

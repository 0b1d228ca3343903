-- The change stream (docs/decisions/0115-change-stream.md): every statement that writes a record a
-- server process keeps in memory, or that decides who may do what, announces on the channel
-- catalog_changes which table it wrote and for which tenants, services and users. NOTIFY is sent
-- inside the writing transaction, so it is delivered when, and only if, that transaction commits;
-- identical announcements of one transaction are delivered once.
--
-- The payload is JSON: {"t": table, "tn": [tenant ids], "sv": [service ids], "us": [user ids],
-- "jt": [ids of sign-in tokens revoked]}.
-- A list is null when the statement touched more than 50 distinct ids (read it as "any"), which
-- keeps every payload far below NOTIFY's 8,000-byte limit. It carries ids only: a process that
-- hears it reads again, with the rights of whoever asks, what it needs.
CREATE OR REPLACE FUNCTION catalog_announce_send(tbl text, ids jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  payload text;
BEGIN
  -- ids: one [tenant, service, user, token] array per distinct combination the statement touched.
  SELECT json_build_object(
    't', tbl,
    'tn', CASE WHEN count(DISTINCT e->>0) > 50 THEN NULL ELSE coalesce(jsonb_agg(DISTINCT e->>0) FILTER (WHERE e->>0 IS NOT NULL), '[]') END,
    'sv', CASE WHEN count(DISTINCT e->>1) > 50 THEN NULL ELSE coalesce(jsonb_agg(DISTINCT e->>1) FILTER (WHERE e->>1 IS NOT NULL), '[]') END,
    'us', CASE WHEN count(DISTINCT e->>2) > 50 THEN NULL ELSE coalesce(jsonb_agg(DISTINCT e->>2) FILTER (WHERE e->>2 IS NOT NULL), '[]') END,
    'jt', CASE WHEN count(DISTINCT e->>3) > 50 THEN NULL ELSE coalesce(jsonb_agg(DISTINCT e->>3) FILTER (WHERE e->>3 IS NOT NULL), '[]') END
  )::text INTO payload
  FROM jsonb_array_elements(coalesce(ids, '[]')) e;
  PERFORM pg_notify('catalog_changes', payload);
  -- A server's pooled connection also hears its own writes on a channel of its own, before its
  -- COMMIT returns: the process that wrote never serves what it held from before its write.
  IF current_setting('catalog.self', true) = 'on' THEN
    PERFORM pg_notify('catalog_self_' || pg_backend_pid(), payload);
  END IF;
END
$$;
--> statement-breakpoint
-- The tenant, service, user and sign-in token a row belongs to: its own id in tenants, services and
-- users, and the token id of a revoked token (a session that ended names no user).
CREATE OR REPLACE FUNCTION catalog_announce_ids(tbl text, r jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_array(
    coalesce(r->>'tenant_id', CASE WHEN tbl = 'tenants' THEN r->>'id' END),
    coalesce(r->>'service_id', CASE WHEN tbl = 'services' THEN r->>'id' END),
    coalesce(r->>'user_id', CASE WHEN tbl = 'users' THEN r->>'id' END),
    CASE WHEN tbl = 'revoked_tokens' THEN r->>'jti' END
  )
$$;
--> statement-breakpoint
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
--> statement-breakpoint
DO $$
DECLARE
  tbl text;
BEGIN
  FOREACH tbl IN ARRAY ARRAY[
    'tenants', 'users', 'tenant_memberships', 'revoked_tokens', 'impersonations', 'tenant_invitations',
    'services', 'categories', 'aspects', 'availabilities', 'snapshots', 'actor_roles', 'quick_templates',
    'service_role_assignments'
  ] LOOP
    EXECUTE format('CREATE TRIGGER catalog_announce_insert AFTER INSERT ON %I REFERENCING NEW TABLE AS catalog_new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_announce()', tbl);
    EXECUTE format('CREATE TRIGGER catalog_announce_update AFTER UPDATE ON %I REFERENCING OLD TABLE AS catalog_old_rows NEW TABLE AS catalog_new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_announce()', tbl);
    EXECUTE format('CREATE TRIGGER catalog_announce_delete AFTER DELETE ON %I REFERENCING OLD TABLE AS catalog_old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_announce()', tbl);
    EXECUTE format('CREATE TRIGGER catalog_announce_truncate AFTER TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION catalog_announce()', tbl);
  END LOOP;
END
$$;

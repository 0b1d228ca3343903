-- Sends one announcement of the change stream (docs/decisions/0115-change-stream.md) on the channel
-- catalog_changes: which table a statement wrote and for which tenants, services, users and revoked
-- sign-in tokens. NOTIFY is sent inside the writing transaction, so it is delivered when, and only
-- if, that transaction commits; identical announcements of one transaction are delivered once.
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

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

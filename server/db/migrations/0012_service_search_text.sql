-- The dashboard's search reads one plain column kept by the database (server/db/schema/catalog.ts).
ALTER TABLE "services" ADD COLUMN "search_text" text GENERATED ALWAYS AS (lower(name || E'\x1f' || slug || E'\x1f' || service_owner || E'\x1f' || replace(replace(replace(replace(replace(replace(
  regexp_replace(regexp_replace(description, '<(br|/p|/li|/h[1-6]|/blockquote|/pre)\s*/?>', E'\n', 'gi'), '<[^>]*>', '', 'g'),
  '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&'))) STORED;
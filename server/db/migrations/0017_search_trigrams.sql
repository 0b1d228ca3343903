-- Lists that grow (docs/decisions/0114-paged-lists.md).
-- Searches that find a text anywhere in a name (`%text%`), which no b-tree index can answer: without
-- an index a tenant's member search compared the text with every user of the installation (100,000
-- users, 180 ms). Trigram indexes answer a search of three characters or more; a shorter one matches
-- so many rows that walking a list's order finds a page at once.
-- A tenant's own users in its list's order (tenant, name, email) take the place of the index on the
-- tenant alone, whose work they do too: a page of them reads its rows only, however the
-- installation's names interleave.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
DROP INDEX "users_tenant_idx";--> statement-breakpoint
CREATE INDEX "tenants_name_trgm_idx" ON "tenants" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "tenants_slug_trgm_idx" ON "tenants" USING gin ("slug" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "users_tenant_name_email_idx" ON "users" USING btree ("tenant_id","name","email");--> statement-breakpoint
CREATE INDEX "users_name_trgm_idx" ON "users" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "users_email_trgm_idx" ON "users" USING gin ("email" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "services_search_text_trgm_idx" ON "services" USING gin ("search_text" gin_trgm_ops);
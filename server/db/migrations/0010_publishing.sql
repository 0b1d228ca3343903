-- Publishing (docs/decisions/0120-public-pages.md): a service is readable by anyone once published (off
-- by default), and a tenant may name the origins allowed to frame its public pages. Both tables
-- already announce their writes on the change stream (migration 0008).
ALTER TABLE "tenants" ADD COLUMN "embed_origins" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "services" ADD COLUMN "published" boolean DEFAULT false NOT NULL;
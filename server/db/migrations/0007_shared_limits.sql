CREATE TABLE "login_throttle" (
	"key" text PRIMARY KEY NOT NULL,
	"failures" bigint[] NOT NULL,
	"pending" bigint[] NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_limit_counters" (
	"key" text PRIMARY KEY NOT NULL,
	"window_start" bigint NOT NULL,
	"count" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "server_settings" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "login_throttle_expires_idx" ON "login_throttle" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "rate_limit_counters_window_idx" ON "rate_limit_counters" USING btree ("window_start");--> statement-breakpoint
-- Shared state of the server processes on this database (docs/decisions/0112-shared-limits.md).
-- None of it belongs to a tenant, so no row-level security. The application role counts sign-in
-- failures and API calls; migration 0001's default privileges cover tables its role creates, and
-- granting here keeps the tables usable when a different account runs this migration.
GRANT SELECT, INSERT, UPDATE, DELETE ON "login_throttle", "rate_limit_counters" TO catalog_app;
--> statement-breakpoint
-- The signing secret is read by the owner at start-up, never by the application role: a query
-- that went wrong under that role cannot read it.
REVOKE ALL ON "server_settings" FROM catalog_app;

CREATE TABLE "rate_limits" (
	"key" text PRIMARY KEY NOT NULL,
	"points" integer DEFAULT 0 NOT NULL,
	"expire" bigint
);
--> statement-breakpoint
DROP TABLE "login_throttle" CASCADE;--> statement-breakpoint
DROP TABLE "rate_limit_counters" CASCADE;--> statement-breakpoint
-- The API rate limit, the public pages' limit and sign-in throttling count in rate_limits through
-- rate-limiter-flexible (docs/decisions/0178-limits-from-a-library.md); the table is created here,
-- so the application role needs no right to create tables. None of it belongs to a tenant: no
-- row-level security, as for the tables it replaces.
GRANT SELECT, INSERT, UPDATE, DELETE ON "rate_limits" TO catalog_app;

CREATE TABLE "tenant_invitations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"name" text NOT NULL,
	"role" text NOT NULL,
	"auth_provider" text NOT NULL,
	"service_id" uuid,
	"invited_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tenant_invitations_tenant_user_unique" UNIQUE("tenant_id","user_id"),
	CONSTRAINT "tenant_invitations_tenant_id_unique" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "tenant_invitations" ADD CONSTRAINT "tenant_invitations_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_invitations" ADD CONSTRAINT "tenant_invitations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_invitations" ADD CONSTRAINT "tenant_invitations_service_id_services_id_fk" FOREIGN KEY ("service_id") REFERENCES "public"."services"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_invitations" ADD CONSTRAINT "tenant_invitations_invited_by_users_id_fk" FOREIGN KEY ("invited_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tenant_invitations_user_idx" ON "tenant_invitations" USING btree ("user_id");--> statement-breakpoint
-- Invitations belong to a tenant: the same row-level security as every tenant-owned table
-- (migration 0001, docs/decisions/0004-row-level-security.md). The invitee reads and answers their
-- invitations across tenants in the system scope, after the server has matched them to the caller.
ALTER TABLE "tenant_invitations" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON "tenant_invitations"
  USING ((SELECT current_setting('catalog.scope', true)) = 'system'
         OR ((SELECT current_setting('catalog.scope', true)) = 'tenant'
             AND tenant_id = (SELECT nullif(current_setting('catalog.tenant_id', true), '')::uuid)));
--> statement-breakpoint
-- Migration 0001's default privileges cover tables its role creates; granting here keeps the table
-- usable when a different account runs this migration.
GRANT SELECT, INSERT, UPDATE, DELETE ON "tenant_invitations" TO catalog_app;

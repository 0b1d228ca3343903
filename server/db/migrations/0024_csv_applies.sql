CREATE TABLE "csv_applies" (
	"service_id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"changed_by" text NOT NULL,
	"step_cells" integer NOT NULL,
	"steps_done" integer DEFAULT 0 NOT NULL,
	"journal" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "csv_applies" ADD CONSTRAINT "csv_applies_tenant_id_service_id_services_tenant_id_id_fk" FOREIGN KEY ("tenant_id","service_id") REFERENCES "public"."services"("tenant_id","id") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
-- The journal of a CSV apply in steps (docs/decisions/0139-csv-apply-in-steps.md): what the apply
-- writes, chosen before its first step, so that a failed step or a stopped process has what was
-- written undone. Same row-level security as every tenant-owned table (migration 0016).
ALTER TABLE csv_applies ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE POLICY tenant_isolation ON csv_applies TO catalog_app USING (tenant_id = (SELECT catalog_scope_tenant()));--> statement-breakpoint
CREATE POLICY system_scope ON csv_applies TO catalog_system USING (true);--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE, DELETE ON csv_applies TO catalog_app;

CREATE INDEX "tenants_name_idx" ON "tenants" USING btree ("name",("id"::text));--> statement-breakpoint
CREATE INDEX "users_name_email_idx" ON "users" USING btree ("name","email");--> statement-breakpoint
CREATE INDEX "services_tenant_name_idx" ON "services" USING btree ("tenant_id","name","id");
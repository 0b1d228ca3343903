ALTER TABLE "tenant_memberships" ADD COLUMN "role" text DEFAULT 'reader' NOT NULL;--> statement-breakpoint
-- Every person holds a membership in their primary tenant, and each membership the role the person held until now (one role for every tenant).
INSERT INTO "tenant_memberships" ("user_id", "tenant_id", "role") SELECT "id", "tenant_id", "role" FROM "users" ON CONFLICT ("user_id", "tenant_id") DO NOTHING;--> statement-breakpoint
UPDATE "tenant_memberships" m SET "role" = u."role" FROM "users" u WHERE u."id" = m."user_id";

ALTER TABLE "impersonations" ADD COLUMN "session_jti" text;--> statement-breakpoint
ALTER TABLE "impersonations" ADD COLUMN "session_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "impersonations" ADD COLUMN "reason" text;--> statement-breakpoint
CREATE INDEX "impersonations_token_jti_idx" ON "impersonations" USING btree ("token_jti");--> statement-breakpoint
CREATE INDEX "impersonations_session_jti_idx" ON "impersonations" USING btree ("session_jti");
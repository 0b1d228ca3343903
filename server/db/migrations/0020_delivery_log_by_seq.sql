-- An endpoint's delivery log is read newest first by seq, a page at a time, and pruned oldest first
-- (WEBHOOK_LOG_DAYS): both walk this index; the one by creation time served neither order.
DROP INDEX "webhook_deliveries_log_idx";--> statement-breakpoint
CREATE INDEX "webhook_deliveries_log_seq_idx" ON "webhook_deliveries" USING btree ("endpoint_id","seq");
ALTER TABLE "webhook_deliveries" ADD COLUMN "attempt_log" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
-- Written by hand: the delivery log no longer keeps what a target resolved to nor raw DNS, TLS or
-- socket error texts, so those already logged are replaced by the generic words; then each
-- delivery already attempted keeps its last attempt, the only one known, as its attempt list.
UPDATE "webhook_deliveries" SET "error" = CASE
    WHEN "error" LIKE 'refused %' THEN 'refused: not a public address'
    ELSE 'could not connect'
  END
 WHERE "error" IS NOT NULL
   AND "error" !~ '^(answered [0-9]+|redirect not followed|no answer within [0-9]+ ms|invalid URL|endpoint disabled|not sent: .*)$';--> statement-breakpoint
UPDATE "webhook_deliveries" SET "attempt_log" = jsonb_build_array(jsonb_build_object(
    'at', to_char("last_attempt_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'response_status', "response_status", 'error', "error", 'duration_ms', "duration_ms"))
 WHERE "last_attempt_at" IS NOT NULL;

import { bigint, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/*
 * State that several server processes on one PostgreSQL database must agree on
 * (docs/decisions/0112-shared-limits.md). None of it belongs to a tenant, so none of it is under
 * row-level security. Times that the limits compare are milliseconds of the server's clock, so a
 * limit reads the same clock as the process that counts (and tests can move it).
 */

/**
 * Values generated once for the whole installation (the token signing secret). Read by the owner
 * role at start-up only: the migration takes every privilege on it from the application role.
 */
export const serverSettings = pgTable('server_settings', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/**
 * Sign-in throttling: the failures and pending attempts of one key (an account and address pair,
 * an address, or an account), as in server/auth/loginLimiter.ts. A row whose lists are empty is
 * deleted; `expires_at` is when its newest entry leaves the window, for pruning.
 */
export const loginThrottle = pgTable(
  'login_throttle',
  {
    key: text('key').primaryKey(),
    failures: bigint('failures', { mode: 'number' }).array().notNull(),
    pending: bigint('pending', { mode: 'number' }).array().notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('login_throttle_expires_idx').on(t.expiresAt)],
);

/** The API rate limit: each caller's count in its current window, added to by every process. */
export const rateLimitCounters = pgTable(
  'rate_limit_counters',
  {
    key: text('key').primaryKey(),
    windowStart: bigint('window_start', { mode: 'number' }).notNull(),
    count: integer('count').notNull(),
  },
  (t) => [index('rate_limit_counters_window_idx').on(t.windowStart)],
);

import { bigint, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

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
 * The counts of the API rate limit, the public pages' limit and sign-in throttling on PostgreSQL:
 * the table rate-limiter-flexible's RateLimiterPostgres reads and writes (one row per key, points
 * in the window and the window's end in milliseconds), created here so the application role needs
 * no right to create tables (docs/decisions/0178-limits-from-a-library.md).
 */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  points: integer('points').notNull().default(0),
  expire: bigint('expire', { mode: 'number' }),
});

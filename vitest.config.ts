import { defineConfig } from 'vitest/config';

/**
 * The slow tier: a test file that starts processes or builds, soaks, or writes more than a few
 * thousand rows is named `*.slow.test.ts`. `npm run test:fast` leaves these files out; `npm test`
 * runs them all (docs/ARCHITECTURE.md, "Test tiers").
 */
export const SLOW_TESTS = '**/*.slow.test.ts';

export default defineConfig({
  test: {
    include: ['server/**/*.test.ts', 'common/**/*.test.ts', 'bench/**/*.test.ts', 'web/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 90_000,
    hookTimeout: 120_000,
    reporters: ['default'],
    // Every test file's database is a copy of one migrated once per run (server/test/db.ts).
    globalSetup: ['server/test/globalSetup.ts'],
  },
});

import { describe, expect, it } from 'vitest';
import { runSoak } from '../../../bench/soak';
import { recordFigure } from '../security/figures';
import { freePort } from './server';

/**
 * Suite 11, the soak's short version: the same fixed-rate mixed load as bench/soak.ts (which runs
 * 10 minutes outside CI), for SOAK_SECONDS (60 by default) against the real server process.
 */
const SECONDS = Number(process.env.SOAK_SECONDS ?? 60);
const RATE = Number(process.env.SOAK_RATE ?? 20);

describe('soak', () => {
  it(
    `serves ${SECONDS} s of mixed reads and writes in several tenants without an error`,
    async () => {
      const result = await runSoak({
        seconds: SECONDS,
        rate: RATE,
        tenants: 3,
        port: await freePort(),
        databaseUrl: process.env.TEST_DATABASE_URL || undefined,
        log: () => {},
      });
      recordFigure(
        'soak',
        `${result.errors} errors in ${result.requests} requests over ${SECONDS} s at ${RATE} operations/s; RSS ${result.rssWarmMb} MB at ${result.warmSeconds} s, ${result.rssEndMb} MB at the end (max ${result.rssMaxMb} MB)`,
        { ...result },
      );
      expect(result.errorSamples).toEqual([]);
      expect(result.errors).toBe(0);
      expect(result.requests).toBeGreaterThan(SECONDS * RATE * 0.8);
      // A gross leak would show within a minute; the 10-minute run gives the real figure.
      expect(result.rssEndMb).toBeLessThan(result.rssWarmMb * 2);
    },
    (SECONDS + 180) * 1000,
  );
});

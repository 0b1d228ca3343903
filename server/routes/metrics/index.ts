import type { FastifyInstance } from 'fastify';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { requireActor } from '../../plugins/context';
import { requirePlatform } from '../../policies';

/** Set to 1 to expose process figures for the benchmark (bench/); otherwise no route exists. */
export const BENCH_METRICS_ENV = 'BENCH_METRICS';

/**
 * GET /api/metrics: resident memory, heap and the event loop's delay since the previous call
 * (the histogram restarts on every read), for super admins, only when BENCH_METRICS=1.
 */
export default async function metricsRoutes(app: FastifyInstance) {
  if (process.env[BENCH_METRICS_ENV] !== '1') return;
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  app.addHook('onClose', async () => delay.disable());
  const ms = (ns: number) => Math.round((ns / 1e6) * 100) / 100;

  app.get('/metrics', { config: { tenant: false } }, async (req) => {
    requirePlatform(requireActor(req));
    const memory = process.memoryUsage();
    const figures = {
      rss_bytes: memory.rss,
      heap_used_bytes: memory.heapUsed,
      external_bytes: memory.external,
      event_loop: { max_ms: ms(delay.max), p99_ms: ms(delay.percentile(99)), mean_ms: ms(delay.mean) },
      uptime_s: Math.round(process.uptime() * 10) / 10,
    };
    delay.reset();
    return figures;
  });
}

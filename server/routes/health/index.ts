import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { unavailable } from '../../errors';
import { documented } from '../../routeDoc';

const database = z.enum(['pglite', 'postgres']).describe('The database in use: embedded or PostgreSQL');
const health = documented('Health', { public: true });
/** A health check: its answer, and what its 503 means. */
const doc = (summary: string, answer: z.ZodType, down: string) => health(summary, 'public', { 200: answer }, { errors: { 503: down } });

export default async function healthRoutes(app: FastifyInstance) {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });

  /** Liveness: the process answers and its database does. */
  app.get(
    '/health',
    doc('Liveness: the process and its database answer', z.object({ status: z.literal('ok'), database }), 'The database is not answering'),
    async () => {
      try {
        await app.database.ping();
      } catch {
        throw unavailable('The database is not answering');
      }
      return { status: 'ok', database: app.database.kind };
    },
  );

  /**
   * Readiness, for a load balancer (docs/deployment.md): the database answers, the process hears
   * the change stream, and it is not shutting down. A process that lost the stream still answers
   * correctly (it reads everything again), but slower, so it is taken out of rotation until it
   * hears again.
   */
  app.get(
    '/health/ready',
    doc(
      'Readiness for a load balancer: the database answers, the change stream is heard, and the process is not shutting down',
      z.object({ status: z.literal('ready'), database, changes: z.literal('live') }),
      'Not ready: the database is not answering, the change stream is reconnecting, or the server is shutting down',
    ),
    async () => {
      if (closing) throw unavailable('The server is shutting down');
      try {
        await app.database.ping();
      } catch {
        throw unavailable('The database is not answering');
      }
      if (!app.database.changes.live) throw unavailable('The change stream is reconnecting');
      return { status: 'ready', database: app.database.kind, changes: 'live' };
    },
  );
}

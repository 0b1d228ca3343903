import type { FastifyInstance } from 'fastify';
import { unavailable } from '../../errors';

export default async function healthRoutes(app: FastifyInstance) {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });

  /** Liveness: the process answers and its database does. */
  app.get('/health', { config: { public: true } }, async () => {
    try {
      await app.database.ping();
    } catch {
      throw unavailable('The database is not answering');
    }
    return { status: 'ok', database: app.database.kind };
  });

  /**
   * Readiness, for a load balancer (docs/deployment.md): the database answers, the process hears
   * the change stream, and it is not shutting down. A process that lost the stream still answers
   * correctly (it reads everything again), but slower, so it is taken out of rotation until it
   * hears again.
   */
  app.get('/health/ready', { config: { public: true } }, async () => {
    if (closing) throw unavailable('The server is shutting down');
    try {
      await app.database.ping();
    } catch {
      throw unavailable('The database is not answering');
    }
    if (!app.database.changes.live) throw unavailable('The change stream is reconnecting');
    return { status: 'ready', database: app.database.kind, changes: 'live' };
  });
}

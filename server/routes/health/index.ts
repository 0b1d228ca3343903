import type { FastifyInstance } from 'fastify';
import { unavailable } from '../../errors';

export default async function healthRoutes(app: FastifyInstance) {
  app.get('/health', { config: { public: true } }, async () => {
    try {
      await app.database.ping();
    } catch {
      throw unavailable('The database is not answering');
    }
    return { status: 'ok', database: app.database.kind };
  });
}

import type { FastifyInstance } from 'fastify';
import authRoutes from './auth';
import healthRoutes from './health';
import serviceRoutes from './services';
import tenantRoutes from './tenants';

/** Every route folder, registered explicitly under /api. */
export const routeModules = [healthRoutes, authRoutes, serviceRoutes, tenantRoutes];

export async function registerRoutes(app: FastifyInstance): Promise<void> {
  for (const mod of routeModules) await app.register(mod, { prefix: '/api' });
}

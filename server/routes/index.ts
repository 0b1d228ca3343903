import type { FastifyInstance } from 'fastify';
import authRoutes from './auth';
import entraRoutes from './entra';
import healthRoutes from './health';
import serviceRoutes from './services';
import categoryRoutes from './categories';
import aspectRoutes from './aspects';
import availabilityRoutes from './availabilities';
import tenantRoutes from './tenants';
import adminRoutes from './admin';
import userRoutes from './users';
import impersonationRoutes from './impersonation';
import actorRoleRoutes from './actorRoles';
import quickTemplateRoutes from './quickTemplates';
import serviceUserRoutes from './serviceUsers';
import serviceRoleRoutes from './serviceRoles';
import snapshotRoutes from './snapshots';
import exportRoutes from './exports';
import servicePortabilityRoutes from './servicePortability';
import metricsRoutes from './metrics';
import auditRoutes from './audit';
import invitationRoutes from './invitations';
import eventRoutes from './events';
import publishingRoutes from './publishing';
import apiTokenRoutes from './apiTokens';
import webhookRoutes from './webhooks';

/** Every route folder, registered explicitly under /api. */
export const routeModules = [
  healthRoutes,
  authRoutes,
  entraRoutes,
  serviceRoutes,
  categoryRoutes,
  aspectRoutes,
  availabilityRoutes,
  tenantRoutes,
  adminRoutes,
  userRoutes,
  impersonationRoutes,
  actorRoleRoutes,
  quickTemplateRoutes,
  serviceUserRoutes,
  serviceRoleRoutes,
  snapshotRoutes,
  exportRoutes,
  servicePortabilityRoutes,
  metricsRoutes,
  auditRoutes,
  invitationRoutes,
  eventRoutes,
  publishingRoutes,
  apiTokenRoutes,
  webhookRoutes,
];

export async function registerRoutes(app: FastifyInstance): Promise<void> {
  for (const mod of routeModules) await app.register(mod, { prefix: '/api' });
}

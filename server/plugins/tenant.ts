import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { M } from '../../common/messages';
import { forbidden } from '../errors';
import { findTenantById, findTenantBySlug, type TenantRow } from '../db/queries/users';
import type { Actor } from './context';

export const TENANT_HEADER = 'x-tenant-slug';

/**
 * Resolves X-Tenant-Slug to the tenant a request works in and checks that the caller belongs to it
 * (a super admin belongs to every active tenant). Without the header the user's primary tenant is
 * used; while impersonating, the impersonation's tenant. Unknown and foreign slugs answer the same
 * 403, so a slug's existence does not leak. Members of an archived tenant cannot work in it.
 */
export const tenantPlugin = fp(async (app) => {
  app.decorateRequest('tenant', null);
  app.addHook('onRequest', async (req) => {
    if (!req.actor || req.routeOptions.config?.tenant === false) return;
    req.tenant = await resolveTenant(req, req.actor);
  });
});

export async function resolveTenant(req: FastifyRequest, actor: Actor): Promise<TenantRow> {
  const db = req.server.database.db;
  const raw = req.headers[TENANT_HEADER];
  const slug = typeof raw === 'string' ? raw.trim() : '';
  let tenant: TenantRow | undefined;
  if (slug) {
    tenant = await findTenantBySlug(db, slug);
  } else {
    tenant = await findTenantById(db, actor.impersonationTenantId ?? actor.user.tenantId);
  }
  if (!tenant || !isMember(actor, tenant.id)) throw forbidden(M.noTenantAccess);
  if (tenant.archived) throw forbidden(M.tenantArchived);
  return tenant;
}

export function isMember(actor: Actor, tenantId: string): boolean {
  return actor.superAdmin || actor.user.tenantIds.includes(tenantId);
}

import type { FastifyInstance } from 'fastify';
import { adminAuditQuerySchema, auditPageQuerySchema, auditPageSchema, AUDIT_PAGE_DEFAULT } from '../../../common/schemas/audit';
import { documented } from '../../openapi';
import { notFound } from '../../errors';
import { auditNames, listAudit, type AuditRow } from '../../db/queries/audit';
import { findTenantById } from '../../db/queries/users';
import { auditNameIds, presentAuditPage } from '../../presenters/audit';
import { requireActor, scope } from '../../plugins/context';
import { requirePlatform, requireTenant } from '../../policies';
import { parse } from '../../validation';

/** The audit log (CONTRACT section 5): a tenant admin reads their tenant's, a super admin any tenant's and the platform's. */
export default async function auditRoutes(app: FastifyInstance) {
  const db = () => app.database.db;

  /** A page in words: the names of what its entries name, read in one statement for the whole page. */
  const present = async (rows: AuditRow[], limit: number) => presentAuditPage(rows, limit, await auditNames(db(), auditNameIds(rows)));

  app.get(
    '/audit',
    documented('Audit')("A page of the tenant's audit log, newest first", 'tenant.users', { 200: auditPageSchema }, { query: auditPageQuerySchema }),
    async (req) => {
      const query = parse(auditPageQuerySchema, req.query);
      const { actor, tenantId } = scope(req);
      requireTenant(actor, 'tenant.users');
      const limit = query.limit ?? AUDIT_PAGE_DEFAULT;
      return present(await listAudit(db(), tenantId, { before: query.before, limit }), limit);
    },
  );

  app.get(
    '/admin/audit',
    documented('Audit', { tenant: false })(
      "A page of one tenant's audit log (tenantId), or of the platform's entries without it, newest first",
      'platform.manage',
      { 200: auditPageSchema },
      { query: adminAuditQuerySchema },
    ),
    async (req) => {
      const query = parse(adminAuditQuerySchema, req.query);
      requirePlatform(requireActor(req));
      if (query.tenantId && !(await findTenantById(db(), query.tenantId))) throw notFound();
      const limit = query.limit ?? AUDIT_PAGE_DEFAULT;
      return present(await listAudit(db(), query.tenantId ?? null, { before: query.before, limit }), limit);
    },
  );
}

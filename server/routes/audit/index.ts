import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import {
  adminAuditExportQuerySchema,
  adminAuditQuerySchema,
  AUDIT_CELLS_MAX,
  AUDIT_EXPORT_MAX,
  AUDIT_PAGE_DEFAULT,
  auditActorsSchema,
  auditCellsSchema,
  auditExportQuerySchema,
  auditPageQuerySchema,
  auditPageSchema,
  type AuditFilters,
} from '../../../common/schemas/audit';
import { documented } from '../../routeDoc';
import { notFound } from '../../errors';
import { auditNames, findAuditEntry, historyOfRequest, listAudit, listAuditActors, type AuditRow } from '../../db/queries/audit';
import { findTenantById } from '../../db/queries/users';
import { auditNameIds, presentAuditActors, presentAuditCells, presentAuditPage } from '../../presenters/audit';
import { auditCsv } from '../../commands/auditExport';
import { requireActor, scope } from '../../plugins/context';
import { requirePlatform, requireTenant } from '../../policies';
import { parse, queryOf } from '../../validation';

const entryId = z.object({
  id: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, { error: 'id must be an audit entry id' })
    .transform(Number),
});

const csvAnswer = {
  description: 'The entries as CSV, newest first',
  content: { 'text/csv': null },
  headers: { 'Content-Disposition': 'attachment; filename="audit-log.csv"' },
};

/**
 * The audit log (CONTRACT section 5): a tenant admin reads their tenant's, a super admin any
 * tenant's and the platform's; either narrows it by service, actor and kind of change, exports it
 * as CSV, and opens the cells a cell write's entry changed.
 */
export default async function auditRoutes(app: FastifyInstance) {
  const db = () => app.database.db;
  const doc = documented('Audit');
  const cross = documented('Audit', { tenant: false });

  /** Entries in words: the names of what they name, read in one statement for all of them. */
  const named = async (rows: AuditRow[]) => auditNames(db(), auditNameIds(rows));
  const present = async (rows: AuditRow[], limit: number) => presentAuditPage(rows, limit, await named(rows));
  const exportCsv = async (reply: FastifyReply, tenantId: string | null, filters: AuditFilters) => {
    const rows = await listAudit(db(), tenantId, { limit: AUDIT_EXPORT_MAX }, filters);
    const csv = auditCsv(presentAuditPage(rows, AUDIT_EXPORT_MAX, await named(rows)).entries);
    return reply.header('Content-Type', 'text/csv; charset=utf-8').header('Content-Disposition', 'attachment; filename="audit-log.csv"').send(csv);
  };
  const cellsOf = async (tenantId: string | null | undefined, id: number) => {
    const entry = await findAuditEntry(db(), tenantId, id);
    if (!entry?.requestId || !entry.tenantId) throw notFound();
    const rows = await historyOfRequest(db(), entry.tenantId, entry.requestId, AUDIT_CELLS_MAX + 1);
    return presentAuditCells(entry, rows, AUDIT_CELLS_MAX);
  };

  app.get(
    '/audit',
    doc("A page of the tenant's audit log, newest first, maybe narrowed", 'tenant.users', { 200: auditPageSchema }, { query: auditPageQuerySchema }),
    async (req) => {
      const { before, limit = AUDIT_PAGE_DEFAULT, ...filters } = queryOf(req);
      const { actor, tenantId } = scope(req);
      requireTenant(actor, 'tenant.users');
      return present(await listAudit(db(), tenantId, { before, limit }, filters), limit);
    },
  );

  app.get(
    '/audit/export',
    doc(
      `The tenant's audit log as CSV (at most ${AUDIT_EXPORT_MAX} entries), narrowed as a page is`,
      'tenant.users',
      { 200: csvAnswer },
      { query: auditExportQuerySchema },
    ),
    async (req, reply) => {
      const filters = queryOf(req);
      const { actor, tenantId } = scope(req);
      requireTenant(actor, 'tenant.users');
      return exportCsv(reply, tenantId, filters);
    },
  );

  app.get(
    '/audit/actors',
    doc("Everyone the tenant's audit log names as actor: people and API tokens", 'tenant.users', { 200: auditActorsSchema }),
    async (req) => {
      const { actor, tenantId } = scope(req);
      requireTenant(actor, 'tenant.users');
      return presentAuditActors(await listAuditActors(db(), tenantId));
    },
  );

  app.get(
    '/audit/:id/cells',
    doc("The cells a cell write's entry changed, as their history recorded them (404 for any other entry)", 'tenant.users', { 200: auditCellsSchema }),
    async (req) => {
      const { id } = parse(entryId, req.params);
      const { actor, tenantId } = scope(req);
      requireTenant(actor, 'tenant.users');
      return cellsOf(tenantId, id);
    },
  );

  app.get(
    '/admin/audit',
    cross(
      "A page of one tenant's audit log (tenantId), or of the platform's entries without it, newest first, maybe narrowed",
      'platform.manage',
      { 200: auditPageSchema },
      { query: adminAuditQuerySchema },
    ),
    async (req) => {
      const { before, limit = AUDIT_PAGE_DEFAULT, tenantId, ...filters } = queryOf(req);
      requirePlatform(requireActor(req));
      if (tenantId && !(await findTenantById(db(), tenantId))) throw notFound();
      return present(await listAudit(db(), tenantId ?? null, { before, limit }, filters), limit);
    },
  );

  app.get(
    '/admin/audit/export',
    cross("One tenant's audit log, or the platform's, as CSV", 'platform.manage', { 200: csvAnswer }, { query: adminAuditExportQuerySchema }),
    async (req, reply) => {
      const { tenantId, ...filters } = queryOf(req);
      requirePlatform(requireActor(req));
      if (tenantId && !(await findTenantById(db(), tenantId))) throw notFound();
      return exportCsv(reply, tenantId ?? null, filters);
    },
  );

  app.get(
    '/admin/audit/:id/cells',
    cross("The cells a cell write's entry of any tenant changed", 'platform.manage', { 200: auditCellsSchema }),
    async (req) => {
      const { id } = parse(entryId, req.params);
      requirePlatform(requireActor(req));
      return cellsOf(undefined, id);
    },
  );
}

import { seesPrivate } from '../../policies';
import type { FastifyInstance } from 'fastify';
import { csvQuerySchema } from '../../../common/schemas/settings';
import { exportServiceCsv, exportServiceFile } from '../../commands/exportService';
import { queryOf } from '../../validation';
import { serviceOf } from '../../plugins/context';
import { documented } from '../../routeDoc';
import { parseIdParam } from '../../commands/serviceWrites';

const doc = documented('Export');

/** CSV of the roadmap and the .catalog file of a service: editors and up. */
export default async function exportRoutes(app: FastifyInstance) {
  const db = () => app.database.db;

  app.get(
    '/export/service/:id/csv',
    doc(
      "A service's roadmap as CSV: Category, Aspect, Description, Public, then a column per quarter of its timeline; a row per public aspect, private ones too with showPrivate for those who may see them",
      'service.settings',
      {
        200: {
          description: 'The CSV file, named after the service slug',
          content: { 'text/csv': null },
          headers: { 'Content-Disposition': 'attachment; filename="<slug>.csv"' },
        },
      },
      { query: csvQuerySchema },
    ),
    async (req, reply) => {
      const id = parseIdParam(req.params);
      const query = queryOf(req);
      const ctx = await serviceOf(req, id, 'service.settings');
      // Readers never receive private aspects, whatever they ask for (CONTRACT section 4).
      const showPrivate = seesPrivate(ctx.permissions, query.showPrivate);
      const csv = await exportServiceCsv(db(), ctx.service, { showPrivate });
      return reply.header('Content-Type', 'text/csv; charset=utf-8').header('Content-Disposition', `attachment; filename="${ctx.service.slug}.csv"`).send(csv);
    },
  );

  app.get(
    '/services/:id/export',
    doc(
      'A service as a .catalog file (gzip-compressed JSON of the service, its content, actor roles and quick templates), to import into a tenant',
      'service.settings',
      {
        200: {
          description: 'The .catalog file, named after the service slug',
          content: { 'application/gzip': null },
          headers: { 'Content-Disposition': 'attachment; filename="<slug>.catalog"' },
        },
      },
    ),
    async (req, reply) => {
      const ctx = await serviceOf(req, parseIdParam(req.params), 'service.settings');
      const file = await exportServiceFile(db(), ctx.service);
      return reply.header('Content-Type', 'application/gzip').header('Content-Disposition', `attachment; filename="${ctx.service.slug}.catalog"`).send(file);
    },
  );
}

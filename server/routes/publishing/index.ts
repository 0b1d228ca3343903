import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { embedOriginsSchema } from '../../../common/schemas/publishing';
import { writeAudit } from '../../commands/audit';
import { getEmbedOrigins, setEmbedOrigins } from '../../db/queries/embedding';
import { scope } from '../../plugins/context';
import { requireAccessManager } from '../../policies';
import { bodyOf } from '../../validation';
import { documented, type RouteDoc } from '../../routeDoc';

const origins = z.object({ origins: z.array(z.string()) });
const doc = <E extends Partial<RouteDoc> = object>(summary: string, extra?: E) =>
  documented('Publishing')(summary, 'tenant.publishing (a person, never an API token)', { 200: origins }, extra);

/**
 * The tenant's publishing settings: the origins allowed to embed its public pages in a frame
 * (CSP frame-ancestors; none by default). Tenant admins only (docs/decisions/0120-public-pages.md).
 */
export default async function publishingRoutes(app: FastifyInstance) {
  const db = app.database.db;

  app.get('/publishing/embed-origins', doc("The origins allowed to embed the tenant's public pages in a frame"), async (req) => {
    const { actor, tenantId } = scope(req);
    requireAccessManager(actor, 'tenant.publishing');
    return { origins: await getEmbedOrigins(db, tenantId) };
  });

  app.put(
    '/publishing/embed-origins',
    doc("Replace the origins allowed to embed the tenant's public pages (none: no framing)", { body: embedOriginsSchema }),
    async (req) => {
      const { actor, tenantId } = scope(req);
      requireAccessManager(actor, 'tenant.publishing');
      const { origins } = bodyOf(req);
      const unique = [...new Set(origins)];
      await db.transaction(async (tx) => {
        await setEmbedOrigins(tx, tenantId, unique);
        await writeAudit(tx, actor, { tenantId, action: 'tenant.embed_origins', targetType: 'tenant', targetId: tenantId, details: { origins: unique } });
      });
      return { origins: unique };
    },
  );
}

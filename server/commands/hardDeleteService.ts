import { and, eq } from 'drizzle-orm';
import { M } from '../../common/messages';
import { SETTINGS_MESSAGES } from '../../common/schemas/settings';
import type { Executor } from '../db';
import { lockService } from '../db/queries/services';
import { services } from '../db/schema';
import { conflict, notFound } from '../errors';
import type { Actor } from '../plugins/context';
import { writeAudit } from './audit';

/** Removes an archived service and everything in it (children go by ON DELETE CASCADE). */
export async function hardDeleteService(db: Executor, actor: Actor, tenantId: string, serviceId: string) {
  await db.transaction(async (tx) => {
    const service = await lockService(tx, tenantId, serviceId);
    if (!service) throw notFound(M.serviceNotFound);
    if (!service.archived) throw conflict(SETTINGS_MESSAGES.notArchived);
    await tx.delete(services).where(and(eq(services.tenantId, tenantId), eq(services.id, serviceId)));
    await writeAudit(tx, actor, {
      tenantId,
      action: 'service.delete',
      targetType: 'service',
      targetId: serviceId,
      details: { name: service.name, slug: service.slug },
    });
  });
}

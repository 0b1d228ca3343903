import type { Executor } from '../db';
import { auditLog } from '../db/schema';
import type { Actor } from '../plugins/context';

export type AuditAction =
  | 'auth.login'
  | 'auth.login_failed'
  | 'auth.logout'
  | 'impersonation.start'
  | 'impersonation.stop'
  | 'user.create'
  | 'user.delete'
  | 'user.role_change'
  | 'user.memberships_change'
  | 'user.invite'
  | 'invitation.accept'
  | 'invitation.decline'
  | 'invitation.withdraw'
  | 'service.create'
  | 'service.import'
  | 'service.archive'
  | 'service.unarchive'
  | 'service.publish'
  | 'service.unpublish'
  | 'service.move'
  | 'service.delete'
  | 'service_role.assign'
  | 'service_role.change'
  | 'service_role.remove'
  | 'tenant.create'
  | 'tenant.update'
  | 'tenant.archive'
  | 'tenant.unarchive'
  | 'tenant.delete'
  | 'tenant.embed_origins'
  | 'category.delete'
  | 'aspect.move'
  | 'aspect.delete'
  | 'api_token.create'
  | 'api_token.revoke'
  | 'api_token.reissue'
  | 'webhook.create'
  | 'webhook.update'
  | 'webhook.delete'
  | 'webhook.disable'
  | 'availability.batch'
  | 'availability.csv_import';

export interface AuditEntry {
  tenantId: string | null;
  action: AuditAction;
  targetType?: string;
  targetId?: string;
  details?: Record<string, unknown>;
}

/** Writes one audit row naming the actor and, while impersonating, the super admin behind them. */
export async function writeAudit(db: Executor, actor: Actor | null, entry: AuditEntry & { actorId?: string; actorEmail?: string }) {
  await db.insert(auditLog).values({
    tenantId: entry.tenantId,
    actorId: actor?.user.id ?? entry.actorId ?? null,
    actorEmail: actor?.user.email ?? entry.actorEmail ?? null,
    impersonatorId: actor?.impersonator?.id ?? null,
    impersonatorEmail: actor?.impersonator?.email ?? null,
    action: entry.action,
    targetType: entry.targetType ?? null,
    targetId: entry.targetId ?? null,
    details: entry.details ?? null,
  });
}

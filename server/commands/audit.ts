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
  | 'service.update'
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
  | 'category.create'
  | 'category.update'
  | 'category.reorder'
  | 'category.delete'
  | 'aspect.create'
  | 'aspect.update'
  | 'aspect.reorder'
  | 'aspect.move'
  | 'aspect.delete'
  | 'actor_role.create'
  | 'actor_role.update'
  | 'actor_role.delete'
  | 'actor_role.reorder'
  | 'quick_template.create'
  | 'quick_template.update'
  | 'quick_template.delete'
  | 'quick_template.reorder'
  | 'snapshot.create'
  | 'api_token.create'
  | 'api_token.revoke'
  | 'api_token.reissue'
  | 'webhook.create'
  | 'webhook.update'
  | 'webhook.delete'
  | 'webhook.disable'
  | 'availability.set'
  | 'availability.batch'
  | 'availability.csv_import';

/** The system acting on its own: what it was doing, in words ("Webhook delivery", "Import"). */
export interface SystemActor {
  system: string;
}

/** Who an entry names: a person (maybe impersonated), an API token, the system, or nobody known (a failed sign-in). */
export type AuditActor = Actor | SystemActor | null;

/** The audit columns that name the actor, in the one shape every kind of actor fills. */
export function actorColumns(actor: AuditActor, fallback: { actorId?: string; actorEmail?: string } = {}) {
  if (actor && 'system' in actor) {
    return { actorKind: 'system' as const, actorId: null, actorEmail: null, actorName: actor.system, impersonatorId: null, impersonatorEmail: null };
  }
  if (actor?.apiToken) {
    const token = actor.apiToken;
    return { actorKind: 'api_token' as const, actorId: token.id, actorEmail: null, actorName: token.name, impersonatorId: null, impersonatorEmail: null };
  }
  return {
    actorKind: 'person' as const,
    actorId: actor?.user.id ?? fallback.actorId ?? null,
    actorEmail: actor?.user.email ?? fallback.actorEmail ?? null,
    actorName: actor?.user.name || null,
    impersonatorId: actor?.impersonator?.id ?? null,
    impersonatorEmail: actor?.impersonator?.email ?? null,
  };
}

/** The service an entry concerns: its target when that is a service, else the one its details name. */
export function serviceOfEntry(entry: Pick<AuditEntry, 'targetType' | 'targetId' | 'details' | 'serviceId'>): string | null {
  if (entry.serviceId) return entry.serviceId;
  if (entry.targetType === 'service' && entry.targetId) return entry.targetId;
  const named = entry.details?.serviceId;
  return typeof named === 'string' && named ? named : null;
}

export interface AuditEntry {
  tenantId: string | null;
  action: AuditAction;
  targetType?: string;
  targetId?: string;
  details?: Record<string, unknown>;
  /** The service the entry concerns, where neither its target nor its details name it. */
  serviceId?: string;
  /** The request of a cell write, which its cells' history rows carry. */
  requestId?: string;
}

/** Writes one audit row naming the actor and, while impersonating, the super admin behind them. */
export async function writeAudit(db: Executor, actor: AuditActor, entry: AuditEntry & { actorId?: string; actorEmail?: string }) {
  await db.insert(auditLog).values({
    tenantId: entry.tenantId,
    ...actorColumns(actor, entry),
    serviceId: serviceOfEntry(entry),
    requestId: entry.requestId ?? null,
    action: entry.action,
    targetType: entry.targetType ?? null,
    targetId: entry.targetId ?? null,
    details: entry.details ?? null,
  });
}

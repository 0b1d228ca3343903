import { concernsTenant, type Change } from '../db/changes';
import type { PolicyActor } from './decide';

/**
 * Whether a live-update stream hears a change (its events carry ids, never content): a change of
 * the stream's tenant, one about the caller themself, or, for a super admin, any tenant's change of
 * who may do what (`access`: the tables the admin pages list).
 */
export function streamHears(actor: PolicyActor, tenantId: string, change: Change, access: boolean): boolean {
  if (change.table === '*') return true;
  if (concernsTenant(change, tenantId)) return true;
  if (access && actor.superAdmin) return true;
  return change.users !== null && change.users.includes(actor.userId);
}

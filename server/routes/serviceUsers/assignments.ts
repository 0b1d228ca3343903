import type { Role } from '../../../common/roles';
import { SETTINGS_MESSAGES } from '../../../common/schemas/settings';
import { writeAudit } from '../../commands/audit';
import type { Executor } from '../../db';
import type { ServiceRow } from '../../db/queries/services';
import { deleteAssignment, findAssignment, insertAssignment, updateAssignmentRole, type AssignmentRow } from '../../db/queries/settings';
import { conflict } from '../../errors';
import type { Actor } from '../../plugins/context';

interface Ctx {
  service: ServiceRow;
  tenantId: string;
  actor: Actor;
}

/**
 * Assigns a person of the tenant (the account's id) to the service, with its audit row, in one
 * transaction. The audit names them by the id the tenant's admins know them by (the invitation's
 * while one is pending: decision 0110).
 */
export async function assign(db: Executor, ctx: Ctx, accountId: string, role: Role): Promise<AssignmentRow> {
  return db.transaction(async (tx) => {
    const created = await insertAssignment(tx, ctx.tenantId, ctx.service.id, accountId, role);
    if (!created) throw conflict(SETTINGS_MESSAGES.alreadyAssigned);
    const row = (await findAssignment(tx, ctx.tenantId, { id: created.id }))!;
    await writeAudit(tx, ctx.actor, {
      tenantId: ctx.tenantId,
      action: 'service_role.assign',
      targetType: 'service',
      targetId: ctx.service.id,
      details: { userId: row.userId, email: row.userEmail, role },
    });
    return row;
  });
}

export async function changeRole(db: Executor, ctx: Ctx, current: AssignmentRow, role: Role): Promise<AssignmentRow> {
  return db.transaction(async (tx) => {
    await updateAssignmentRole(tx, ctx.tenantId, current.id, role);
    await writeAudit(tx, ctx.actor, {
      tenantId: ctx.tenantId,
      action: 'service_role.change',
      targetType: 'service',
      targetId: ctx.service.id,
      details: { userId: current.userId, email: current.userEmail, from: current.role, to: role },
    });
    return { ...current, role };
  });
}

export async function removeAssignment(db: Executor, ctx: Ctx, current: AssignmentRow): Promise<void> {
  await db.transaction(async (tx) => {
    await deleteAssignment(tx, ctx.tenantId, current.id);
    await writeAudit(tx, ctx.actor, {
      tenantId: ctx.tenantId,
      action: 'service_role.remove',
      targetType: 'service',
      targetId: ctx.service.id,
      details: { userId: current.userId, email: current.userEmail, role: current.role },
    });
  });
}

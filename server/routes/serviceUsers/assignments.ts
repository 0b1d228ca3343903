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

/** Assigns a tenant member to the service, with its audit row, in one transaction. */
export async function assign(db: Executor, ctx: Ctx, userId: string, role: Role): Promise<AssignmentRow> {
  return db.transaction(async (tx) => {
    const created = await insertAssignment(tx, ctx.tenantId, ctx.service.id, userId, role);
    if (!created) throw conflict(SETTINGS_MESSAGES.alreadyAssigned);
    await writeAudit(tx, ctx.actor, {
      tenantId: ctx.tenantId,
      action: 'service_role.assign',
      targetType: 'service',
      targetId: ctx.service.id,
      details: { userId, role },
    });
    const row = await findAssignment(tx, ctx.tenantId, { id: created.id });
    return row!;
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
      details: { userId: current.userId, from: current.role, to: role },
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
      details: { userId: current.userId, role: current.role },
    });
  });
}

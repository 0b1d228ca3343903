import type { ActorRoleRow, AssignmentRow, QuickTemplateRow, SnapshotRow } from '../db/queries/settings';

export function presentActorRole(r: ActorRoleRow) {
  return { id: r.id, role_name: r.roleName, position: r.position };
}

export function presentQuickTemplate(t: QuickTemplateRow) {
  return { id: t.id, template_text: t.templateText, position: t.position };
}

/** A service role assignment: separate from the user's own role (spec section 3). */
export function presentAssignment(a: AssignmentRow) {
  return {
    id: a.id,
    service_id: a.serviceId,
    user_id: a.userId,
    user_email: a.userEmail,
    user_name: a.userName,
    role: a.role,
    created_at: a.createdAt.toISOString(),
  };
}

export function presentTenantUser(u: { id: string; name: string; email: string; role: string }) {
  return { id: u.id, name: u.name, email: u.email, role: u.role };
}

type SnapshotSummary = Omit<SnapshotRow, 'data' | 'tenantId'>;

export function presentSnapshotSummary(s: SnapshotSummary) {
  return {
    id: s.id,
    service_id: s.serviceId,
    label: s.label,
    visibility: s.visibility,
    note: s.note,
    created_by: s.createdBy,
    created_at: s.createdAt.toISOString(),
  };
}

export function presentSnapshot(s: SnapshotRow) {
  return { ...presentSnapshotSummary(s), data: s.data };
}

import type { AuditNameIds, AuditNameKind, AuditRow, historyOfRequest, listAuditActors } from '../db/queries/audit';
import { nextBefore } from './paging';

/** Each action in words, as the audit log shows it; an action missing here shows as recorded. */
const ACTION_LABELS: Record<string, string> = {
  'auth.login': 'Signed in',
  'auth.login_failed': 'Failed to sign in',
  'auth.logout': 'Signed out',
  'impersonation.start': 'Started impersonating',
  'impersonation.stop': 'Stopped impersonating',
  'user.create': 'Created user',
  'user.delete': 'Deleted user',
  'user.role_change': 'Changed the role of',
  'user.memberships_change': 'Changed the tenants of',
  'user.invite': 'Invited',
  'invitation.accept': 'Accepted an invitation',
  'invitation.decline': 'Declined an invitation',
  'invitation.withdraw': 'Withdrew an invitation',
  'service.create': 'Created service',
  'service.update': 'Changed service',
  'service.import': 'Imported service',
  'service.archive': 'Archived service',
  'service.unarchive': 'Unarchived service',
  'service.publish': 'Published service',
  'service.unpublish': 'Unpublished service',
  'service.move': 'Moved service to another tenant',
  'service.delete': 'Permanently deleted service',
  'service_role.assign': 'Assigned a role on service',
  'service_role.change': 'Changed a role on service',
  'service_role.remove': 'Removed a role on service',
  'tenant.create': 'Created tenant',
  'tenant.update': 'Renamed tenant',
  'tenant.archive': 'Archived tenant',
  'tenant.unarchive': 'Unarchived tenant',
  'tenant.delete': 'Deleted tenant',
  'tenant.embed_origins': 'Changed the origins allowed to embed public pages of',
  'category.create': 'Created category',
  'category.update': 'Changed category',
  'category.reorder': 'Reordered the categories of service',
  'category.delete': 'Deleted category',
  'aspect.create': 'Created aspect',
  'aspect.update': 'Changed aspect',
  'aspect.reorder': 'Reordered the aspects of',
  'aspect.move': 'Moved aspect',
  'aspect.delete': 'Deleted aspect',
  'actor_role.create': 'Added an actor role to service',
  'actor_role.update': 'Changed an actor role of service',
  'actor_role.delete': 'Deleted an actor role of service',
  'actor_role.reorder': 'Reordered the actor roles of service',
  'quick_template.create': 'Added a quick template to service',
  'quick_template.update': 'Changed a quick template of service',
  'quick_template.delete': 'Deleted a quick template of service',
  'quick_template.reorder': 'Reordered the quick templates of service',
  'snapshot.create': 'Took a snapshot of service',
  'api_token.create': 'Created API token',
  'api_token.revoke': 'Revoked API token',
  'api_token.reissue': 'Re-issued API token',
  'webhook.create': 'Created webhook',
  'webhook.update': 'Changed webhook',
  'webhook.delete': 'Deleted webhook',
  'webhook.disable': 'Disabled webhook after failing for a day',
  'availability.set': 'Changed a cell of service',
  'availability.batch': 'Changed availabilities of service',
  'availability.csv_import': 'Imported a CSV into service',
};

/** The table that holds each target type's records. */
const TARGET_KINDS: Record<string, AuditNameKind> = {
  user: 'users',
  tenant: 'tenants',
  service: 'services',
  category: 'categories',
  aspect: 'aspects',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const text = (value: unknown): string | null => (typeof value === 'string' && value ? value : null);
const textList = (value: unknown): string[] | null => (Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : null);

/** A cell a cell write's entry names: its aspect and quarter. */
function cellOf(value: unknown): { aspectId: string; timeBucket: string } | null {
  if (!value || typeof value !== 'object') return null;
  const { aspectId, timeBucket } = value as { aspectId?: unknown; timeBucket?: unknown };
  return typeof aspectId === 'string' && typeof timeBucket === 'string' ? { aspectId, timeBucket } : null;
}

/** Where a cell write's cells lie, in words: "Security 2030-Q1", or "Security 2030-Q1 to Support 2031-Q2 (4 aspects, 2030-Q1 to 2031-Q4)". */
function cellRangeText(d: Record<string, unknown>, names: Names): string | null {
  const first = cellOf(d.first);
  const last = cellOf(d.last);
  if (!first || !last) return null;
  const cell = (c: { aspectId: string; timeBucket: string }) => `${nameOf(names, 'aspects', c.aspectId) ?? 'a deleted aspect'} ${c.timeBucket}`;
  if (first.aspectId === last.aspectId && first.timeBucket === last.timeBucket && d.count === 1) return cell(first);
  const quarters = textList(d.quarters);
  const aspects = typeof d.aspects === 'number' ? `${d.aspects} aspect${d.aspects === 1 ? '' : 's'}` : null;
  const span = quarters?.length === 2 ? (quarters[0] === quarters[1] ? quarters[0] : `${quarters[0]} to ${quarters[1]}`) : null;
  const extent = [aspects, span].filter(Boolean).join(', ');
  return `${cell(first)} to ${cell(last)}${extent ? ` (${extent})` : ''}`;
}

/** One change an entry records, in words: `from` or `to` is null where the entry holds only one side. */
export interface AuditChange {
  label: string;
  from: string | null;
  to: string | null;
}

/** The ids of the records each entry names: its actor, its target and those its details point at. */
function idsOf(row: AuditRow): [AuditNameKind, string][] {
  const d = row.details ?? {};
  const out: [AuditNameKind, string | null][] = [
    ['users', row.actorId],
    ['users', row.impersonatorId],
    ['tenants', row.tenantId],
    ['services', text(d.serviceId)],
    ['users', text(d.userId)],
    ['tenants', text(d.fromTenantId)],
    ['tenants', text(d.toTenantId)],
  ];
  const kind = row.targetType ? TARGET_KINDS[row.targetType] : undefined;
  if (kind) out.push([kind, row.targetId]);
  out.push(['aspects', text(d.aspectId)], ['aspects', cellOf(d.first)?.aspectId ?? null], ['aspects', cellOf(d.last)?.aspectId ?? null]);
  if (row.action === 'user.memberships_change') for (const id of [...(textList(d.from) ?? []), ...(textList(d.to) ?? [])]) out.push(['tenants', id]);
  return out.filter((pair): pair is [AuditNameKind, string] => pair[1] !== null && UUID.test(pair[1]));
}

/** Every id a page of entries names, by table, each once. */
export function auditNameIds(rows: AuditRow[]): AuditNameIds {
  const sets: Record<AuditNameKind, Set<string>> = { users: new Set(), tenants: new Set(), services: new Set(), categories: new Set(), aspects: new Set() };
  for (const row of rows) for (const [kind, id] of idsOf(row)) sets[kind].add(id.toLowerCase());
  return {
    users: [...sets.users],
    tenants: [...sets.tenants],
    services: [...sets.services],
    categories: [...sets.categories],
    aspects: [...sets.aspects],
  };
}

type Names = Map<string, string>;
const nameOf = (names: Names, kind: AuditNameKind, id: string | null | undefined) => (id ? (names.get(`${kind}:${id.toLowerCase()}`) ?? null) : null);

/** The target's name: its current one, else what the entry recorded of it (a deleted record keeps only that). */
function targetName(row: AuditRow, names: Names): string | null {
  const d = row.details ?? {};
  const kind = row.targetType ? TARGET_KINDS[row.targetType] : undefined;
  const current = kind ? nameOf(names, kind, row.targetId) : null;
  return current ?? text(d.title) ?? text(d.name) ?? text(d.impersonatedUserEmail) ?? text(d.email) ?? text(d.slug);
}

/** What changed, where the details carry it. */
function changesOf(row: AuditRow, names: Names): AuditChange[] {
  const d = row.details ?? {};
  const tenantNames = (ids: string[] | null) => (ids ? ids.map((id) => nameOf(names, 'tenants', id) ?? id).join(', ') || 'none' : null);
  // A person by their current name, else the email the entry recorded of them.
  const person = nameOf(names, 'users', text(d.userId)) ?? text(d.email) ?? (text(d.userId) ? 'a person no longer in the tenant' : null);
  switch (row.action) {
    case 'user.role_change':
      return [{ label: 'Role', from: text(d.from), to: text(d.to) }];
    case 'user.memberships_change':
      return [{ label: 'Tenants', from: tenantNames(textList(d.from)), to: tenantNames(textList(d.to)) }];
    case 'tenant.update':
      return [{ label: 'Name', from: text(d.from), to: text(d.to) }];
    case 'aspect.move': {
      const side = (v: unknown) => (v && typeof v === 'object' ? text((v as { name?: unknown }).name) : null);
      const fields = textList(d.fields);
      const also: AuditChange[] = fields?.length ? [{ label: 'Changed', from: null, to: fields.join(', ') }] : [];
      return [{ label: 'Category', from: side(d.from), to: side(d.to) }, ...also];
    }
    case 'service.move':
      return [{ label: 'Tenant', from: nameOf(names, 'tenants', text(d.fromTenantId)), to: nameOf(names, 'tenants', text(d.toTenantId)) }];
    case 'service_role.assign':
      return [
        { label: 'User', from: null, to: person },
        { label: 'Role', from: null, to: text(d.role) },
      ];
    case 'service_role.change':
      return [
        { label: 'User', from: null, to: person },
        { label: 'Role', from: text(d.from), to: text(d.to) },
      ];
    case 'service_role.remove':
      return [
        { label: 'User', from: null, to: person },
        { label: 'Role', from: text(d.role), to: null },
      ];
    case 'availability.set':
    case 'availability.batch':
    case 'availability.csv_import': {
      const out: AuditChange[] = typeof d.count === 'number' ? [{ label: 'Cells changed', from: null, to: String(d.count) }] : [];
      const range = cellRangeText(d, names);
      if (range) out.push({ label: 'Cells', from: null, to: range });
      if (row.action === 'availability.set' && typeof d.value === 'string') out.push({ label: 'Text', from: text(d.from), to: d.value });
      return out;
    }
    case 'service.update':
    case 'category.update':
    case 'aspect.update':
    case 'actor_role.update':
    case 'quick_template.update': {
      const label = row.action === 'aspect.update' ? 'Title' : row.action.endsWith('category.update') || row.action === 'service.update' ? 'Name' : 'Text';
      const out: AuditChange[] = text(d.from) !== null || text(d.to) !== null ? [{ label, from: text(d.from), to: text(d.to) }] : [];
      const fields = textList(d.fields)?.filter((f) => f !== 'name' && f !== 'title');
      if (fields?.length) out.push({ label: 'Changed', from: null, to: fields.join(', ') });
      return out;
    }
    case 'actor_role.create':
    case 'quick_template.create':
      return [{ label: 'Text', from: null, to: text(d.text) }];
    case 'actor_role.delete':
    case 'quick_template.delete':
      return [{ label: 'Text', from: text(d.text), to: null }];
    case 'snapshot.create':
      return [{ label: 'Snapshot', from: null, to: text(d.label) }];
    case 'user.create':
    case 'user.invite':
      return text(d.role) ? [{ label: 'Role', from: null, to: text(d.role) }] : [];
    default:
      return [];
  }
}

/** Who acted, in words: a person, "X impersonating Y", an API token by name, or the system. */
function actorLabel(row: AuditRow, names: Names): string {
  if (row.actorKind === 'api_token') return `API token "${row.actorName ?? ''}"`;
  if (row.actorKind === 'system') return `System (${row.actorName ?? 'automatic'})`;
  const person = nameOf(names, 'users', row.actorId) ?? row.actorName ?? row.actorEmail ?? '';
  if (!row.impersonatorId && !row.impersonatorEmail) return person;
  const boss = nameOf(names, 'users', row.impersonatorId) ?? row.impersonatorEmail ?? '';
  return `${boss} impersonating ${person}`;
}

/**
 * An audit entry as recorded (ids and raw details, for those who ask) and in words: who did it,
 * what, to what by name, and what changed.
 */
export function presentAuditEntry(row: AuditRow, names: Names = new Map()) {
  const d = row.details ?? {};
  const serviceId = row.targetType === 'service' ? null : text(d.serviceId);
  return {
    id: row.id,
    tenant_id: row.tenantId,
    actor_email: row.actorEmail,
    impersonator_email: row.impersonatorEmail,
    action: row.action,
    target_type: row.targetType,
    target_id: row.targetId,
    details: row.details ?? null,
    created_at: row.createdAt.toISOString(),
    actor_kind: row.actorKind,
    actor_name: row.actorKind === 'person' ? (nameOf(names, 'users', row.actorId) ?? row.actorName) : row.actorName,
    actor_label: actorLabel(row, names),
    service_id: row.serviceId,
    /** Set on a cell write: GET /audit/{id}/cells gives its cells' history rows. */
    request_id: row.requestId,
    impersonator_name: nameOf(names, 'users', row.impersonatorId),
    tenant_name: nameOf(names, 'tenants', row.tenantId),
    action_label: ACTION_LABELS[row.action] ?? row.action,
    target_name: targetName(row, names),
    /** The service an aspect or category (or a role on it) belongs to. */
    service_name: serviceId ? nameOf(names, 'services', serviceId) : null,
    changes: changesOf(row, names),
  };
}

/** A page of entries and the cursor of the next (older) page, null on the last one. */
export function presentAuditPage(rows: AuditRow[], limit: number, names: Names = new Map()) {
  return { entries: rows.map((row) => presentAuditEntry(row, names)), next_before: nextBefore(rows, limit, (r) => r.id) };
}

/** The actors of a tenant's log, for the filter, by the label the log shows them with. */
export function presentAuditActors(rows: Awaited<ReturnType<typeof listAuditActors>>) {
  const label = (r: (typeof rows)[number]) => (r.kind === 'api_token' ? `API token "${r.name ?? ''}"` : (r.name ?? r.email ?? r.id));
  const actors = rows.map((r) => ({ id: r.id, kind: r.kind, label: label(r) }));
  return { actors: actors.sort((a, b) => a.label.localeCompare(b.label)) };
}

/** The cells a cell write's entry changed, as their history rows recorded them. */
export function presentAuditCells(entry: AuditRow, rows: Awaited<ReturnType<typeof historyOfRequest>>, max: number) {
  return {
    entry_id: entry.id,
    service_id: entry.serviceId,
    cells: rows.slice(0, max).map((r) => ({
      id: r.id,
      aspect_id: r.aspectId,
      aspect_title: r.aspectTitle,
      time_bucket: r.timeBucket,
      value: r.value,
      changed_by: r.changedBy,
      changed_at: r.changedAt.toISOString(),
    })),
    truncated: rows.length > max,
  };
}

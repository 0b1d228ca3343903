import { stringify } from 'csv-stringify/sync';
import type { presentAuditEntry } from '../presenters/audit';
import { neutraliseCell } from './exportService';

type Entry = ReturnType<typeof presentAuditEntry>;

/**
 * Audit entries as CSV, in words as the audit log shows them, with the recorded action, target and
 * details for those who filter further; a cell a spreadsheet would take for a formula is quoted,
 * and a byte order mark makes Excel read it as UTF-8 (as the roadmap's CSV).
 */
export function auditCsv(entries: Entry[]): string {
  const rows: string[][] = [['Time', 'Actor', 'Actor kind', 'Action', 'Target', 'Service', 'Changes', 'Action code', 'Target id', 'Details']];
  for (const e of entries) {
    const changes = e.changes.map((c) => `${c.label}: ${[c.from, c.to].filter((v) => v !== null).join(' -> ')}`).join('; ');
    rows.push([
      e.created_at,
      e.actor_label,
      e.actor_kind,
      e.action_label,
      e.target_name ?? e.target_type ?? '',
      e.service_name ?? '',
      changes,
      e.action,
      e.target_id ?? '',
      e.details ? JSON.stringify(e.details) : '',
    ]);
  }
  return `\uFEFF${stringify(
    rows.map((r) => r.map(neutraliseCell)),
    { record_delimiter: '\r\n', quoted_match: /[",\r\n]/ },
  )}`;
}

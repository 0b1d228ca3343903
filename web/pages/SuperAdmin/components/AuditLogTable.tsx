import { Button, Code, Group, Table, Text } from '@mantine/core';
import type { AuditEntry } from '../../../api/audit';

const formatTime = (iso: string) => new Date(iso).toLocaleString();

function target(entry: AuditEntry): string {
  if (!entry.target_type) return '';
  return entry.target_id ? `${entry.target_type} ${entry.target_id}` : entry.target_type;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value ? value : null);

const ENDINGS: Record<string, string> = { signed_out: ' (signed out)', replaced: ' (a new impersonation started)' };

/** An impersonation row in words, so that a tenant's admins read who impersonated whom and why. */
function impersonationSummary(entry: AuditEntry): { line: string; reason: string | null } | null {
  if (!entry.action.startsWith('impersonation.') || !entry.details) return null;
  const who = text(entry.details.superAdminEmail);
  const whom = text(entry.details.impersonatedUserEmail);
  if (!who || !whom) return null;
  const line =
    entry.action === 'impersonation.start'
      ? `${who} impersonated ${whom}`
      : `${who} stopped impersonating ${whom}${ENDINGS[text(entry.details.ended) ?? ''] ?? ''}`;
  return { line, reason: text(entry.details.reason) };
}

function Details({ entry }: { entry: AuditEntry }) {
  const summary = impersonationSummary(entry);
  if (summary) {
    return (
      <>
        <Text size="sm">{summary.line}</Text>
        {summary.reason ? <Text size="sm">Reason: {summary.reason}</Text> : null}
      </>
    );
  }
  return entry.details ? <Code>{JSON.stringify(entry.details)}</Code> : null;
}

export interface AuditLogTableProps {
  entries: AuditEntry[];
  loading: boolean;
  hasMore: boolean;
  loadingMore: boolean;
  onLoadMore: () => void;
}

/** The audit log, newest first, with 'Load more' for older entries. */
export function AuditLogTable({ entries, loading, hasMore, loadingMore, onLoadMore }: AuditLogTableProps) {
  return (
    <>
      <Table.ScrollContainer minWidth={760}>
        <Table striped highlightOnHover aria-label="Audit log entries">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Time</Table.Th>
              <Table.Th>Action</Table.Th>
              <Table.Th>Actor</Table.Th>
              <Table.Th>Impersonated by</Table.Th>
              <Table.Th>Target</Table.Th>
              <Table.Th>Details</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {entries.map((e) => (
              <Table.Tr key={e.id}>
                <Table.Td>{formatTime(e.created_at)}</Table.Td>
                <Table.Td>{e.action}</Table.Td>
                <Table.Td>{e.actor_email ?? ''}</Table.Td>
                <Table.Td>{e.impersonator_email ?? ''}</Table.Td>
                <Table.Td>{target(e)}</Table.Td>
                <Table.Td>
                  <Details entry={e} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {loading ? <Text c="dimmed">Loading audit log...</Text> : null}
      {!loading && entries.length === 0 ? <Text c="dimmed">No audit entries yet.</Text> : null}
      {hasMore ? (
        <Group justify="center" mt="sm">
          <Button variant="default" onClick={onLoadMore} loading={loadingMore}>
            Load more
          </Button>
        </Group>
      ) : null}
    </>
  );
}

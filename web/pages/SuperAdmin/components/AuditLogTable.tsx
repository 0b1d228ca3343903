import { Button, Code, Group, Table, Text } from '@mantine/core';
import type { AuditEntry } from '../../../api/audit';

const formatTime = (iso: string) => new Date(iso).toLocaleString();

function target(entry: AuditEntry): string {
  if (!entry.target_type) return '';
  return entry.target_id ? `${entry.target_type} ${entry.target_id}` : entry.target_type;
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
                <Table.Td>{e.details ? <Code>{JSON.stringify(e.details)}</Code> : null}</Table.Td>
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

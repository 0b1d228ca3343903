import { Button, Code, Group, Stack, Table, Text } from '@mantine/core';
import type { InfiniteData, UseInfiniteQueryResult } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { M } from '../../common/messages';
import type { AuditEntry } from '../api/audit';
import { messageOf } from '../api/client';
import { MessageBar } from './MessageBar';
import { AuditCellsModal } from './AuditCellsModal';

const formatTime = (iso: string) => new Date(iso).toLocaleString();

/** Target types in words. */
const TARGET_WORDS: Record<string, string> = {
  user: 'User',
  tenant: 'Tenant',
  service: 'Service',
  category: 'Category',
  aspect: 'Aspect',
  invitation: 'Invitation',
};

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

/** A person by name, with the email under it when both are known. */
function Person({ name, email }: { name: string | null; email: string | null }) {
  if (!name) return <>{email ?? ''}</>;
  return (
    <>
      <Text size="sm">{name}</Text>
      {email && email !== name ? (
        <Text size="xs" c="dimmed">
          {email}
        </Text>
      ) : null}
    </>
  );
}

function Target({ entry }: { entry: AuditEntry }) {
  if (!entry.target_type) return null;
  const kind = TARGET_WORDS[entry.target_type] ?? entry.target_type;
  return (
    <>
      <Text size="sm">{entry.target_name ?? kind}</Text>
      <Text size="xs" c="dimmed">
        {entry.target_name ? kind : null}
        {entry.service_name ? `${entry.target_name ? ' in ' : 'In '}${entry.service_name}` : null}
      </Text>
    </>
  );
}

/** Who acted: a person by name with their email under it, else the entry's words (a token, the system). */
function Actor({ entry }: { entry: AuditEntry }) {
  if (entry.actor_kind !== 'person') return <Text size="sm">{entry.actor_label}</Text>;
  return <Person name={entry.actor_name} email={entry.actor_email} />;
}

/** What changed (from -> to), or an impersonation in words; a cell write opens its cells. */
function Changes({ entry, onOpenCells }: { entry: AuditEntry; onOpenCells: (entry: AuditEntry) => void }) {
  const summary = impersonationSummary(entry);
  if (summary) {
    return (
      <>
        <Text size="sm">{summary.line}</Text>
        {summary.reason ? <Text size="sm">Reason: {summary.reason}</Text> : null}
      </>
    );
  }
  return (
    <>
      {entry.changes.map((change) => (
        <Text size="sm" key={change.label}>
          {change.label}: {change.from ?? ''}
          {change.from !== null && change.to !== null ? ' → ' : ''}
          {change.to ?? ''}
          {change.from !== null && change.to === null ? ' (removed)' : ''}
        </Text>
      ))}
      {entry.request_id ? (
        <Button variant="light" size="compact-sm" mt={4} onClick={() => onOpenCells(entry)}>
          Open cells
        </Button>
      ) : null}
    </>
  );
}

/** The entry as recorded (ids and raw details), shown only when asked for. */
function RecordDisclosure({ entry }: { entry: AuditEntry }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <>
      <Button variant="subtle" size="compact-sm" aria-expanded={open} aria-controls={id} onClick={() => setOpen((o) => !o)}>
        {open ? 'Hide details' : 'Details'}
      </Button>
      <div id={id} hidden={!open}>
        {open ? (
          <Stack gap={2} mt={4}>
            <Text size="xs">Action: {entry.action}</Text>
            {entry.target_type ? (
              <Text size="xs">
                Target: {entry.target_type} {entry.target_id ?? ''}
              </Text>
            ) : null}
            {entry.tenant_id ? (
              <Text size="xs">
                Tenant: {entry.tenant_name ? `${entry.tenant_name} ` : ''}
                {entry.tenant_id}
              </Text>
            ) : null}
            {entry.details ? <Code block>{JSON.stringify(entry.details, null, 2)}</Code> : null}
          </Stack>
        ) : null}
      </div>
    </>
  );
}

export interface AuditLogTableProps {
  /** The pages of a log (a tenant's, or the one the super admin chose), newest first. */
  audit: UseInfiniteQueryResult<InfiniteData<{ entries: AuditEntry[] }>>;
  /** The super admin panel's log: cells open through the panel's own route. */
  panel?: boolean;
}

/**
 * The audit log, newest first, in words; each entry's ids and raw details on demand; 'Load more'
 * for older entries. A failure to load shows in the dismissible message bar above it.
 */
export function AuditLogTable({ audit, panel = false }: AuditLogTableProps) {
  const [dismissed, setDismissed] = useState(false);
  const [cellsOf, setCellsOf] = useState<AuditEntry | null>(null);
  const entries = audit.data?.pages.flatMap((p) => p.entries) ?? [];
  const loading = audit.isLoading;
  const error = audit.isError && !dismissed ? messageOf(audit.error, M.failedLoadData) : null;
  return (
    <>
      <MessageBar message={error} onClose={() => setDismissed(true)} />
      <Table.ScrollContainer minWidth={860}>
        <Table striped highlightOnHover aria-label="Audit log entries">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Time</Table.Th>
              <Table.Th>Action</Table.Th>
              <Table.Th>Actor</Table.Th>
              <Table.Th>Impersonated by</Table.Th>
              <Table.Th>Target</Table.Th>
              <Table.Th>Changes</Table.Th>
              <Table.Th>Details</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {entries.map((e) => (
              <Table.Tr key={e.id}>
                <Table.Td>{formatTime(e.created_at)}</Table.Td>
                <Table.Td>{e.action_label ?? e.action}</Table.Td>
                <Table.Td>
                  <Actor entry={e} />
                </Table.Td>
                <Table.Td>
                  <Person name={e.impersonator_name} email={e.impersonator_email} />
                </Table.Td>
                <Table.Td>
                  <Target entry={e} />
                </Table.Td>
                <Table.Td>
                  <Changes entry={e} onOpenCells={setCellsOf} />
                </Table.Td>
                <Table.Td>
                  <RecordDisclosure entry={e} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <AuditCellsModal entry={cellsOf} panel={panel} onClose={() => setCellsOf(null)} />
      {loading ? <Text c="dimmed">Loading audit log...</Text> : null}
      {!loading && entries.length === 0 ? <Text c="dimmed">No audit entries yet.</Text> : null}
      {audit.hasNextPage ? (
        <Group justify="center" mt="sm">
          <Button variant="default" onClick={() => void audit.fetchNextPage()} loading={audit.isFetchingNextPage}>
            Load more
          </Button>
        </Group>
      ) : null}
    </>
  );
}

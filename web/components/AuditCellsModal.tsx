import { Button, Group, Loader, Stack, Table, Text } from '@mantine/core';
import { Fragment, useState } from 'react';
import { useAuditCells, type AuditEntry } from '../api/audit';
import { messageOf } from '../api/client';
import { CatalogModal } from './CatalogModal';
import { HistoryList } from './grid/CellHistory';

/**
 * The cells a cell write's entry changed, as their history recorded them; in the tenant's own log
 * each opens its whole history (the panel's log, of another tenant, lists them only).
 */
export function AuditCellsModal({ entry, panel, onClose }: { entry: AuditEntry | null; panel: boolean; onClose: () => void }) {
  const cells = useAuditCells(entry?.id ?? null, panel);
  const [open, setOpen] = useState<string | null>(null);
  const rows = cells.data?.cells ?? [];
  return (
    <CatalogModal opened={entry !== null} onClose={onClose} title="Cells of this change" size="xl">
      {cells.isLoading ? (
        <Group gap="xs" role="status">
          <Loader size="sm" />
          <Text>Loading...</Text>
        </Group>
      ) : cells.isError ? (
        <Text role="alert">{messageOf(cells.error)}</Text>
      ) : (
        <Stack gap="sm">
          <Text size="sm">
            {rows.length} cell{rows.length === 1 ? '' : 's'} of {entry?.target_name ?? 'the service'}, changed by {entry?.actor_label}
            {cells.data?.truncated ? ' (the first ones only)' : ''}
          </Text>
          <Table.ScrollContainer minWidth={520}>
            <Table aria-label="Cells of this change" data-testid="audit-cells">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Aspect</Table.Th>
                  <Table.Th scope="col">Quarter</Table.Th>
                  <Table.Th scope="col">Text</Table.Th>
                  {panel ? null : <Table.Th scope="col">History</Table.Th>}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((c) => {
                  const key = `${c.aspect_id}|${c.time_bucket}`;
                  const title = c.aspect_title ?? 'A deleted aspect';
                  return (
                    <Fragment key={c.id}>
                      <Table.Tr>
                        <Table.Td>{title}</Table.Td>
                        <Table.Td>{c.time_bucket}</Table.Td>
                        <Table.Td style={{ whiteSpace: 'pre-wrap' }}>{c.value || '-'}</Table.Td>
                        {panel ? null : (
                          <Table.Td>
                            <Button
                              variant="default"
                              size="compact-sm"
                              aria-expanded={open === key}
                              aria-label={`History of ${title} in ${c.time_bucket}`}
                              onClick={() => setOpen(open === key ? null : key)}
                            >
                              {open === key ? 'Hide history' : 'History'}
                            </Button>
                          </Table.Td>
                        )}
                      </Table.Tr>
                      {open === key ? (
                        <Table.Tr>
                          <Table.Td colSpan={4}>
                            <HistoryList target={{ aspectId: c.aspect_id, title, bucket: c.time_bucket }} />
                          </Table.Td>
                        </Table.Tr>
                      ) : null}
                    </Fragment>
                  );
                })}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Stack>
      )}
    </CatalogModal>
  );
}

import { Button, Group, Loader, Stack, Table, Text } from '@mantine/core';
import { useInfiniteQuery } from '@tanstack/react-query';
import { CatalogModal } from '../CatalogModal';
import { messageOf } from '../../api/client';
import { fetchHistory, type HistoryEntry } from '../../api/catalog';

export interface HistoryTarget {
  aspectId: string;
  title: string;
  bucket: string;
}

/** Old value -> new value: each entry's value, and the value of the entry before it for that quarter. */
function withOldValues(entries: HistoryEntry[], bucket: string) {
  const mine = entries.filter((e) => e.time_bucket === bucket);
  return mine.map((e, i) => ({ ...e, old: mine[i + 1]?.value }));
}

export function HistoryList({ target }: { target: HistoryTarget }) {
  const history = useInfiniteQuery({
    queryKey: ['availability-history', target.aspectId],
    queryFn: ({ pageParam }) => fetchHistory(target.aspectId, pageParam),
    initialPageParam: null as number | null,
    getNextPageParam: (last) => last.next_before,
    // Read afresh each time it opens: the cell may have changed since.
    gcTime: 0,
  });
  if (history.isLoading) {
    return (
      <Group gap="xs" role="status">
        <Loader size="sm" />
        <Text>Loading...</Text>
      </Group>
    );
  }
  if (history.isError) return <Text role="alert">{messageOf(history.error)}</Text>;
  const entries = withOldValues(history.data?.pages.flatMap((p) => p.history) ?? [], target.bucket);
  // The oldest change loaded says "before" only when no older page is left to tell.
  const complete = !history.hasNextPage;
  return (
    <Stack gap="sm">
      {entries.length === 0 ? (
        <Text size="sm">{complete ? 'No changes recorded for this quarter.' : 'No changes in the most recent entries; load older ones.'}</Text>
      ) : (
        <Table.ScrollContainer minWidth={320}>
          <Table aria-label={`Changes of ${target.title} in ${target.bucket}`} data-testid="cell-history">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">When</Table.Th>
                <Table.Th scope="col">Who</Table.Th>
                <Table.Th scope="col">Change</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {entries.map((e) => (
                <Table.Tr key={`${e.changed_at}-${e.value}-${e.changed_by}`}>
                  <Table.Td>{new Date(e.changed_at).toLocaleString()}</Table.Td>
                  <Table.Td>{e.changed_by}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'pre-wrap' }}>
                    {e.old === undefined && !complete ? '…' : e.old || '-'} → {e.value || '-'}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {history.hasNextPage ? (
        <Group>
          <Button variant="default" size="xs" onClick={() => void history.fetchNextPage()} loading={history.isFetchingNextPage}>
            Load older changes
          </Button>
        </Group>
      ) : null}
    </Stack>
  );
}

/** Who changed a cell, when, and from what to what (the aspect's history, this quarter's entries). */
export function CellHistoryModal({ target, onClose }: { target: HistoryTarget | null; onClose: () => void }) {
  return (
    <CatalogModal opened={target !== null} onClose={onClose} title="Availability history" size="lg">
      {target ? (
        <Stack gap="sm">
          <Text size="sm">
            <strong>{target.title}</strong> in <strong>{target.bucket}</strong>
          </Text>
          <HistoryList key={`${target.aspectId}-${target.bucket}`} target={target} />
        </Stack>
      ) : null}
    </CatalogModal>
  );
}

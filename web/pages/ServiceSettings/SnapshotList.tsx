import { Badge, Button, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { memo, useMemo, useState } from 'react';
import { useSnapshot, useSnapshots, type SnapshotSummary } from '../../api/settings';
import { CatalogModal } from '../../components/CatalogModal';
import { CompareSnapshots } from './CompareSnapshots';
import { RoadmapTable, type RoadmapTableHandlers } from '../../components/RoadmapTable';
import { groupCatalog } from '../Catalog/catalogGroups';

const NO_HANDLERS: RoadmapTableHandlers = {
  onEditAspect: () => undefined,
  onEditAvailability: () => undefined,
  onEditCategory: () => undefined,
  onAddAspect: () => undefined,
  onReorder: () => undefined,
};

const when = (iso: string) => new Date(iso).toLocaleString();

/** The frozen roadmap of one snapshot, read-only. */
function SnapshotView({ snapshot, onClose }: { snapshot: SnapshotSummary | null; onClose: () => void }) {
  const full = useSnapshot(snapshot?.id ?? null);
  const groups = useMemo(() => (full.data ? groupCatalog(full.data.data.categories, full.data.data.resolved_data.aspects).groups : []), [full.data]);
  return (
    <CatalogModal opened={Boolean(snapshot)} onClose={onClose} title={snapshot ? `Snapshot: ${snapshot.label}` : 'Snapshot'} size="90%">
      {full.isLoading ? (
        <Loader size="sm" aria-label="Loading snapshot" />
      ) : full.data ? (
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            {snapshot?.visibility === 'public' ? 'Public snapshot (public aspects only)' : 'Internal snapshot'}, taken by {snapshot?.created_by} on{' '}
            {snapshot ? when(snapshot.created_at) : ''}.
          </Text>
          <RoadmapTable
            groups={groups}
            timeline={full.data.data.resolved_data.timeline}
            editable={false}
            searching={false}
            handlers={NO_HANDLERS}
            emptyText="No aspects in this category"
          />
        </Stack>
      ) : (
        <Text>Failed to load data</Text>
      )}
    </CatalogModal>
  );
}

/**
 * One snapshot's row. Memoised with a stable `onView`: opening a snapshot renders the view, not
 * every row again (a thousand rows took half a second).
 */
const SnapshotRow = memo(function SnapshotRow({ snapshot: s, onView }: { snapshot: SnapshotSummary; onView: (s: SnapshotSummary) => void }) {
  return (
    <Table.Tr>
      <Table.Td>{s.label}</Table.Td>
      <Table.Td>
        <Badge variant="filled" color={s.visibility === 'public' ? 'teal.9' : 'gray.8'}>
          {s.visibility}
        </Badge>
      </Table.Td>
      <Table.Td>{s.note}</Table.Td>
      <Table.Td>{s.created_by}</Table.Td>
      <Table.Td>{when(s.created_at)}</Table.Td>
      <Table.Td>
        <Button size="xs" variant="default" onClick={() => onView(s)} aria-label={`View snapshot ${s.label}`}>
          View
        </Button>
      </Table.Td>
    </Table.Tr>
  );
});

/** The service's snapshots: label, visibility, note, who and when, each viewable. */
export function SnapshotList({ serviceId }: { serviceId: string }) {
  const snapshots = useSnapshots(serviceId);
  const rows = useMemo(() => snapshots.data?.pages.flatMap((p) => p.snapshots) ?? [], [snapshots.data]);
  const [viewing, setViewing] = useState<SnapshotSummary | null>(null);
  return (
    <Stack gap="sm" component="section" aria-labelledby="snapshots-title">
      <Title order={2} size="h4" id="snapshots-title">
        Snapshots
      </Title>
      {snapshots.isLoading ? (
        <Text c="dimmed">Loading...</Text>
      ) : !rows.length ? (
        <Text c="dimmed">No snapshots yet.</Text>
      ) : (
        <>
          <CompareSnapshots snapshots={rows} />
          <Table.ScrollContainer minWidth={640}>
            <Table striped aria-label="Snapshots">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Label</Table.Th>
                  <Table.Th>Visibility</Table.Th>
                  <Table.Th>Note</Table.Th>
                  <Table.Th>Created by</Table.Th>
                  <Table.Th>Created</Table.Th>
                  <Table.Th>View</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((s) => (
                  <SnapshotRow key={s.id} snapshot={s} onView={setViewing} />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </>
      )}
      {snapshots.hasNextPage ? (
        <Button variant="default" size="xs" w="fit-content" loading={snapshots.isFetchingNextPage} onClick={() => void snapshots.fetchNextPage()}>
          Show older snapshots
        </Button>
      ) : null}
      <SnapshotView snapshot={viewing} onClose={() => setViewing(null)} />
    </Stack>
  );
}

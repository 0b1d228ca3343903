import { Badge, Button, Group, Loader, Select, Stack, Table, Text, Title } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { htmlToText } from '../../../common/richText';
import { PUBLISHING_MESSAGES as P } from '../../../common/schemas/publishing';
import { messageOf } from '../../api/client';
import { useComparison } from '../../api/publishing';
import type { SnapshotSummary } from '../../api/settings';
import { CatalogModal } from '../../components/CatalogModal';

const CURRENT = 'current';
const when = (iso: string) => new Date(iso).toLocaleString();

/** One kind of change: a heading with its count, and a table of its rows (nothing when there are none). */
function Section({ title, label, head, rows }: { title: string; label: string; head: string[]; rows: { key: string; cells: ReactNode[] }[] }) {
  if (!rows.length) return null;
  return (
    <Stack gap={4}>
      <Title order={3} size="h5">
        {title} ({rows.length})
      </Title>
      <Table.ScrollContainer minWidth={480}>
        <Table aria-label={label}>
          <Table.Thead>
            <Table.Tr>
              {head.map((h, i) => (
                <Table.Th key={i}>{h}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((r) => (
              <Table.Tr key={r.key}>
                {r.cells.map((cell, i) => (
                  <Table.Td key={i}>{cell}</Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}

/** The difference between two snapshots, or a snapshot and the live catalog. */
function ComparisonView({ from, to }: { from: string; to: string }) {
  const result = useComparison(from, to);
  if (result.isLoading) return <Loader size="sm" aria-label="Comparing" />;
  if (result.isError || !result.data) return <Text role="alert">{messageOf(result.error, P.failedCompare)}</Text>;
  const { diff, labels } = result.data;
  const c = diff.counts;
  return (
    <Stack gap="md">
      <Text size="sm">
        <strong>{labels.from}:</strong> {result.data.from.label} ({when(result.data.from.created_at)}). <strong>{labels.to}:</strong> {result.data.to.label} (
        {when(result.data.to.created_at)}).
      </Text>
      <Text fw={600} role="status">
        {result.data.summary}
      </Text>
      <Group gap="xs" aria-label="Counts">
        <Badge variant="outline" color="dark">{`${c.added} added`}</Badge>
        <Badge variant="outline" color="dark">{`${c.removed} removed`}</Badge>
        <Badge variant="outline" color="dark">{`${c.renamed} renamed`}</Badge>
        <Badge variant="outline" color="dark">{`${c.moved} moved`}</Badge>
        <Badge variant="outline" color="dark">{`${c.cells} cells changed`}</Badge>
        <Badge variant="outline" color="dark">{`${c.descriptions} descriptions changed`}</Badge>
      </Group>
      {to === CURRENT && diff.started_quarters.length ? (
        <Text size="sm">
          In quarters that have begun ({diff.started_quarters.join(', ')}): {diff.commitments.held} planned cells held, {diff.commitments.slipped} changed.
        </Text>
      ) : null}
      <Section title="Added" label="Added aspects" head={['Aspect', 'Category']} rows={diff.added.map((a) => ({ key: a.id, cells: [a.title, a.category] }))} />
      <Section
        title="Removed"
        label="Removed aspects"
        head={['Aspect', 'Category']}
        rows={diff.removed.map((a) => ({ key: a.id, cells: [a.title, a.category] }))}
      />
      <Section
        title="Renamed"
        label="Renamed aspects"
        head={[labels.from, labels.to]}
        rows={diff.renamed.map((a) => ({ key: a.id, cells: [a.from_title, a.title] }))}
      />
      <Section
        title="Moved"
        label="Moved aspects"
        head={['Aspect', 'From category', 'To category']}
        rows={diff.moved.map((a) => ({ key: a.id, cells: [a.title, a.from_category, a.category] }))}
      />
      <Section
        title="Cells changed"
        label="Changed cells"
        head={['Aspect', 'Quarter', labels.from, labels.to]}
        rows={diff.cells.map((x) => ({
          key: `${x.aspect_id}|${x.quarter}`,
          cells: [x.title, `${x.quarter}${x.started && to === CURRENT ? ' (begun)' : ''}`, x.from || '(empty)', x.to || '(empty)'],
        }))}
      />
      <Section
        title="Descriptions changed"
        label="Changed descriptions"
        head={['Aspect', labels.from, labels.to]}
        rows={diff.descriptions.map((x) => ({ key: x.id, cells: [x.title, htmlToText(x.from) || '(empty)', htmlToText(x.to) || '(empty)'] }))}
      />
    </Stack>
  );
}

/** Pick two snapshots, or a snapshot and the live catalog, and see what changed between them. */
export function CompareSnapshots({ snapshots }: { snapshots: SnapshotSummary[] }) {
  // Arriving from the roadmap's "Compare with last snapshot" (?compare=latest): the newest snapshot
  // against the live catalog, shown at once.
  const [address, setAddress] = useSearchParams();
  const fromRoadmap = address.get('compare') === 'latest' ? (snapshots[0]?.id ?? null) : null;
  const [from, setFrom] = useState<string | null>(fromRoadmap);
  const [to, setTo] = useState<string | null>(CURRENT);
  const [shown, setShown] = useState<{ from: string; to: string } | null>(fromRoadmap ? { from: fromRoadmap, to: CURRENT } : null);
  const close = () => {
    setShown(null);
    if (address.has('compare')) {
      address.delete('compare');
      setAddress(address, { replace: true });
    }
  };
  const options = snapshots.map((s) => ({ value: s.id, label: `${s.label} (${s.visibility}, ${when(s.created_at)})` }));
  if (!snapshots.length) return null;
  return (
    <Group gap="sm" align="end" wrap="wrap" role="group" aria-label="Compare snapshots">
      <Select
        label="Compare"
        placeholder="Pick a snapshot"
        data={options}
        value={from}
        onChange={setFrom}
        searchable
        style={{ flex: '1 1 14rem', minWidth: 0 }}
      />
      <Select
        label="With"
        data={[{ value: CURRENT, label: 'Live catalog (now)' }, ...options.filter((o) => o.value !== from)]}
        value={to}
        onChange={setTo}
        searchable
        style={{ flex: '1 1 14rem', minWidth: 0 }}
      />
      <Button variant="default" disabled={!from || !to || from === to} onClick={() => from && to && setShown({ from, to })}>
        Compare
      </Button>
      <CatalogModal opened={Boolean(shown)} onClose={close} title="Compare snapshots" size="90%">
        {shown ? <ComparisonView from={shown.from} to={shown.to} /> : null}
      </CatalogModal>
    </Group>
  );
}

import { Badge, Button, Group, Loader, Select, Stack, Table, Text, Title } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { htmlToText } from '../../../common/richText';
import { PUBLISHING_MESSAGES as P } from '../../../common/schemas/publishing';
import { messageOf } from '../../api/client';
import { useComparison } from '../../api/publishing';
import type { SnapshotSummary } from '../../api/settings';
import { CatalogModal } from '../../components/CatalogModal';

const CURRENT = 'current';
const when = (iso: string) => new Date(iso).toLocaleString();

function Section({ title, count, children }: { title: string; count: number; children: ReactNode }) {
  if (!count) return null;
  return (
    <Stack gap={4}>
      <Title order={3} size="h5">
        {title} ({count})
      </Title>
      <Table.ScrollContainer minWidth={480}>{children}</Table.ScrollContainer>
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
      <Section title="Added" count={c.added}>
        <Table aria-label="Added aspects">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Aspect</Table.Th>
              <Table.Th>Category</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {diff.added.map((a) => (
              <Table.Tr key={a.id}>
                <Table.Td>{a.title}</Table.Td>
                <Table.Td>{a.category}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Section>
      <Section title="Removed" count={c.removed}>
        <Table aria-label="Removed aspects">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Aspect</Table.Th>
              <Table.Th>Category</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {diff.removed.map((a) => (
              <Table.Tr key={a.id}>
                <Table.Td>{a.title}</Table.Td>
                <Table.Td>{a.category}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Section>
      <Section title="Renamed" count={c.renamed}>
        <Table aria-label="Renamed aspects">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{labels.from}</Table.Th>
              <Table.Th>{labels.to}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {diff.renamed.map((a) => (
              <Table.Tr key={a.id}>
                <Table.Td>{a.from_title}</Table.Td>
                <Table.Td>{a.title}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Section>
      <Section title="Moved" count={c.moved}>
        <Table aria-label="Moved aspects">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Aspect</Table.Th>
              <Table.Th>From category</Table.Th>
              <Table.Th>To category</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {diff.moved.map((a) => (
              <Table.Tr key={a.id}>
                <Table.Td>{a.title}</Table.Td>
                <Table.Td>{a.from_category}</Table.Td>
                <Table.Td>{a.category}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Section>
      <Section title="Cells changed" count={c.cells}>
        <Table aria-label="Changed cells">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Aspect</Table.Th>
              <Table.Th>Quarter</Table.Th>
              <Table.Th>{labels.from}</Table.Th>
              <Table.Th>{labels.to}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {diff.cells.map((x) => (
              <Table.Tr key={`${x.aspect_id}|${x.quarter}`}>
                <Table.Td>{x.title}</Table.Td>
                <Table.Td>
                  {x.quarter}
                  {x.started && to === CURRENT ? ' (begun)' : ''}
                </Table.Td>
                <Table.Td>{x.from || '(empty)'}</Table.Td>
                <Table.Td>{x.to || '(empty)'}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Section>
      <Section title="Descriptions changed" count={c.descriptions}>
        <Table aria-label="Changed descriptions">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Aspect</Table.Th>
              <Table.Th>{labels.from}</Table.Th>
              <Table.Th>{labels.to}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {diff.descriptions.map((x) => (
              <Table.Tr key={x.id}>
                <Table.Td>{x.title}</Table.Td>
                <Table.Td>{htmlToText(x.from) || '(empty)'}</Table.Td>
                <Table.Td>{htmlToText(x.to) || '(empty)'}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Section>
    </Stack>
  );
}

/** Pick two snapshots, or a snapshot and the live catalog, and see what changed between them. */
export function CompareSnapshots({ snapshots }: { snapshots: SnapshotSummary[] }) {
  const [from, setFrom] = useState<string | null>(null);
  const [to, setTo] = useState<string | null>(CURRENT);
  const [shown, setShown] = useState<{ from: string; to: string } | null>(null);
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
      <CatalogModal opened={Boolean(shown)} onClose={() => setShown(null)} title="Compare snapshots" size="90%">
        {shown ? <ComparisonView from={shown.from} to={shown.to} /> : null}
      </CatalogModal>
    </Group>
  );
}

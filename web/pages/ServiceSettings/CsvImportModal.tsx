import { Alert, Button, FileInput, Group, List, Loader, Stack, Table, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { messageOf, request } from '../../api/client';
import { serviceKeys } from '../../api/services';
import { CatalogModal, ModalCancelButton } from '../../components/CatalogModal';
import { notifySuccess } from '../../lib/notify';
import type { CsvImportPlan } from '../../../common/schemas/settings';

/** What a CSV would change (POST /services/{id}/csv-import). */
type CsvPreview = CsvImportPlan;

/** The cells listed in the preview; the count says how many more there are. */
const CELLS_SHOWN = 200;

function sendCsv(serviceId: string, file: File, apply: boolean) {
  const body = new FormData();
  body.append('file', file);
  return request<{ preview: CsvPreview; applied: boolean }>(`/services/${serviceId}/csv-import${apply ? '?apply=true' : ''}`, {
    method: 'POST',
    body,
    fallback: 'Failed to import the CSV',
  });
}

/** count(1, 'aspect', 'aspects'): '1 aspect'; count(2, ...): '2 aspects'. */
const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function PreviewView({ preview }: { preview: CsvPreview }) {
  const cells = preview.cells_changed;
  return (
    <Stack gap="sm" data-testid="csv-preview">
      <Text size="sm">
        {count(cells.length, 'cell', 'cells')} to change, {count(preview.categories_added.length, 'category', 'categories')} and{' '}
        {count(preview.aspects_added.length, 'aspect', 'aspects')} to add, {count(preview.aspects_changed.length, 'aspect', 'aspects')} to update,{' '}
        {count(preview.rows_unchanged, 'row', 'rows')} unchanged, {count(preview.rows_in_error.length, 'row', 'rows')} in error.
      </Text>
      {preview.rows_in_error.length ? (
        <Alert color="red" variant="light" c="red.9" title="Rows in error (nothing can be applied until they are fixed)">
          <List size="sm">
            {preview.rows_in_error.map((e) => (
              <List.Item key={e.line}>
                Line {e.line}: {e.reason}
              </List.Item>
            ))}
          </List>
        </Alert>
      ) : null}
      {preview.encoding === 'windows-1252' ? (
        <Alert color="yellow" variant="light" c="dark" title="Read as Windows-1252">
          The file is not UTF-8, so it was read as Windows-1252, the encoding of Excel’s “CSV (Comma delimited)”. Check that accented letters look right below;
          if they do not, save the file as “CSV UTF-8” and choose it again.
        </Alert>
      ) : null}
      {preview.quarters_outside_timeline.length ? (
        <Alert color="yellow" variant="light" c="dark">
          Not in the service’s timeline, so not imported: {preview.quarters_outside_timeline.join(', ')}.
        </Alert>
      ) : null}
      {preview.categories_added.length ? <Text size="sm">Categories to add: {preview.categories_added.join(', ')}</Text> : null}
      {preview.aspects_added.length ? (
        <Text size="sm">Aspects to add: {preview.aspects_added.map((a) => `${a.aspect} (${a.category}, ${a.public ? 'public' : 'private'})`).join(', ')}</Text>
      ) : null}
      {preview.aspects_changed.length ? (
        <Stack gap={2}>
          <Text size="sm">Aspects to update: {preview.aspects_changed.map((a) => `${a.aspect} (${a.changes.join(', ')})`).join('; ')}</Text>
          {preview.aspects_changed.map((a) =>
            a.description ? (
              <Text size="sm" key={`${a.category}/${a.aspect}`} data-testid="csv-description-change">
                {a.aspect}, description: “{a.description.old || '-'}” → “{a.description.new || '-'}”
              </Text>
            ) : null,
          )}
        </Stack>
      ) : null}
      {cells.length ? (
        <Table.ScrollContainer minWidth={320} mah={320}>
          <Table aria-label="Cells to change" striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Aspect</Table.Th>
                <Table.Th scope="col">Quarter</Table.Th>
                <Table.Th scope="col">Old value</Table.Th>
                <Table.Th scope="col">New value</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {cells.slice(0, CELLS_SHOWN).map((c) => (
                <Table.Tr key={`${c.category}|${c.aspect}|${c.quarter}`}>
                  <Table.Td>
                    {c.aspect}{' '}
                    <Text span size="xs" c="dimmed">
                      ({c.category})
                    </Text>
                  </Table.Td>
                  <Table.Td>{c.quarter}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'pre-wrap' }}>{c.old || '-'}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'pre-wrap' }}>{c.new || '-'}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      ) : null}
      {cells.length > CELLS_SHOWN ? <Text size="sm">…and {cells.length - CELLS_SHOWN} more cells.</Text> : null}
    </Stack>
  );
}

/**
 * Import CSV (docs/decisions/0127-csv-import.md): a file in the shape of Export CSV, first previewed
 * (what would change, nothing written), then applied all or nothing.
 */
export function CsvImportModal({ serviceId, opened, onClose }: { serviceId: string; opened: boolean; onClose: () => void }) {
  const client = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<CsvPreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<'reading' | 'applying' | null>(null);
  const turn = useRef(0);

  const close = () => {
    setFile(null);
    setPreview(null);
    setError(null);
    setBusy(null);
    onClose();
  };

  const choose = async (next: File | null) => {
    const mine = ++turn.current;
    setFile(next);
    setPreview(null);
    setError(null);
    if (!next) return;
    setBusy('reading');
    try {
      const answer = await sendCsv(serviceId, next, false);
      if (mine === turn.current) setPreview(answer.preview);
    } catch (err) {
      if (mine === turn.current) setError(messageOf(err));
    } finally {
      if (mine === turn.current) setBusy(null);
    }
  };

  const apply = async () => {
    if (!file) return;
    setBusy('applying');
    setError(null);
    try {
      const answer = await sendCsv(serviceId, file, true);
      await client.invalidateQueries({ queryKey: serviceKeys.all });
      notifySuccess(`CSV imported: ${answer.preview.cells_changed.length} cells changed.`);
      close();
    } catch (err) {
      setError(messageOf(err));
      setBusy(null);
    }
  };

  const nothing = preview !== null && !preview.cells_changed.length && !preview.aspects_added.length && !preview.aspects_changed.length;
  return (
    <CatalogModal opened={opened} onClose={close} title="Import CSV" size="xl">
      <Stack gap="md">
        <Text size="sm">
          A file in the shape Export CSV writes: Category, Aspect, Description, Public, then one column per quarter. You see what would change before anything
          is applied.
        </Text>
        <FileInput
          label="CSV file"
          placeholder="Choose a .csv file"
          accept=".csv,text/csv"
          value={file}
          onChange={(f) => void choose(f)}
          clearable={false}
          data-autofocus
        />
        {busy === 'reading' ? (
          <Group gap="xs" role="status">
            <Loader size="xs" aria-hidden="true" />
            <Text size="sm">Reading the file...</Text>
          </Group>
        ) : null}
        {error ? (
          <Alert color="red" role="alert" variant="light" c="red.9">
            {error}
          </Alert>
        ) : null}
        {preview ? <PreviewView preview={preview} /> : null}
        {nothing && !preview?.rows_in_error.length ? <Text size="sm">The file changes nothing.</Text> : null}
        <Group justify="flex-end">
          <ModalCancelButton disabled={busy === 'applying'} />
          <Button
            onClick={() => void apply()}
            loading={busy === 'applying'}
            disabled={!preview || nothing || preview.rows_in_error.length > 0 || busy === 'reading'}
          >
            Apply
          </Button>
        </Group>
      </Stack>
    </CatalogModal>
  );
}

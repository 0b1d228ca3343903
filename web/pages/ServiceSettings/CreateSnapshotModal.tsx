import { Button, Group, Select, Stack, TextInput, Textarea } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { M } from '../../../common/messages';
import type { SnapshotVisibility } from '../../../common/roles';
import { messageOf } from '../../api/client';
import { useCreateSnapshot } from '../../api/settings';
import { CatalogModal } from '../../components/CatalogModal';

const VISIBILITY = [
  { value: 'internal', label: 'Internal' },
  { value: 'public', label: 'Public (public aspects only)' },
];

/** Create Snapshot: label (required), visibility, note (2 rows). */
export function CreateSnapshotModal({ serviceId, opened, onClose }: { serviceId: string; opened: boolean; onClose: () => void }) {
  const create = useCreateSnapshot(serviceId);
  const [label, setLabel] = useState('');
  const [visibility, setVisibility] = useState<string | null>('internal');
  const [note, setNote] = useState('');
  const [labelError, setLabelError] = useState<string | null>(null);

  useEffect(() => {
    if (!opened) return;
    setLabel('');
    setVisibility('internal');
    setNote('');
    setLabelError(null);
  }, [opened]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!label.trim()) return setLabelError(M.snapshotLabelRequired);
    setLabelError(null);
    create.mutate(
      { label: label.trim(), visibility: (visibility ?? 'internal') as SnapshotVisibility, note },
      {
        onSuccess: () => {
          window.alert(M.snapshotCreated);
          onClose();
        },
        onError: (err) => window.alert(messageOf(err, M.failedCreateSnapshot)),
      },
    );
  };

  return (
    <CatalogModal opened={opened} onClose={onClose} title="Create Snapshot">
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <TextInput label="Label" required value={label} onChange={(e) => setLabel(e.currentTarget.value)} error={labelError} data-autofocus />
          <Select label="Visibility" data={VISIBILITY} value={visibility} onChange={setVisibility} allowDeselect={false} />
          <Textarea label="Note" rows={2} value={note} onChange={(e) => setNote(e.currentTarget.value)} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create Snapshot
            </Button>
          </Group>
        </Stack>
      </form>
    </CatalogModal>
  );
}

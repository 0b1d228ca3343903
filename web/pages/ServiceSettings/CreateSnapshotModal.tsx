import { Button, Group, Select, Stack, TextInput, Textarea } from '@mantine/core';
import { useEffect } from 'react';
import { M } from '../../../common/messages';
import type { SnapshotVisibility } from '../../../common/roles';
import { createSnapshotSchema } from '../../../common/schemas/settings';
import { messageOf } from '../../api/client';
import { useCreateSnapshot } from '../../api/settings';
import { CatalogModal, ModalCancelButton } from '../../components/CatalogModal';
import { useSchemaForm } from '../../lib/schemaForm';

const VISIBILITY = [
  { value: 'internal', label: 'Internal' },
  { value: 'public', label: 'Public (public aspects only)' },
];

// The fields as the create request checks them; the service is not typed.
const snapshotFormSchema = createSnapshotSchema.pick({ label: true, visibility: true, note: true });
const EMPTY = { label: '', visibility: 'internal' as SnapshotVisibility, note: '' };

interface Props {
  serviceId: string;
  /** A published service's snapshot is its next public edition: Public is chosen first. */
  published: boolean;
  opened: boolean;
  onClose: () => void;
}

/** Create Snapshot: label (required), visibility, note (2 rows). */
export function CreateSnapshotModal({ serviceId, published, opened, onClose }: Props) {
  const create = useCreateSnapshot(serviceId);
  const form = useSchemaForm(snapshotFormSchema, EMPTY);
  const { reset, setInitialValues } = form;

  useEffect(() => {
    if (!opened) return;
    const start = { ...EMPTY, visibility: (published ? 'public' : 'internal') as SnapshotVisibility };
    setInitialValues(start);
    reset();
  }, [opened, published, reset, setInitialValues]);

  const submit = ({ label, visibility, note }: typeof EMPTY) =>
    create.mutate(
      { label: label.trim(), visibility, note },
      {
        onSuccess: () => {
          form.reset();
          window.alert(M.snapshotCreated);
          onClose();
        },
        onError: (err) => window.alert(messageOf(err, M.failedCreateSnapshot)),
      },
    );

  return (
    <CatalogModal opened={opened} onClose={onClose} title="Create Snapshot" dirty={form.isDirty()}>
      <form onSubmit={form.onSubmit(submit)} noValidate>
        <Stack gap="md">
          <TextInput label="Label" required {...form.getInputProps('label')} data-autofocus />
          <Select
            label="Visibility"
            data={VISIBILITY}
            {...form.getInputProps('visibility')}
            onChange={(value) => form.setFieldValue('visibility', (value ?? 'internal') as SnapshotVisibility)}
            allowDeselect={false}
          />
          <Textarea label="Note" rows={2} {...form.getInputProps('note')} />
          <Group justify="flex-end">
            <ModalCancelButton />
            <Button type="submit" loading={create.isPending}>
              Create Snapshot
            </Button>
          </Group>
        </Stack>
      </form>
    </CatalogModal>
  );
}

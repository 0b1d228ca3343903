import { Alert, Button, CopyButton, Group, Stack, TextInput } from '@mantine/core';
import { CatalogModal } from './CatalogModal';

/** A secret shown once, with a button to copy it. */
export function SecretModal({ title, secret, note, onClose }: { title: string; secret: string | null; note: string; onClose: () => void }) {
  return (
    <CatalogModal opened={secret !== null} onClose={onClose} title={title}>
      <Stack gap="md">
        <Alert color="yellow" variant="light" c="yellow.9">
          {note}
        </Alert>
        <TextInput label="Secret" value={secret ?? ''} readOnly onFocus={(e) => e.currentTarget.select()} styles={{ input: { fontFamily: 'monospace' } }} />
        <Group justify="flex-end">
          <CopyButton value={secret ?? ''}>
            {({ copied, copy }) => (
              <Button variant="default" onClick={copy}>
                {copied ? 'Copied' : 'Copy secret'}
              </Button>
            )}
          </CopyButton>
          <Button onClick={onClose}>Done</Button>
        </Group>
      </Stack>
    </CatalogModal>
  );
}

import { Alert, Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { CatalogModal } from './CatalogModal';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { M } from '../../common/messages';
import { DELETE_CONFIRMATION_WORD } from '../../common/limits';

interface Props {
  opened: boolean;
  title: string;
  message: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onClose: () => void;
  /** When set, the person must type DELETE exactly before confirming. */
  requireTypedDelete?: boolean;
  busy?: boolean;
  /** An error from the confirmed action, shown inside the dialog. */
  error?: string | null;
  color?: string;
}

/** A confirmation before an action that cannot be taken back; closes on Escape and overlay click. */
export function ConfirmDialog({ opened, title, message, confirmLabel, onConfirm, onClose, requireTypedDelete, busy, error, color = 'red.9' }: Props) {
  const [typed, setTyped] = useState('');
  const [typedError, setTypedError] = useState<string | null>(null);

  useEffect(() => {
    if (opened) {
      setTyped('');
      setTypedError(null);
    }
  }, [opened]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (requireTypedDelete && typed !== DELETE_CONFIRMATION_WORD) {
      setTypedError(M.typeDelete);
      return;
    }
    onConfirm();
  };

  return (
    <CatalogModal opened={opened} onClose={onClose} title={title}>
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <Text size="sm">{message}</Text>
          {requireTypedDelete ? (
            <TextInput
              label={`Type ${DELETE_CONFIRMATION_WORD} to confirm`}
              value={typed}
              onChange={(e) => setTyped(e.currentTarget.value)}
              error={typedError}
              autoComplete="off"
              data-autofocus
            />
          ) : null}
          {error ? (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" color={color} loading={busy}>
              {confirmLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </CatalogModal>
  );
}

import { Alert, Button, Group, Stack } from '@mantine/core';
import type { FormEvent, ReactNode } from 'react';
import { keepFieldFocus } from '../lib/schemaForm';
import { ModalCancelButton } from './CatalogModal';

interface Props {
  /** The form's submit (a `form.onSubmit(...)` handler): it checks the fields before saving. */
  onSubmit: (event?: FormEvent<HTMLFormElement>) => void;
  /** Why the server refused the last save; shown inline above the buttons (spec section 8). */
  error: string | null;
  busy: boolean;
  /** The action waits (for what the form needs to load). */
  disabled?: boolean;
  /** The submit button's label. */
  action: string;
  children: ReactNode;
}

/** The body of a create or edit modal: its fields, the server's refusal if any, Cancel and the action. */
export function ModalForm({ onSubmit, error, busy, disabled, action, children }: Props) {
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md">
        {children}
        {error ? (
          <Alert color="red" role="alert" variant="light" c="red.9">
            {error}
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <ModalCancelButton />
          <Button type="submit" loading={busy} disabled={disabled} onMouseDown={keepFieldFocus}>
            {action}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

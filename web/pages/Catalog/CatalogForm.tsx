import { Button, Group, Stack } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { useState, type ReactNode } from 'react';
import { ModalCancelButton } from '../../components/CatalogModal';
import { notifySuccess } from '../../lib/notify';
import { ErrorBox } from './ErrorBox';
import { InlineConfirm } from './InlineConfirm';
import type { useModalAction } from './useModalAction';

type Run = ReturnType<typeof useModalAction>['run'];

/** A catalog modal's form: checked by its schema on submit, with the server's error above its fields. */
export function CatalogForm<V extends Record<string, unknown>>({
  form,
  onValid,
  onError,
  error,
  children,
}: {
  form: UseFormReturnType<V>;
  onValid: (values: V) => Promise<void>;
  /** Clears the server's error when the form's own checks refuse the submit. */
  onError: () => void;
  error: string | null;
  children: ReactNode;
}) {
  return (
    <form
      onSubmit={form.onSubmit(
        (values) => void onValid(values),
        () => onError(),
      )}
      noValidate
    >
      <Stack gap="md">
        <ErrorBox error={error} />
        {children}
      </Stack>
    </form>
  );
}

/** The buttons of an edit form: delete on the left, Cancel and Save Changes on the right. */
export function EditActions({ deleteLabel, onDelete, saving }: { deleteLabel: string; onDelete: () => void; saving: boolean }) {
  return (
    <Group justify="space-between">
      <Button color="red.9" variant="outline" onClick={onDelete}>
        {deleteLabel}
      </Button>
      <Group gap="sm">
        <ModalCancelButton />
        <Button type="submit" loading={saving}>
          Save Changes
        </Button>
      </Group>
    </Group>
  );
}

/**
 * Deleting from an edit modal: `ask` turns the modal into the spec's confirmation (`view`, shown in
 * place of the form), whose confirm runs the deletion through the modal's action.
 */
export function useDeleteStep(
  run: Run,
  opts: { remove: () => Promise<unknown>; busy: boolean; done: string; fallback: string; message: string; confirmLabel: string },
) {
  const [confirming, setConfirming] = useState(false);
  const cancel = () => setConfirming(false);
  const confirm = () =>
    run(
      async () => {
        await opts.remove();
        notifySuccess(opts.done);
      },
      opts.fallback,
      cancel,
    );
  const view = confirming ? (
    <InlineConfirm message={opts.message} confirmLabel={opts.confirmLabel} busy={opts.busy} onConfirm={() => void confirm()} onCancel={cancel} />
  ) : null;
  return { ask: () => setConfirming(true), view };
}

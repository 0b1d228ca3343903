import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { M } from '../../../common/messages';

interface Props {
  message: string;
  confirmLabel: string;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/** The confirmation step of a delete inside an edit modal: says it cannot be undone and asks again. */
export function InlineConfirm({ message, confirmLabel, busy, onConfirm, onCancel }: Props) {
  return (
    <Stack gap="md">
      <Alert color="red" title={confirmLabel}>
        <Text size="sm">
          {message} {M.cannotBeUndone}.
        </Text>
      </Alert>
      <Group justify="flex-end">
        <Button variant="default" onClick={onCancel} data-autofocus>
          Cancel
        </Button>
        <Button color="red.9" onClick={onConfirm} loading={busy}>
          {confirmLabel}
        </Button>
      </Group>
    </Stack>
  );
}

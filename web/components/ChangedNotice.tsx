import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * Shown in an open editor when what it edits changed on the server while the person was typing:
 * their text stays, the new value is shown, and they choose which to keep.
 */
export function ChangedNotice({ children, onUseTheirs, onKeepMine }: { children: ReactNode; onUseTheirs: () => void; onKeepMine: () => void }) {
  return (
    <Alert color="blue" role="status" aria-live="polite" data-testid="changed-notice">
      <Stack gap="xs">
        <Text size="sm" fw={600}>
          Someone else changed this while you were editing.
        </Text>
        {children}
        <Group gap="sm">
          <Button size="xs" onClick={onUseTheirs}>
            Use their version
          </Button>
          <Button size="xs" variant="default" onClick={onKeepMine}>
            Keep mine
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}

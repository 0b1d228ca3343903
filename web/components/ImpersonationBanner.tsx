import { Alert, Button, Group, Text } from '@mantine/core';
import { useState } from 'react';
import { M, fill } from '../../common/messages';
import { messageOf } from '../api/client';
import { stopImpersonation } from '../api/impersonation';
import { useSession } from '../session/SessionProvider';

/** Shown on every screen while a super admin impersonates someone. */
export function ImpersonationBanner() {
  const { user, establish } = useSession();
  const [busy, setBusy] = useState(false);
  if (!user?.impersonating) return null;
  const stop = async () => {
    setBusy(true);
    try {
      const answer = await stopImpersonation();
      establish(answer.token, answer);
      window.location.assign('/');
    } catch (err) {
      window.alert(fill(M.failedStopImpersonation, { message: messageOf(err) }));
      setBusy(false);
    }
  };
  return (
    <Alert color="orange" radius={0} role="status" className="impersonation-banner">
      <Group justify="space-between" wrap="wrap">
        <Text size="sm" fw={600}>
          You are impersonating {user.name} ({user.email})
        </Text>
        <Button size="xs" color="orange" onClick={() => void stop()} loading={busy}>
          Stop Impersonation
        </Button>
      </Group>
    </Alert>
  );
}

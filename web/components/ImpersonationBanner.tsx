import { Alert, Button, Group, Text } from '@mantine/core';
import { useState } from 'react';
import { M, fill } from '../../common/messages';
import { messageOf } from '../api/client';
import { stopImpersonation } from '../api/impersonation';
import { useSession } from '../session/SessionProvider';
import { storage } from '../api/storage';

/**
 * Shown on every screen while a super admin impersonates someone, with the reason they gave.
 * Stopping revokes the impersonation token, restores the super admin's own session (the server
 * answers that same session) and returns to the super admin panel the impersonation started from.
 */
export function ImpersonationBanner() {
  const { user, establish } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!user?.impersonating) return null;
  const stop = async () => {
    setBusy(true);
    setError(null);
    try {
      const answer = await stopImpersonation();
      storage.clearActiveTenant();
      establish(answer.token, answer);
      window.location.assign(answer.user.super_admin ? '/super-admin' : '/');
    } catch (err) {
      setError(fill(M.failedStopImpersonation, { message: messageOf(err) }));
      setBusy(false);
    }
  };
  return (
    <Alert color="orange" radius={0} className="impersonation-banner" role="region" aria-label="Impersonation">
      <Group justify="space-between" wrap="wrap">
        <div role="status">
          <Text size="sm" fw={600}>
            You are impersonating {user.name} ({user.email})
          </Text>
          {user.impersonationReason ? <Text size="sm">Reason: {user.impersonationReason}</Text> : null}
        </div>
        <Button size="xs" variant="default" onClick={() => void stop()} loading={busy}>
          Stop Impersonation
        </Button>
      </Group>
      {error ? (
        <Text size="sm" c="red.9" mt="xs" role="alert">
          {error}
        </Text>
      ) : null}
    </Alert>
  );
}

import { Alert, Button, Group, Modal, Stack, Text, Textarea } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { M } from '../../../../common/messages';
import { impersonationReasonField, MAX_IMPERSONATION_REASON_LENGTH } from '../../../../common/schemas/users';
import { messageOf } from '../../../api/client';
import type { AdminUser } from '../../../api/admin';

interface Props {
  /** The user to impersonate; null keeps the modal closed. */
  user: AdminUser | null;
  onClose: () => void;
  /** Starts the impersonation; a failure stays in the modal. */
  onStart: (reason: string | undefined) => Promise<void>;
}

/**
 * Asks before an impersonation starts: whom, in which tenant, and (optionally) why. The reason is
 * checked with the server's own rule and goes into the tenant's audit log.
 */
export function ImpersonateModal({ user, onClose, onStart }: Props) {
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (user) {
      setReason('');
      setReasonError(null);
      setError(null);
    }
  }, [user]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = impersonationReasonField.safeParse(reason);
    if (!parsed.success) return setReasonError(parsed.error.issues[0]?.message ?? M.requestFailed);
    setReasonError(null);
    setError(null);
    setBusy(true);
    try {
      await onStart(parsed.data);
    } catch (err) {
      setError(messageOf(err, M.failedStartImpersonation));
      setBusy(false);
    }
  };

  return (
    <Modal opened={user !== null} onClose={onClose} title="Impersonate User" centered withinPortal={false} closeButtonProps={{ 'aria-label': 'Close' }}>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack>
          {error ? (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          ) : null}
          <Text>
            Impersonate {user?.name} ({user?.email}) in {user?.tenant_name ?? 'their tenant'}? You will see and do exactly what they can
            until you stop or log out.
          </Text>
          <Textarea
            label="Reason"
            description={`Optional, at most ${MAX_IMPERSONATION_REASON_LENGTH} characters. Recorded in the tenant's audit log.`}
            value={reason}
            onChange={(e) => setReason(e.currentTarget.value)}
            error={reasonError}
            autosize
            minRows={2}
            data-autofocus
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              Start
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

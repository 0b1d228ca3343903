import { Alert, Button, Group, Stack } from '@mantine/core';
import { useState } from 'react';
import { INVITATION_MESSAGES, invitationNotice, type ReceivedInvitation } from '../../../common/schemas/invitations';
import { messageOf } from '../../api/client';
import { acceptInvitation, declineInvitation } from '../../api/invitations';
import { useSession } from '../../session/SessionProvider';

/**
 * Invitations to other tenants waiting for the person's answer. Joining reads the session again,
 * so the tenant switcher offers the new tenant at once.
 */
export function InvitationNotices({ onError }: { onError: (message: string) => void }) {
  const { invitations, refresh } = useSession();
  const [busy, setBusy] = useState<string | null>(null);
  if (invitations.length === 0) return null;

  const answer = async (invitation: ReceivedInvitation, join: boolean) => {
    setBusy(invitation.id);
    try {
      if (join) await acceptInvitation(invitation.id);
      else await declineInvitation(invitation.id);
    } catch (err) {
      onError(messageOf(err, join ? INVITATION_MESSAGES.failedJoin : INVITATION_MESSAGES.failedDecline));
    }
    // Read again either way: an invitation withdrawn meanwhile is gone from the answer too.
    await refresh().catch(() => undefined);
    setBusy(null);
  };

  return (
    <Stack gap="sm">
      {invitations.map((invitation) => (
        // A labelled region rather than Mantine's default alert: it waits for an answer, it does not interrupt.
        <Alert key={invitation.id} role="region" color="blue" variant="light" title={invitationNotice(invitation.invited_by_name, invitation.tenant_name)}>
          <Group gap="sm">
            <Button
              size="xs"
              aria-label={`Join ${invitation.tenant_name}`}
              loading={busy === invitation.id}
              disabled={busy !== null && busy !== invitation.id}
              onClick={() => void answer(invitation, true)}
            >
              Join
            </Button>
            <Button
              size="xs"
              variant="default"
              aria-label={`Decline the invitation to ${invitation.tenant_name}`}
              disabled={busy !== null}
              onClick={() => void answer(invitation, false)}
            >
              Decline
            </Button>
          </Group>
        </Alert>
      ))}
    </Stack>
  );
}

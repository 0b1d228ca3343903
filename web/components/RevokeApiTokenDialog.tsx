import type { UseMutationResult } from '@tanstack/react-query';
import { useState } from 'react';
import { INTEGRATION_MESSAGES } from '../../common/schemas/integrations';
import { messageOf } from '../api/client';
import { notifySuccess } from '../lib/notify';
import { tokenLabel } from './ApiTokenCells';
import { ConfirmDialog } from './ConfirmDialog';

interface Props {
  /** The token to revoke; null: the dialog is closed. */
  token: { id: string; name: string; tenant_name?: string } | null;
  /** The revocation: the tenant's own, or any tenant's (the Super Admin Panel's). */
  revoke: UseMutationResult<unknown, Error, string>;
  onClose: () => void;
}

/** The confirmation before a token is revoked; a failure is the server's message, shown in the dialog. */
export function RevokeApiTokenDialog({ token, revoke, onClose }: Props) {
  const [error, setError] = useState<string | null>(null);
  const close = () => {
    setError(null);
    onClose();
  };
  return (
    <ConfirmDialog
      opened={token !== null}
      title="Revoke API token"
      message={`Revoke ${token ? tokenLabel(token) : ''}? Every call made with it is refused from now on. This cannot be undone.`}
      confirmLabel="Revoke"
      error={error}
      busy={revoke.isPending}
      onClose={close}
      onConfirm={() => {
        revoke.mutate(token!.id, {
          onSuccess: () => {
            close();
            notifySuccess(INTEGRATION_MESSAGES.tokenRevoked);
          },
          onError: (err) => setError(messageOf(err, INTEGRATION_MESSAGES.failedRevokeToken)),
        });
      }}
    />
  );
}

import { Text, Textarea } from '@mantine/core';
import { M } from '../../../../common/messages';
import { MAX_IMPERSONATION_REASON_LENGTH, startImpersonationSchema } from '../../../../common/schemas/users';
import type { AdminUser } from '../../../api/admin';
import { CatalogModal } from '../../../components/CatalogModal';
import { ModalForm } from '../../../components/ModalForm';
import { useFreshOnOpen, useSchemaForm } from '../../../lib/schemaForm';
import { useSubmit } from '../../../lib/useSubmit';

interface Props {
  /** The user to impersonate; null keeps the modal closed. */
  user: AdminUser | null;
  onClose: () => void;
  /** Starts the impersonation; a failure stays in the modal. */
  onStart: (reason: string | undefined) => Promise<void>;
}

/**
 * Asks before an impersonation starts: whom, in which tenant, and (optionally) why. The reason is
 * checked with the server's own schema for the request and goes into the tenant's audit log.
 */
export function ImpersonateModal({ user, onClose, onStart }: Props) {
  const form = useSchemaForm(startImpersonationSchema, { userId: '', tenantId: '', reason: '' });
  const { busy, error, setError, run } = useSubmit(M.failedStartImpersonation);
  useFreshOnOpen(user, form, setError, () => user && form.setInitialValues({ userId: user.id, tenantId: user.tenant_id, reason: '' }));

  // A started impersonation reloads the page: there is nothing to acknowledge here.
  const submit = form.onSubmit(({ reason }) => void run(() => onStart(reason.trim() || undefined)));

  return (
    <CatalogModal opened={user !== null} onClose={onClose} title="Impersonate User" dirty={form.isDirty()}>
      <ModalForm onSubmit={submit} error={error} busy={busy} action="Start">
        <Text size="sm">
          Impersonate {user?.name} ({user?.email}) in {user?.tenant_name ?? 'their tenant'}? You will see and do exactly what they can until you stop or log
          out.
        </Text>
        <Textarea
          label="Reason"
          description={`Optional, at most ${MAX_IMPERSONATION_REASON_LENGTH} characters. Recorded in the tenant's audit log.`}
          {...form.getInputProps('reason')}
          autosize
          minRows={2}
          data-autofocus
        />
      </ModalForm>
    </CatalogModal>
  );
}

import { Alert, Button, Checkbox, Group, Modal, Stack, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { M } from '../../../../common/messages';
import type { AdminUser } from '../../../api/admin';
import type { Tenant } from '../../../api/tenants';
import { useSubmit } from './TenantModals';

interface Props {
  user: AdminUser | null;
  tenants: Tenant[];
  onClose: () => void;
  onSave: (tenantIds: string[]) => Promise<void>;
}

/** Manage Tenant Memberships: one checkbox per tenant; the primary tenant must stay. */
export function MembershipsModal({ user, tenants, onClose, onSave }: Props) {
  const [checked, setChecked] = useState<string[]>([]);
  const { busy, error, setError, run } = useSubmit();
  useEffect(() => {
    if (user) {
      setChecked(user.tenant_ids);
      setError(null);
    }
  }, [user, setError]);

  const save = () => {
    if (!user) return;
    // Memberships of tenants not listed here (archived ones while they are hidden) are kept.
    const shown = new Set(tenants.map((t) => t.id));
    const ids = [...new Set([...checked, ...user.tenant_ids.filter((id) => !shown.has(id))])];
    if (ids.length === 0) return setError(M.membershipAtLeastOne);
    if (!ids.includes(user.tenant_id)) return setError(M.membershipPrimary);
    void run(() => onSave(ids));
  };

  return (
    <Modal opened={user !== null} onClose={onClose} title="Manage Tenant Memberships" centered withinPortal={false} closeButtonProps={{ 'aria-label': 'Close' }}>
      <Stack>
        {error ? (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        ) : null}
        <Text size="sm">
          Tenants {user?.name} belongs to. The primary tenant must stay.
        </Text>
        <Checkbox.Group label="Tenants" value={checked} onChange={setChecked}>
          <Stack gap="xs" mt="xs">
            {tenants.map((t) => (
              <Checkbox
                key={t.id}
                value={t.id}
                label={`${t.name}${t.id === user?.tenant_id ? ' (primary)' : ''}${t.archived ? ' (archived)' : ''}`}
              />
            ))}
          </Stack>
        </Checkbox.Group>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={save} loading={busy}>
            Save
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

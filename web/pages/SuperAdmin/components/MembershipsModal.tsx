import { Alert, Button, Checkbox, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useEffect, useMemo, useState } from 'react';
import { SEARCH_DEBOUNCE_MS } from '../../../../common/limits';
import { M } from '../../../../common/messages';
import { messageOf } from '../../../api/client';
import { useTenantOptions, useTenantsById, type AdminUser } from '../../../api/admin';
import type { Tenant } from '../../../api/tenants';
import { useSubmit } from './TenantModals';
import { TENANT_OPTIONS_PAGE } from './TenantSelect';

interface Props {
  user: AdminUser | null;
  /** Whether archived tenants are offered to join (as the panel's 'Show Archived Tenants'). */
  includeArchived: boolean;
  onClose: () => void;
  onSave: (tenantIds: string[]) => Promise<void>;
}

/**
 * Manage Tenant Memberships: one checkbox per tenant the user belongs to (their names looked up
 * by id, archived ones included), and one per tenant found by a search on the server, at most a
 * page of them; the primary tenant must stay.
 */
export function MembershipsModal({ user, includeArchived, onClose, onSave }: Props) {
  const [checked, setChecked] = useState<string[]>([]);
  // Tenants shown whatever the search: the user's own, and those checked since the modal opened.
  const [kept, setKept] = useState<Tenant[]>([]);
  const [typed, setTyped] = useState('');
  const { busy, error, setError, run } = useSubmit();
  const members = useTenantsById(user?.tenant_ids ?? [], user !== null);
  const [search] = useDebouncedValue(typed.trim(), SEARCH_DEBOUNCE_MS);
  const found = useTenantOptions(search, includeArchived, user !== null, TENANT_OPTIONS_PAGE);

  useEffect(() => {
    if (user) {
      setChecked(user.tenant_ids);
      setKept([]);
      setTyped('');
      setError(null);
    }
  }, [user, setError]);

  const shown = useMemo(() => {
    const list = [...(members.data ?? []), ...kept];
    const ids = new Set(list.map((t) => t.id));
    return { list, results: (found.data?.tenants ?? []).filter((t) => !ids.has(t.id)) };
  }, [members.data, kept, found.data]);

  const onChange = (next: string[]) => {
    const added = shown.results.filter((t) => next.includes(t.id));
    if (added.length) setKept((k) => [...k, ...added]);
    setChecked(next);
  };

  const save = () => {
    if (!user) return;
    const ids = [...new Set(checked)];
    if (ids.length === 0) return setError(M.membershipAtLeastOne);
    if (!ids.includes(user.tenant_id)) return setError(M.membershipPrimary);
    void run(() => onSave(ids));
  };

  const label = (t: Tenant) => `${t.name}${t.id === user?.tenant_id ? ' (primary)' : ''}${t.archived ? ' (archived)' : ''}`;
  const loadError = members.isError ? messageOf(members.error, M.failedLoadTenants) : found.isError ? messageOf(found.error, M.failedLoadTenants) : null;

  return (
    <Modal opened={user !== null} onClose={onClose} title="Manage Tenant Memberships" centered withinPortal={false} closeButtonProps={{ 'aria-label': 'Close' }}>
      <Stack>
        {error || loadError ? (
          <Alert color="red" role="alert">
            {error ?? loadError}
          </Alert>
        ) : null}
        <Text size="sm">
          Tenants {user?.name} belongs to. The primary tenant must stay.
        </Text>
        <TextInput
          label="Find a tenant"
          description="Search by name or slug to add a tenant."
          placeholder="Search tenants"
          value={typed}
          onChange={(e) => setTyped(e.currentTarget.value)}
        />
        <Checkbox.Group label="Tenants" value={checked} onChange={onChange}>
          <Stack gap="xs" mt="xs">
            {members.isLoading ? (
              <Text size="sm" c="dimmed">
                Loading tenants...
              </Text>
            ) : null}
            {[...shown.list, ...shown.results].map((t) => (
              <Checkbox key={t.id} value={t.id} label={label(t)} />
            ))}
          </Stack>
        </Checkbox.Group>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={save} loading={busy} disabled={members.isLoading}>
            Save
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

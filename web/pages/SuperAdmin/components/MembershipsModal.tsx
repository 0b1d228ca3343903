import { Alert, Checkbox, Group, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMemo, useState } from 'react';
import { SEARCH_DEBOUNCE_MS } from '../../../../common/limits';
import { M } from '../../../../common/messages';
import { membershipsSchema } from '../../../../common/schemas/users';
import type { Role } from '../../../../common/roles';
import { ROLE_OPTIONS } from '../../../lib/roles';
import { messageOf } from '../../../api/client';
import { useTenantOptions, useTenantsById, type AdminUser } from '../../../api/admin';
import type { Tenant } from '../../../api/tenants';
import { CatalogModal } from '../../../components/CatalogModal';
import { ModalForm } from '../../../components/ModalForm';
import { notifySuccess } from '../../../lib/notify';
import { useFreshOnOpen, useSchemaForm } from '../../../lib/schemaForm';
import { useSubmit } from '../../../lib/useSubmit';
import { TENANT_OPTIONS_PAGE } from '../../../components/TenantSelect';

const MEMBERSHIPS_SAVED = 'Tenant memberships saved.';

interface Props {
  user: AdminUser | null;
  /** Whether archived tenants are offered to join (as the panel's 'Show Archived Tenants'). */
  includeArchived: boolean;
  onClose: () => void;
  onSave: (memberships: { tenantId: string; role: Role }[]) => Promise<unknown>;
}

/**
 * Manage Tenant Memberships: one checkbox per tenant the user belongs to (their names looked up
 * by id, archived ones included), and one per tenant found by a search on the server, at most a
 * page of them; beside each tenant checked, the role held there (roles are held per membership; a
 * tenant added starts with the role of the primary tenant). The form asks for at least one tenant;
 * that the primary tenant stays is the server's answer, as it knows the user.
 */
export function MembershipsModal({ user, includeArchived, onClose, onSave }: Props) {
  const form = useSchemaForm(membershipsSchema, { tenantIds: [] as string[] });
  // Tenants shown whatever the search: the user's own, and those checked since the modal opened.
  const [kept, setKept] = useState<Tenant[]>([]);
  const [typed, setTyped] = useState('');
  const [roles, setRoles] = useState<Record<string, Role>>({});
  const { busy, error, setError, run } = useSubmit(M.failedUpdateMemberships);
  const members = useTenantsById(user?.tenant_ids ?? [], user !== null);
  const [search] = useDebouncedValue(typed.trim(), SEARCH_DEBOUNCE_MS);
  const found = useTenantOptions(search, includeArchived, user !== null, TENANT_OPTIONS_PAGE);

  useFreshOnOpen(user, form, setError, () => {
    if (user) form.setInitialValues({ tenantIds: user.tenant_ids });
    setRoles({ ...(user?.tenant_roles ?? {}) });
    setKept([]);
    setTyped('');
  });

  const shown = useMemo(() => {
    const list = [...(members.data ?? []), ...kept];
    const ids = new Set(list.map((t) => t.id));
    return { list, results: (found.data?.tenants ?? []).filter((t) => !ids.has(t.id)) };
  }, [members.data, kept, found.data]);

  const onChange = (next: string[]) => {
    const added = shown.results.filter((t) => next.includes(t.id));
    if (added.length) setKept((k) => [...k, ...added]);
    form.setFieldValue('tenantIds', next);
  };

  const roleIn = (tenantId: string): Role => roles[tenantId] ?? user?.role ?? 'reader';
  const save = form.onSubmit(async ({ tenantIds }) => {
    if (await run(() => onSave([...new Set(tenantIds)].map((tenantId) => ({ tenantId, role: roleIn(tenantId) }))))) {
      notifySuccess(MEMBERSHIPS_SAVED);
      onClose();
    }
  });

  const label = (t: Tenant) => `${t.name}${t.id === user?.tenant_id ? ' (primary)' : ''}${t.archived ? ' (archived)' : ''}`;
  const loadError = members.isError ? messageOf(members.error, M.failedLoadTenants) : found.isError ? messageOf(found.error, M.failedLoadTenants) : null;

  return (
    <CatalogModal opened={user !== null} onClose={onClose} title="Manage Tenant Memberships" dirty={form.isDirty()}>
      <ModalForm onSubmit={save} error={error} busy={busy} disabled={members.isLoading} action="Save">
        {loadError ? (
          <Alert color="red" role="alert" variant="light" c="red.9">
            {loadError}
          </Alert>
        ) : null}
        <Text size="sm">Tenants {user?.name} belongs to. The primary tenant must stay.</Text>
        <TextInput
          label="Find a tenant"
          description="Search by name or slug to add a tenant."
          placeholder="Search tenants"
          value={typed}
          onChange={(e) => setTyped(e.currentTarget.value)}
          // Enter in the search is not a save.
          onKeyDown={(e) => {
            if (e.key === 'Enter') e.preventDefault();
          }}
        />
        <Checkbox.Group label="Tenants" value={form.values.tenantIds} onChange={onChange} error={form.errors.tenantIds}>
          <Stack gap="xs" mt="xs">
            {members.isLoading ? (
              <Text size="sm" c="dimmed">
                Loading tenants...
              </Text>
            ) : null}
            {[...shown.list, ...shown.results].map((t) => (
              <Group key={t.id} justify="space-between" wrap="nowrap" gap="sm">
                <Checkbox value={t.id} label={label(t)} />
                {form.values.tenantIds.includes(t.id) ? (
                  <NativeSelect
                    size="xs"
                    aria-label={`Role in ${t.name}`}
                    data={ROLE_OPTIONS}
                    value={roleIn(t.id)}
                    onChange={(e) => setRoles((r) => ({ ...r, [t.id]: e.currentTarget.value as Role }))}
                  />
                ) : null}
              </Group>
            ))}
          </Stack>
        </Checkbox.Group>
      </ModalForm>
    </CatalogModal>
  );
}

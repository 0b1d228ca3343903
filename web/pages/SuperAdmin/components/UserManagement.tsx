import { Alert, Badge, Button, Group, NativeSelect, Paper, Table, Text, Title } from '@mantine/core';
import { memo, useCallback, useState } from 'react';
import { PagedTable } from '../../../components/PagedTable';
import { SearchInput } from '../../../components/SearchInput';
import { useAdminUserPages, type AdminUser, type PanelData } from '../../../api/admin';
import { usePagedRows } from '../../../lib/pagedRows';
import { roleLabel } from '../../../lib/roles';

export type GroupFilter = 'all' | 'manual' | 'entra_auto';

const HEADINGS = ['Name', 'Email', 'Role', 'User Group', 'Tenant', 'Actions'];
const keyOf = (u: AdminUser) => u.id;
const usersOf = (page: { users: AdminUser[] }) => page.users;

/** Stable functions and values: the section renders again only when one of them changes. */
interface Props {
  currentUserId: string;
  impersonation: PanelData['impersonation'];
  onStopImpersonation: () => void;
  onCreate: () => void;
  onManageTenants: (user: AdminUser) => void;
  onImpersonate: (user: AdminUser) => void;
  onDelete: (user: AdminUser) => void;
}

const groupLabel = (group: AdminUser['user_group']) => (group === 'entra_auto' ? 'Auto-Provisioned' : 'Manual');

/**
 * User Management: search by name or email, filter by user group, act on other users. The search
 * and the filter are the section's own state, so that typing renders this section and nothing
 * else of the panel.
 */
export const UserManagement = memo(function UserManagement(p: Props) {
  const impersonating = p.impersonation !== null;
  const { currentUserId, onManageTenants, onImpersonate, onDelete } = p;
  // The server searches every tenant's users once typing pauses (SearchInput), as the catalog's
  // search does, and filters them by group; the rows come a page at a time.
  const [search, setSearch] = useState('');
  const [group, setGroup] = useState<GroupFilter>('all');
  const pages = useAdminUserPages(search, group);
  const { rows: users, loadMore } = usePagedRows(pages, usersOf);
  const complete = !pages.hasNextPage && !pages.isLoading;
  const cells = useCallback(
    (u: AdminUser) => (
      <>
        <Table.Td>{u.name}</Table.Td>
        <Table.Td>{u.email}</Table.Td>
        <Table.Td>{u.super_admin ? <Badge color="grape.9">Super Admin</Badge> : roleLabel(u.role)}</Table.Td>
        <Table.Td>{groupLabel(u.user_group)}</Table.Td>
        <Table.Td>{u.tenant_name ?? ''}</Table.Td>
        <Table.Td>
          {u.id === currentUserId ? (
            <Badge color="blue.9" variant="outline">
              You
            </Badge>
          ) : (
            <Group gap="xs" wrap="nowrap">
              <Button size="xs" variant="default" onClick={() => onManageTenants(u)}>
                Manage Tenants
              </Button>
              {u.super_admin ? null : (
                <Button size="xs" variant="default" disabled={impersonating} onClick={() => onImpersonate(u)}>
                  Impersonate
                </Button>
              )}
              <Button size="xs" color="red.9" onClick={() => onDelete(u)}>
                Delete
              </Button>
            </Group>
          )}
        </Table.Td>
      </>
    ),
    [currentUserId, onManageTenants, onImpersonate, onDelete, impersonating],
  );

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="user-management">
      <Group justify="space-between" mb="md" wrap="wrap">
        <Title order={2} size="h3" id="user-management">
          User Management
        </Title>
        <Button onClick={p.onCreate}>+ Create User</Button>
      </Group>
      {/* Mantine's light orange title is below AA contrast on its tinted band: the band and its
          border carry the colour, the title is dark text. */}
      {p.impersonation ? (
        <Alert
          color="orange"
          mb="md"
          title="Currently impersonating"
          styles={{ root: { borderColor: 'var(--mantine-color-orange-8)' }, title: { color: 'var(--mantine-color-text)' } }}
        >
          <Group justify="space-between" wrap="wrap">
            <Text size="sm">
              {p.impersonation.impersonated_user.name} ({p.impersonation.impersonated_user.email}) in {p.impersonation.tenant.name}
            </Text>
            <Button size="xs" variant="default" onClick={p.onStopImpersonation}>
              Stop Impersonation
            </Button>
          </Group>
        </Alert>
      ) : null}
      <Group mb="md" wrap="wrap">
        <SearchInput label="Search users" placeholder="Search by name or email" onSearch={setSearch} miw={260} />
        <NativeSelect
          label="User group"
          value={group}
          onChange={(e) => setGroup(e.currentTarget.value as GroupFilter)}
          data={[
            { value: 'all', label: 'All User Groups' },
            { value: 'manual', label: 'Manual Only' },
            { value: 'entra_auto', label: 'Auto-Provisioned Only' },
          ]}
        />
      </Group>
      <PagedTable label="Users" headings={HEADINGS} rows={users} rowKey={keyOf} cells={cells} complete={complete} onNearEnd={loadMore} minWidth={760} />
      {complete && users.length === 0 ? (
        <Text c="dimmed" mt="sm">
          No users found.
        </Text>
      ) : null}
    </Paper>
  );
});

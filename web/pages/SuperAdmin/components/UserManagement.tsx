import { Alert, Badge, Button, Group, NativeSelect, Paper, Table, Text, Title } from '@mantine/core';
import { useCallback } from 'react';
import { PagedTable } from '../../../components/PagedTable';
import { SearchInput } from '../../../components/SearchInput';
import type { AdminUser, PanelData } from '../../../api/admin';
import { roleLabel } from '../../../lib/roles';

export type GroupFilter = 'all' | 'manual' | 'entra_auto';

const HEADINGS = ['Name', 'Email', 'Role', 'User Group', 'Tenant', 'Actions'];
const keyOf = (u: AdminUser) => u.id;

interface Props {
  users: AdminUser[];
  /** False while the server has more users matching the search than those loaded. */
  complete: boolean;
  onNearEnd: () => void;
  /** Told the search once typing pauses; a stable function. */
  onSearch: (search: string) => void;
  group: GroupFilter;
  onGroup: (group: GroupFilter) => void;
  currentUserId: string;
  impersonation: PanelData['impersonation'];
  onStopImpersonation: () => void;
  onCreate: () => void;
  onManageTenants: (user: AdminUser) => void;
  onImpersonate: (user: AdminUser) => void;
  onDelete: (user: AdminUser) => void;
}

const groupLabel = (group: AdminUser['user_group']) => (group === 'entra_auto' ? 'Auto-Provisioned' : 'Manual');

/** User Management: search by name or email, filter by user group, act on other users. */
export function UserManagement(p: Props) {
  const impersonating = p.impersonation !== null;
  const { currentUserId, onManageTenants, onImpersonate, onDelete } = p;
  // The server searches and filters (name or email, user group); the rows come a page at a time.
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
        <SearchInput label="Search users" placeholder="Search by name or email" onSearch={p.onSearch} miw={260} />
        <NativeSelect
          label="User group"
          value={p.group}
          onChange={(e) => p.onGroup(e.currentTarget.value as GroupFilter)}
          data={[
            { value: 'all', label: 'All User Groups' },
            { value: 'manual', label: 'Manual Only' },
            { value: 'entra_auto', label: 'Auto-Provisioned Only' },
          ]}
        />
      </Group>
      <PagedTable label="Users" headings={HEADINGS} rows={p.users} rowKey={keyOf} cells={cells} complete={p.complete} onNearEnd={p.onNearEnd} minWidth={760} />
      {p.complete && p.users.length === 0 ? (
        <Text c="dimmed" mt="sm">
          No users found.
        </Text>
      ) : null}
    </Paper>
  );
}

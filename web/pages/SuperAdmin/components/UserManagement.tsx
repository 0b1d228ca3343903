import { Alert, Badge, Button, Group, NativeSelect, Paper, Table, Text, TextInput, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import type { AdminUser, PanelData } from '../../../api/admin';
import { roleLabel } from './CreateUserModal';

type GroupFilter = 'all' | 'manual' | 'entra_auto';

interface Props {
  users: AdminUser[];
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
  const [search, setSearch] = useState('');
  const [group, setGroup] = useState<GroupFilter>('all');
  const visible = useMemo(() => {
    const q = search.trim().toLowerCase();
    return p.users.filter(
      (u) => (group === 'all' || u.user_group === group) && (!q || u.name.toLowerCase().includes(q) || u.email.toLowerCase().includes(q)),
    );
  }, [p.users, search, group]);
  const impersonating = p.impersonation !== null;

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
        <Alert color="orange" mb="md" title="Currently impersonating" styles={{ root: { borderColor: 'var(--mantine-color-orange-8)' }, title: { color: 'var(--mantine-color-text)' } }}>
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
        <TextInput
          label="Search users"
          placeholder="Search by name or email"
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
          miw={260}
        />
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
      <Table.ScrollContainer minWidth={760}>
        <Table striped highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Email</Table.Th>
              <Table.Th>Role</Table.Th>
              <Table.Th>User Group</Table.Th>
              <Table.Th>Tenant</Table.Th>
              <Table.Th>Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {visible.map((u) => (
              <Table.Tr key={u.id}>
                <Table.Td>{u.name}</Table.Td>
                <Table.Td>{u.email}</Table.Td>
                <Table.Td>{u.super_admin ? <Badge color="grape.9">Super Admin</Badge> : roleLabel(u.role)}</Table.Td>
                <Table.Td>{groupLabel(u.user_group)}</Table.Td>
                <Table.Td>{u.tenant_name ?? ''}</Table.Td>
                <Table.Td>
                  {u.id === p.currentUserId ? (
                    <Badge color="blue.9" variant="outline">You</Badge>
                  ) : (
                    <Group gap="xs" wrap="nowrap">
                      <Button size="xs" variant="default" onClick={() => p.onManageTenants(u)}>
                        Manage Tenants
                      </Button>
                      {u.super_admin ? null : (
                        <Button size="xs" variant="default" disabled={impersonating} onClick={() => p.onImpersonate(u)}>
                          Impersonate
                        </Button>
                      )}
                      <Button size="xs" color="red.9" onClick={() => p.onDelete(u)}>
                        Delete
                      </Button>
                    </Group>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {visible.length === 0 ? (
        <Text c="dimmed" mt="sm">
          No users found.
        </Text>
      ) : null}
    </Paper>
  );
}

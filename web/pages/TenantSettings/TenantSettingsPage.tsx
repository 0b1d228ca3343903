import { Badge, Button, Group, Paper, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { M } from '../../../common/messages';
import { messageOf } from '../../api/client';
import { useCreateTenantUser, useDeleteTenantUser, useTenantUsers, type TenantUser } from '../../api/users';
import { AppLayout } from '../../components/AppLayout';
import { PageHeader } from '../../components/PageHeader';
import { useSession } from '../../session/SessionProvider';
import { ConfirmModal } from '../SuperAdmin/components/ConfirmModal';
import { CreateUserModal, roleLabel } from '../SuperAdmin/components/CreateUserModal';
import { MessageBar } from '../SuperAdmin/components/MessageBar';
import { formatDate } from '../SuperAdmin/components/TenantManagement';
import { TenantAuditLog } from './TenantAuditLog';

/** Tenant Settings (spec section 2): a tenant admin manages the users of their tenant. */
export default function TenantSettingsPage() {
  const { user, tenant } = useSession();
  const users = useTenantUsers();
  const createUser = useCreateTenantUser();
  const deleteUser = useDeleteTenantUser();
  const [message, setMessage] = useState<string | null>(null);
  const [loadErrorDismissed, setLoadErrorDismissed] = useState(false);
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<TenantUser | null>(null);

  const askDelete = (target: TenantUser) => {
    setMessage(null);
    if (target.id === user?.id) return setMessage(M.cannotDeleteOwnAccount);
    setDeleting(target);
  };

  const loadError = users.isError && !loadErrorDismissed ? messageOf(users.error, M.failedLoadUsers) : null;

  return (
    <AppLayout
      header={
        <PageHeader
          title="Tenant Settings"
          leading={
            <Button component={Link} to="/" variant="default" size="xs">
              Back to Dashboard
            </Button>
          }
        />
      }
    >
      <MessageBar message={message ?? loadError} onClose={() => (message ? setMessage(null) : setLoadErrorDismissed(true))} />
      <Paper withBorder p="md" radius="md" mt="md" component="section" aria-labelledby="tenant-users">
        <Group justify="space-between" mb="md" wrap="wrap">
          <Title order={2} size="h3" id="tenant-users">
            Users of {tenant?.name ?? 'this tenant'}
          </Title>
          <Button onClick={() => setAdding(true)}>+ Add User</Button>
        </Group>
        <Table.ScrollContainer minWidth={640}>
          <Table striped highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Email</Table.Th>
                <Table.Th>Role</Table.Th>
                <Table.Th>Auth Provider</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th>Delete</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {(users.data ?? []).map((u) => (
                <Table.Tr key={u.id}>
                  <Table.Td>
                    {u.name}
                    {u.invitation ? (
                      <Badge ml="xs" size="sm" color="blue.9" title="Invited: joins when they first sign in or accept">
                        Invited
                      </Badge>
                    ) : null}
                  </Table.Td>
                  <Table.Td>{u.email}</Table.Td>
                  <Table.Td>{u.super_admin ? 'Super Admin' : roleLabel(u.role)}</Table.Td>
                  <Table.Td>{u.auth_provider === 'entra' ? 'Entra' : 'Local'}</Table.Td>
                  <Table.Td>{formatDate(u.created_at)}</Table.Td>
                  <Table.Td>
                    <Button size="xs" color="red.9" onClick={() => askDelete(u)}>
                      Delete
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        {users.isLoading ? <Text c="dimmed">Loading users...</Text> : null}
      </Paper>
      <TenantAuditLog />

      <CreateUserModal
        title="Add User"
        opened={adding}
        onClose={() => setAdding(false)}
        onCreate={async (input) => {
          await createUser.mutateAsync({ email: input.email, name: input.name, role: input.role, password: input.password });
          setAdding(false);
        }}
      />
      <ConfirmModal
        opened={deleting !== null}
        title="Delete User"
        message={
          deleting?.invitation
            ? `Withdraw the invitation of ${deleting.name} (${deleting.email})?`
            : `Delete ${deleting?.name ?? ''} (${deleting?.email ?? ''}) from this tenant? ${M.cannotBeUndone}.`
        }
        confirmLabel="Delete"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          const target = deleting!;
          setDeleting(null);
          try {
            await deleteUser.mutateAsync(target.id);
          } catch (err) {
            setMessage(messageOf(err, M.failedDeleteUser));
          }
        }}
      />
    </AppLayout>
  );
}

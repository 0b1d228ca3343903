import { Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { memo, useCallback, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { M } from '../../../common/messages';
import { messageOf } from '../../api/client';
import { createTenantUserSchema } from '../../../common/schemas/users';
import { useTenantAudit, type AuditFilters } from '../../api/audit';
import { AuditFilterBar } from '../../components/AuditFilterBar';
import { useChangeTenantUserRole, useCreateTenantUser, useDeleteTenantUser, useTenantUserPages, type TenantUser } from '../../api/users';
import { AppLayout } from '../../components/AppLayout';
import { AuditLogTable } from '../../components/AuditLogTable';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CreateUserModal } from '../../components/CreateUserModal';
import { MessageBar } from '../../components/MessageBar';
import { PageHeader } from '../../components/PageHeader';
import { SearchInput } from '../../components/SearchInput';
import { useSession } from '../../session/SessionProvider';
import { TenantUserTable } from './TenantUserTable';
import { EmbedOriginsForm } from './EmbedOriginsForm';
import { IntegrationsSection } from './IntegrationsSection';
import { DONE, notifySuccess } from '../../lib/notify';
import { usePagedRows } from '../../lib/pagedRows';

/** The tenant's audit log: a section of its own, so that a search among the users does not render it again. */
const usersOf = (page: { users: TenantUser[] }) => page.users;

const TenantAuditLog = memo(function TenantAuditLog() {
  const [filters, setFilters] = useState<AuditFilters>({});
  const audit = useTenantAudit(filters);
  return (
    <Paper withBorder p="md" radius="md" mt="md" component="section" aria-labelledby="tenant-audit-log">
      <Title order={2} size="h3" id="tenant-audit-log" mb="md">
        Audit Log
      </Title>
      <AuditFilterBar filters={filters} onChange={setFilters} panel={null} />
      <AuditLogTable audit={audit} />
    </Paper>
  );
});

/**
 * Tenant Settings (spec section 2): a tenant admin manages the users of their tenant. The sections
 * below the users (integrations, audit log, embedding) are memoised: typing in the users' search
 * renders the users' section, not them.
 */
export default function TenantSettingsPage() {
  const { user, tenant } = useSession();
  // The server searches; the box tells once typing pauses (SearchInput).
  const [search, setSearch] = useState('');
  const users = useTenantUserPages(search);
  const { rows, loadMore } = usePagedRows(users, usersOf);
  const createUser = useCreateTenantUser();
  const deleteUser = useDeleteTenantUser();
  const changeRole = useChangeTenantUserRole();
  const [message, setMessage] = useState<string | null>(null);
  const [loadErrorDismissed, setLoadErrorDismissed] = useState(false);
  // `?invite` (the dashboard's "Invite people") opens Add User at once: inviting is one click from there too.
  const [address, setAddress] = useSearchParams();
  const [adding, setAdding] = useState(() => address.has('invite'));
  const closeAdding = () => {
    setAdding(false);
    if (address.has('invite')) setAddress({}, { replace: true });
  };
  const [deleting, setDeleting] = useState<TenantUser | null>(null);

  // Stable, so that the rows in the page are not rendered again on every keystroke of the search.
  const askDelete = useCallback(
    (target: TenantUser) => {
      setMessage(null);
      if (target.id === user?.id) return setMessage(M.cannotDeleteOwnAccount);
      setDeleting(target);
    },
    [user?.id],
  );

  const onRoleChange = useCallback(
    (target: TenantUser, role: TenantUser['role']) => {
      setMessage(null);
      changeRole.mutate(
        { id: target.id, role },
        { onSuccess: () => notifySuccess(DONE.roleChanged), onError: (err) => setMessage(messageOf(err, M.failedUpdateRole)) },
      );
    },
    // The mutation's own function is stable; the whole result object is not.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [changeRole.mutate],
  );

  // A tenant whose only member is its admin: inviting people is the next step (docs/decisions/0157).
  const alone = !users.isLoading && !users.isError && !search && !users.hasNextPage && rows.every((r) => r.id === user?.id);
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
        {alone ? (
          <Paper withBorder p="md" mb="md" data-testid="tenant-first-steps">
            <Group justify="space-between" gap="sm" wrap="wrap">
              <Text size="sm" style={{ flex: '1 1 20rem' }}>
                You are the only member of {tenant?.name ?? 'this tenant'}. Invite the people who work on its services: add them by email with their role; they
                join when they first sign in or accept.
              </Text>
              <Button variant="default" onClick={() => setAdding(true)}>
                Invite people
              </Button>
            </Group>
          </Paper>
        ) : null}
        <SearchInput label="Search users" placeholder="Search users..." onSearch={setSearch} mb="sm" maw={360} />
        <TenantUserTable rows={rows} complete={!users.hasNextPage} onNearEnd={loadMore} onDelete={askDelete} onRoleChange={onRoleChange} selfId={user?.id} />
        {!users.isLoading && rows.length === 0 && search ? <Text c="dimmed">No matching users found</Text> : null}
        {users.isLoading ? <Text c="dimmed">Loading users...</Text> : null}
      </Paper>
      <IntegrationsSection />
      <TenantAuditLog />
      <Stack mt="md">
        <EmbedOriginsForm />
      </Stack>

      <CreateUserModal
        title="Add User"
        opened={adding}
        schema={createTenantUserSchema}
        onClose={closeAdding}
        onCreate={({ email, name, role, password }) => createUser.mutateAsync({ email, name, role, password })}
      />
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete User"
        message={
          deleting?.invitation
            ? `Withdraw the invitation of ${deleting.name} (${deleting.email})?`
            : `Delete ${deleting?.name ?? ''} (${deleting?.email ?? ''}) from this tenant? ${M.cannotBeUndone}.`
        }
        confirmLabel="Delete"
        onClose={() => setDeleting(null)}
        onConfirm={() => {
          const target = deleting!;
          setDeleting(null);
          deleteUser.mutate(target.id, {
            onSuccess: () => notifySuccess(target.invitation ? DONE.invitationWithdrawn : DONE.userDeleted),
            onError: (err) => setMessage(messageOf(err, M.failedDeleteUser)),
          });
        }}
      />
    </AppLayout>
  );
}

import { Button, Stack } from '@mantine/core';
import { useCallback, useState } from 'react';
import { flushSync } from 'react-dom';
import { Link } from 'react-router';
import { M } from '../../../common/messages';
import { messageOf } from '../../api/client';
import { useAdminTenantPages, usePanelData, useCreateAdminUser, useDeleteAdminUser, useUpdateMemberships, type AdminUser } from '../../api/admin';
import { useArchiveTenant, useCreateTenant, useDeleteTenant, useUnarchiveTenant, useUpdateTenant, type Tenant } from '../../api/tenants';
import { startImpersonation, stopImpersonation } from '../../api/impersonation';
import { AppLayout } from '../../components/AppLayout';
import { PageHeader } from '../../components/PageHeader';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CreateUserModal } from '../../components/CreateUserModal';
import { MessageBar } from '../../components/MessageBar';
import { useSession } from '../../session/SessionProvider';
import { storage } from '../../api/storage';
import { createAdminUserSchema } from '../../../common/schemas/users';
import { ImpersonateModal } from './components/ImpersonateModal';
import { MembershipsModal } from './components/MembershipsModal';
import { CreateTenantModal, EditTenantModal } from './components/TenantModals';
import { TenantSelect } from '../../components/TenantSelect';
import { TenantManagement } from './components/TenantManagement';
import { UserManagement } from './components/UserManagement';
import { AdminAuditLog } from './components/AdminAuditLog';
import { ApiTokenManagement } from './components/ApiTokenManagement';
import { DONE, notifySuccess } from '../../lib/notify';
import { usePagedRows } from '../../lib/pagedRows';

const tenantsOf = (page: { tenants: Tenant[] }) => page.tenants;

/** The super admin panel (spec section 2): tenants, users across tenants, impersonation, every tenant's API tokens. */
export default function SuperAdminPage() {
  const { user, establish } = useSession();
  const [showArchived, setShowArchived] = useState(false);
  const panel = usePanelData();
  // The tenants as the users: searched by the server once typing pauses, loaded a page at a time.
  const [tenantQuery, setTenantQuery] = useState('');
  const tenantPages = useAdminTenantPages(tenantQuery, showArchived);
  const { rows: tenantRows, loadMore: loadMoreTenants } = usePagedRows(tenantPages, tenantsOf);
  const [message, setMessage] = useState<string | null>(null);
  const [loadErrorDismissed, setLoadErrorDismissed] = useState(false);
  const [creatingTenant, setCreatingTenant] = useState(false);
  const [editing, setEditing] = useState<Tenant | null>(null);
  const [archiving, setArchiving] = useState<Tenant | null>(null);
  const [deletingTenant, setDeletingTenant] = useState<Tenant | null>(null);
  const [creatingUser, setCreatingUser] = useState(false);
  const [managing, setManaging] = useState<AdminUser | null>(null);
  const [deletingUser, setDeletingUser] = useState<AdminUser | null>(null);
  const [impersonating, setImpersonating] = useState<AdminUser | null>(null);

  const createTenant = useCreateTenant();
  const updateTenant = useUpdateTenant();
  const archiveTenant = useArchiveTenant();
  const unarchiveTenant = useUnarchiveTenant();
  const deleteTenant = useDeleteTenant();
  const createUser = useCreateAdminUser();
  const deleteUser = useDeleteAdminUser();
  const updateMemberships = useUpdateMemberships();

  /** Page-level actions report failures in the message bar, and success (`done`) with a notification. */
  const attempt = useCallback(async (fn: () => Promise<unknown>, fallback: string, done?: string) => {
    setMessage(null);
    try {
      await fn();
      if (done) notifySuccess(done);
    } catch (err) {
      setMessage(messageOf(err, fallback));
    }
  }, []);

  // Confirmed in ImpersonateModal, which shows a failure itself.
  const impersonate = async (target: AdminUser, reason: string | undefined) => {
    const answer = await startImpersonation(target.id, target.tenant_id, reason);
    establish(answer.token, answer);
    storage.clearActiveTenant();
    // The reason typed is spent: the modal closes first, so that leaving the page asks nothing.
    flushSync(() => setImpersonating(null));
    window.location.assign('/');
  };

  const refetchPanel = panel.refetch;
  const endStrayImpersonation = useCallback(
    () =>
      void attempt(async () => {
        const answer = await stopImpersonation();
        establish(answer.token, answer);
        await refetchPanel();
      }, M.requestFailed),
    [attempt, establish, refetchPanel],
  );
  // The sections are memoised: what they are given stays the same object from one render to the next,
  // so that typing in one section's search renders that section only.
  const openCreateTenant = useCallback(() => setCreatingTenant(true), []);
  const openCreateUser = useCallback(() => setCreatingUser(true), []);
  const unarchive = unarchiveTenant.mutateAsync;
  const onUnarchive = useCallback((t: Tenant) => void attempt(() => unarchive(t.id), M.failedUnarchiveTenant, DONE.tenantUnarchived), [attempt, unarchive]);
  const resetDeleteTenant = deleteTenant.reset;
  const onDeleteTenant = useCallback(
    (t: Tenant) => {
      resetDeleteTenant();
      setDeletingTenant(t);
    },
    [resetDeleteTenant],
  );

  const data = panel.data;
  const failed = panel.isError ? panel : tenantPages.isError ? tenantPages : null;
  const loadError = failed && !loadErrorDismissed ? messageOf(failed.error, M.failedLoadData) : null;

  return (
    <AppLayout
      header={
        <PageHeader
          title="Super Admin Panel"
          leading={
            <Button component={Link} to="/" variant="default" size="xs">
              Back to Dashboard
            </Button>
          }
        />
      }
    >
      <Stack gap="lg">
        <MessageBar message={message ?? loadError} onClose={() => (message ? setMessage(null) : setLoadErrorDismissed(true))} />
        <TenantManagement
          tenants={tenantRows}
          complete={!tenantPages.hasNextPage && !tenantPages.isLoading}
          onNearEnd={loadMoreTenants}
          onSearch={setTenantQuery}
          showArchived={showArchived}
          onShowArchived={setShowArchived}
          onCreate={openCreateTenant}
          onEdit={setEditing}
          onArchive={setArchiving}
          onUnarchive={onUnarchive}
          onDelete={onDeleteTenant}
        />
        <UserManagement
          currentUserId={user?.id ?? ''}
          impersonation={data?.impersonation ?? null}
          onStopImpersonation={endStrayImpersonation}
          onCreate={openCreateUser}
          onManageTenants={setManaging}
          onImpersonate={setImpersonating}
          onDelete={setDeletingUser}
        />
        <ApiTokenManagement />
        <AdminAuditLog />
      </Stack>

      <CreateTenantModal opened={creatingTenant} onClose={() => setCreatingTenant(false)} onCreate={(input) => createTenant.mutateAsync(input)} />
      <EditTenantModal tenant={editing} onClose={() => setEditing(null)} onSave={(name) => updateTenant.mutateAsync({ id: editing!.id, name })} />
      <ConfirmDialog
        opened={archiving !== null}
        title="Archive Tenant"
        message={M.archiveTenantConfirm}
        confirmLabel="Archive"
        onClose={() => setArchiving(null)}
        onConfirm={() => {
          const target = archiving!;
          setArchiving(null);
          void attempt(() => archiveTenant.mutateAsync(target.id), M.failedArchiveTenant, DONE.tenantArchived);
        }}
      />
      <ConfirmDialog
        opened={deletingTenant !== null}
        title="Delete Tenant Permanently"
        message={`This permanently deletes ${deletingTenant?.name ?? ''}: its services, categories, aspects, availabilities, snapshots, templates, audit logs, and every user whose primary tenant it is. ${M.cannotBeUndone}.`}
        confirmLabel="Delete Permanently"
        requireTypedDelete
        busy={deleteTenant.isPending}
        error={deleteTenant.isError ? messageOf(deleteTenant.error, M.failedDeleteTenant) : null}
        onClose={() => setDeletingTenant(null)}
        onConfirm={() =>
          deleteTenant.mutate(deletingTenant!.id, {
            onSuccess: () => {
              setDeletingTenant(null);
              notifySuccess(DONE.tenantDeleted);
            },
          })
        }
      />
      <CreateUserModal
        title="Create User"
        opened={creatingUser}
        schema={createAdminUserSchema}
        tenantField={(field) => <TenantSelect label="Tenant" placeholder="Select a tenant" withAsterisk includeArchived={false} {...field} />}
        onClose={() => setCreatingUser(false)}
        onCreate={({ email, name, role, tenantId, password }) => createUser.mutateAsync({ email, name, role, password, tenant_id: tenantId })}
      />
      <MembershipsModal
        user={managing}
        includeArchived={showArchived}
        onClose={() => setManaging(null)}
        onSave={(memberships) => updateMemberships.mutateAsync({ id: managing!.id, memberships })}
      />
      <ImpersonateModal user={impersonating} onClose={() => setImpersonating(null)} onStart={(reason) => impersonate(impersonating!, reason)} />
      <ConfirmDialog
        opened={deletingUser !== null}
        title="Delete User"
        message={`Delete ${deletingUser?.name ?? ''} (${deletingUser?.email ?? ''})? ${M.cannotBeUndone}.`}
        confirmLabel="Delete"
        onClose={() => setDeletingUser(null)}
        onConfirm={() => {
          const target = deletingUser!;
          setDeletingUser(null);
          void attempt(() => deleteUser.mutateAsync(target.id), M.failedDeleteUser, DONE.userDeleted);
        }}
      />
    </AppLayout>
  );
}

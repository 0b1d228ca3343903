import './dashboard.css';
import { Button, Checkbox, Group, Loader, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { M } from '../../../common/messages';
import { NO_SERVICE_PERMISSIONS } from '../../../common/permissions';
import { NOTIFICATION_AUTOCLOSE_MS } from '../../../common/limits';
import { htmlToText } from '../../../common/richText';
import { messageOf } from '../../api/client';
import { useArchiveService, useHardDeleteService, useServices, useUnarchiveService, type Service } from '../../api/services';
import { AppLayout } from '../../components/AppLayout';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { PageHeader } from '../../components/PageHeader';
import { TenantFooter } from '../../components/TenantFooter';
import { useSession } from '../../session/SessionProvider';
import { CreateServiceModal } from './CreateServiceModal';
import { ImportServiceButton } from './ImportServiceButton';
import { InvitationNotices } from './InvitationNotices';
import { ServiceCollection } from './ServiceCollection';
import type { ServiceActions } from './ServiceActionsMenu';

/** Dashboard errors appear in a closable notification that closes itself after a while (spec section 8). */
function notifyError(message: string) {
  notifications.show({
    color: 'red',
    message,
    autoClose: NOTIFICATION_AUTOCLOSE_MS,
    withCloseButton: true,
    closeButtonProps: { 'aria-label': 'Close notification' },
  });
}

type Pending = { kind: 'archive' | 'hardDelete'; service: Service } | null;

export function DashboardPage() {
  const { user, tenant } = useSession();
  const navigate = useNavigate();
  // The server decides what each person may do and says so; the page only hides what they may not.
  const rights = user?.permissions;

  const [search, setSearch] = useState('');
  const [showArchived, setShowArchived] = useState(false);
  const [view, setView] = useState<'cards' | 'list'>('cards');
  const [creating, setCreating] = useState(false);
  const [pending, setPending] = useState<Pending>(null);

  const services = useServices(Boolean(rights?.canShowArchived) && showArchived);
  const archive = useArchiveService();
  const unarchive = useUnarchiveService();
  const hardDelete = useHardDeleteService();

  useEffect(() => {
    if (services.isError) notifyError(messageOf(services.error, M.failedLoadServices));
  }, [services.isError, services.error]);

  const visible = useMemo(() => {
    const q = search.trim().toLowerCase();
    const all = services.data?.services ?? [];
    if (!q) return all;
    return all.filter((s) => [s.name, s.slug, htmlToText(s.description), s.service_owner].some((text) => text.toLowerCase().includes(q)));
  }, [services.data, search]);

  const onUnarchive = useCallback(
    (service: Service) => unarchive.mutate(service.id, { onError: (err) => notifyError(messageOf(err, M.failedUnarchiveService)) }),
    [unarchive],
  );
  const listPermissions = services.data?.permissions;
  const actions: ServiceActions = useMemo(
    () => ({
      anyActions: Boolean(listPermissions?.default.canAdmin || Object.values(listPermissions?.services ?? {}).some((p) => p.canAdmin)),
      permissionsOf: (service) => listPermissions?.services[service.id] ?? listPermissions?.default ?? NO_SERVICE_PERMISSIONS,
      onArchive: (service) => setPending({ kind: 'archive', service }),
      onUnarchive,
      onHardDelete: (service) => setPending({ kind: 'hardDelete', service }),
    }),
    [listPermissions, onUnarchive],
  );

  const confirmPending = () => {
    if (!pending) return;
    const { kind, service } = pending;
    const mutation = kind === 'archive' ? archive : hardDelete;
    const fallback = kind === 'archive' ? M.failedArchiveService : M.failedHardDeleteService;
    mutation.mutate(service.id, {
      onSuccess: () => setPending(null),
      onError: (err) => {
        setPending(null);
        notifyError(messageOf(err, fallback));
      },
    });
  };

  return (
    <AppLayout header={<PageHeader title={tenant?.name ?? 'Services'} />} footer={<TenantFooter />}>
      <Stack gap="lg">
        <InvitationNotices onError={notifyError} />
        <Group justify="space-between" align="flex-end" wrap="wrap" gap="md">
          <Group align="center" wrap="wrap" gap="md">
            <TextInput
              aria-label="Search services"
              placeholder="Search services..."
              value={search}
              onChange={(e) => setSearch(e.currentTarget.value)}
              w={{ base: '100%', xs: 320 }}
            />
            {rights?.canShowArchived ? (
              <Checkbox label="Show Archived" checked={showArchived} onChange={(e) => setShowArchived(e.currentTarget.checked)} />
            ) : null}
            <SegmentedControl
              aria-label="View"
              value={view}
              onChange={(v) => setView(v as 'cards' | 'list')}
              data={[
                { value: 'cards', label: 'Cards' },
                { value: 'list', label: 'List' },
              ]}
            />
          </Group>
          {rights?.canCreateServices ? (
            <Group gap="sm">
              <ImportServiceButton />
              <Button onClick={() => setCreating(true)}>+ New Service</Button>
            </Group>
          ) : null}
        </Group>

        {services.isLoading ? (
          <Group gap="xs" role="status">
            <Loader size="sm" />
            <Text>Loading services...</Text>
          </Group>
        ) : services.isError ? null : visible.length === 0 ? (
          <Text c="dimmed">{search.trim() ? 'No matching services found.' : 'No services yet.'}</Text>
        ) : (
          <ServiceCollection services={visible} view={view} actions={actions} />
        )}
      </Stack>

      <CreateServiceModal opened={creating} onClose={() => setCreating(false)} onCreated={(s) => navigate(`/catalog/${s.id}`)} />
      <ConfirmDialog
        opened={pending?.kind === 'archive'}
        title="Archive Service"
        message={`Archive "${pending?.service.name ?? ''}"? It becomes read-only and is hidden unless 'Show Archived' is on.`}
        confirmLabel="Archive"
        color="blue"
        busy={archive.isPending}
        onConfirm={confirmPending}
        onClose={() => setPending(null)}
      />
      <ConfirmDialog
        opened={pending?.kind === 'hardDelete'}
        title="Delete Permanently"
        message={`Permanently delete "${pending?.service.name ?? ''}" with its categories, aspects, availabilities and snapshots? ${M.cannotBeUndone}.`}
        confirmLabel="Delete Permanently"
        requireTypedDelete
        busy={hardDelete.isPending}
        onConfirm={confirmPending}
        onClose={() => setPending(null)}
      />
    </AppLayout>
  );
}

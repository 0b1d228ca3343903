import './dashboard.css';
import { Button, Checkbox, Group, Loader, SegmentedControl, Stack, Text } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { M } from '../../../common/messages';
import { messageOf } from '../../api/client';
import { useArchiveService, useHardDeleteService, useServicePages, useUnarchiveService, type Service, type ServiceList } from '../../api/services';
import { AppLayout } from '../../components/AppLayout';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { PageHeader } from '../../components/PageHeader';
import { SearchInput } from '../../components/SearchInput';
import { TenantFooter } from '../../components/TenantFooter';
import { useSession } from '../../session/SessionProvider';
import { CreateServiceModal } from './CreateServiceModal';
import { ImportServiceButton } from './ImportServiceButton';
import { FirstSteps } from './FirstSteps';
import { InvitationNotices } from './InvitationNotices';
import { ServiceCollection } from './ServiceCollection';
import type { ServiceActions } from './ServiceActionsMenu';
import { DONE, notifyError, notifySuccess } from '../../lib/notify';
import { usePagedRows } from '../../lib/pagedRows';

const servicesOf = (page: ServiceList) => page.services;

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

  const services = useServicePages(Boolean(rights?.canShowArchived) && showArchived, search);
  const archive = useArchiveService();
  const unarchive = useUnarchiveService();
  const hardDelete = useHardDeleteService();

  useEffect(() => {
    if (services.isError) notifyError(messageOf(services.error, M.failedLoadServices));
  }, [services.isError, services.error]);

  const pages = services.data?.pages;
  const { rows: visible, loadMore } = usePagedRows(services, servicesOf);
  // Each page says what the caller may do on its own services; the default is the same on every page.
  const listPermissions = useMemo((): ServiceList['permissions'] | undefined => {
    if (!pages?.length) return undefined;
    return { default: pages[0]!.permissions.default, services: Object.assign({}, ...pages.map((p) => p.permissions.services)) };
  }, [pages]);
  const anyActions = Boolean(listPermissions?.default.canAdmin || Object.values(listPermissions?.services ?? {}).some((p) => p.canAdmin));

  // Stable for the page's life (`mutate` is): the memoised cards and rows are not rendered again
  // when the search, the view or a page of services changes around them.
  const unarchiveService = unarchive.mutate;
  const actions: ServiceActions = useMemo(
    () => ({
      onArchive: (service) => setPending({ kind: 'archive', service }),
      onUnarchive: (service) =>
        unarchiveService(service.id, {
          onSuccess: () => notifySuccess(DONE.serviceUnarchived),
          onError: (err) => notifyError(messageOf(err, M.failedUnarchiveService)),
        }),
      onHardDelete: (service) => setPending({ kind: 'hardDelete', service }),
    }),
    [unarchiveService],
  );

  const confirmPending = () => {
    if (!pending) return;
    const { kind, service } = pending;
    const mutation = kind === 'archive' ? archive : hardDelete;
    const fallback = kind === 'archive' ? M.failedArchiveService : M.failedHardDeleteService;
    mutation.mutate(service.id, {
      onSuccess: () => {
        setPending(null);
        notifySuccess(kind === 'archive' ? DONE.serviceArchived : DONE.serviceDeleted);
      },
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
            <SearchInput aria-label="Search services" placeholder="Search services..." onSearch={setSearch} w={{ base: '100%', xs: 320 }} />
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
          search ? (
            <Text c="dimmed">{search ? 'No matching services found.' : 'No services yet.'}</Text>
          ) : (
            <FirstSteps onCreate={() => setCreating(true)} />
          )
        ) : (
          <ServiceCollection
            services={visible}
            view={view}
            permissions={listPermissions}
            anyActions={anyActions}
            actions={actions}
            complete={!services.hasNextPage}
            onNearEnd={loadMore}
          />
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

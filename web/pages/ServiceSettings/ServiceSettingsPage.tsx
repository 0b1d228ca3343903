import { Badge, Button, Group, Loader, Stack, Tabs, Text } from '@mantine/core';
import { useState } from 'react';
import { Link, Navigate, useNavigate, useParams, useSearchParams } from 'react-router';
import { M } from '../../../common/messages';
import { createActorRoleSchema, createQuickTemplateSchema } from '../../../common/schemas/settings';
import { ApiError, messageOf } from '../../api/client';
import { useArchiveService, useUnarchiveService } from '../../api/services';
import { tenantsCapped } from '../../api/storage';
import {
  downloadFile,
  useAddActorRole,
  useAddQuickTemplate,
  useDeleteActorRole,
  useDeleteQuickTemplate,
  useForgetService,
  useSettingsData,
} from '../../api/settings';
import { AppLayout } from '../../components/AppLayout';
import { DONE, notifySuccess } from '../../lib/notify';
import { PageHeader } from '../../components/PageHeader';
import { TenantFooter } from '../../components/TenantFooter';
import { useSession } from '../../session/SessionProvider';
import { CreateSnapshotModal } from './CreateSnapshotModal';
import { CsvImportModal } from './CsvImportModal';
import { DetailsTab } from './DetailsTab';
import { MoveServiceModal } from './MoveServiceModal';
import { NoPublicEditionHint, PublishingPanel } from './PublishingPanel';
import { SnapshotList } from './SnapshotList';
import { TagEditor, type TagEditorProps } from './TagEditor';
import { UserAssignmentsTab } from './UserAssignmentsTab';

type Tab = 'details' | 'roles' | 'templates' | 'users';
const TABS: readonly string[] = ['details', 'roles', 'templates', 'users'] satisfies Tab[];

/** The tab named in the address (`?tab=`), else Service Details. */
const tabOf = (value: string | null): Tab => (value !== null && TABS.includes(value) ? (value as Tab) : 'details');

// The add fields as the add requests check them; the service is not typed.
const roleNameSchema = createActorRoleSchema.pick({ roleName: true });
const templateTextSchema = createQuickTemplateSchema.pick({ templateText: true });

/** The two ordered tag lists of a service: what each tab says and checks. */
const TAG_LISTS = {
  roles: {
    tab: 'roles',
    label: 'Actor roles',
    placeholder: 'Add new role...',
    schema: roleNameSchema,
    field: 'roleName',
    addFallback: M.failedCreateActorRole,
    deleteFallback: M.failedDeleteActorRole,
  },
  templates: {
    tab: 'templates',
    intro: 'Quick templates are ready-made availability texts that editors apply with one click in the availability editor.',
    label: 'Quick templates',
    placeholder: 'Add new template...',
    schema: templateTextSchema,
    field: 'templateText',
    addFallback: M.failedCreateQuickTemplate,
    deleteFallback: M.failedDeleteQuickTemplate,
  },
} as const;

/** Service settings (spec section 2): details, actor roles, quick templates, user assignments and the service's actions. */
export default function ServiceSettingsPage() {
  const { serviceId = '' } = useParams();
  const navigate = useNavigate();
  const { tenant, user } = useSession();
  const settings = useSettingsData(serviceId);
  const addRole = useAddActorRole(serviceId);
  const deleteRole = useDeleteActorRole();
  const addTemplate = useAddQuickTemplate(serviceId);
  const deleteTemplate = useDeleteQuickTemplate();
  const archive = useArchiveService();
  const unarchive = useUnarchiveService();
  const forgetService = useForgetService(serviceId);
  // The tab lives in the address, so a link (the availability editor's, say) can open one.
  const [address, setAddress] = useSearchParams();
  const requestedTab = tabOf(address.get('tab'));
  const setTab = (next: Tab) =>
    setAddress(
      (prev) => {
        const params = new URLSearchParams(prev);
        params.set('tab', next);
        return params;
      },
      { replace: true },
    );
  const [snapshotOpen, setSnapshotOpen] = useState(false);
  const [csvOpen, setCsvOpen] = useState(false);
  const [moveOpen, setMoveOpen] = useState(false);

  const back = (
    <Button component={Link} to={`/catalog/${serviceId}`} variant="default" size="xs" mt={6}>
      ← Back to Catalog
    </Button>
  );

  if (settings.isError) {
    // Those who may not open settings go back to the catalog (spec section 2).
    if (settings.error instanceof ApiError && settings.error.status === 403) return <Navigate to={`/catalog/${serviceId}`} replace />;
    return (
      <AppLayout header={<PageHeader title="Service Settings" leading={back} />} footer={<TenantFooter />}>
        <Text>{settings.error instanceof ApiError && settings.error.status === 404 ? M.serviceNotFound : messageOf(settings.error, M.failedLoadData)}</Text>
      </AppLayout>
    );
  }
  if (!settings.data) {
    return (
      <AppLayout header={<PageHeader title="Service Settings" leading={back} />} footer={<TenantFooter />}>
        <Group gap="xs" role="status">
          <Loader size="sm" />
          <Text>Loading...</Text>
        </Group>
      </AppLayout>
    );
  }

  const { service, roles, templates, assignments, permissions } = settings.data;
  const isAdmin = permissions.canAdmin;
  const tab: Tab = requestedTab === 'users' && !isAdmin ? 'details' : requestedTab;
  const readOnly = service.archived;
  const tenantSlug = tenant?.slug ?? null;
  const otherTenants = (user?.availableTenants ?? []).filter((t) => t.id !== (tenant?.id ?? service.tenant_id) && !t.archived);

  const download = (path: string, filename: string, fallback: string) =>
    downloadFile(path, filename, fallback).catch((err) => window.alert(messageOf(err, fallback)));

  const toggleArchive = () => {
    const archiving = !service.archived;
    const question = archiving
      ? `Archive "${service.name}"? It becomes read-only and is hidden from the dashboard unless 'Show Archived' is on.`
      : `Unarchive "${service.name}"?`;
    if (!window.confirm(question)) return;
    const mutation = archiving ? archive : unarchive;
    mutation.mutateAsync(service.id).then(
      () => {
        notifySuccess(archiving ? DONE.serviceArchived : DONE.serviceUnarchived);
        navigate('/');
      },
      (err: unknown) => window.alert(messageOf(err, archiving ? M.failedArchiveService : M.failedUnarchiveService)),
    );
  };

  return (
    <AppLayout header={<PageHeader title={`${service.name} Settings`} icon={service.icon_url} leading={back} />} footer={<TenantFooter />}>
      <Stack gap="lg">
        <Group justify="space-between" wrap="wrap" gap="sm">
          <Group gap="sm">
            {service.archived ? (
              <Badge color="gray.8" variant="filled" size="lg">
                ARCHIVED
              </Badge>
            ) : null}
          </Group>
          <Group gap="sm" wrap="wrap" role="group" aria-label="Service actions">
            <Button variant="default" onClick={() => setSnapshotOpen(true)}>
              Create Snapshot
            </Button>
            <Button
              variant="default"
              onClick={() => void download(`/export/service/${service.id}/csv?showPrivate=true`, `${service.slug}.csv`, M.requestFailed)}
            >
              Export CSV
            </Button>
            {readOnly ? null : (
              <Button variant="default" onClick={() => setCsvOpen(true)}>
                Import CSV
              </Button>
            )}
            {isAdmin ? (
              <Button variant="default" onClick={toggleArchive} loading={archive.isPending || unarchive.isPending}>
                {service.archived ? 'Unarchive Service' : 'Archive Service'}
              </Button>
            ) : null}
            {permissions.canMove && !service.archived ? (
              <Button variant="default" onClick={() => setMoveOpen(true)}>
                Move to Another Tenant
              </Button>
            ) : null}
            <Button variant="default" onClick={() => void download(`/services/${service.id}/export`, `${service.slug}.catalog`, M.failedExportService)}>
              Export Service
            </Button>
          </Group>
        </Group>
        <NoPublicEditionHint service={service} onCreateSnapshot={() => setSnapshotOpen(true)} />

        <Tabs value={tab} onChange={(v) => setTab(tabOf(v))} keepMounted={false}>
          <Tabs.List aria-label="Settings">
            <Tabs.Tab value="details">Service Details</Tabs.Tab>
            <Tabs.Tab value="roles">Actor Roles</Tabs.Tab>
            <Tabs.Tab value="templates">Quick Templates</Tabs.Tab>
            {isAdmin ? <Tabs.Tab value="users">User Assignments</Tabs.Tab> : null}
          </Tabs.List>
          <Tabs.Panel value="details" pt="md">
            <DetailsTab service={service} readOnly={readOnly} />
          </Tabs.Panel>
          {[
            {
              ...TAG_LISTS.roles,
              items: roles.map((r) => ({ id: r.id, text: r.role_name })),
              onAdd: (text: string) => addRole.mutateAsync(text).then(() => notifySuccess(DONE.roleAdded)),
              onDelete: (id: string) => deleteRole.mutateAsync(id).then(() => notifySuccess(DONE.roleDeleted)),
            },
            {
              ...TAG_LISTS.templates,
              items: templates.map((t) => ({ id: t.id, text: t.template_text })),
              onAdd: (text: string) => addTemplate.mutateAsync(text).then(() => notifySuccess(DONE.templateAdded)),
              onDelete: (id: string) => deleteTemplate.mutateAsync(id).then(() => notifySuccess(DONE.templateDeleted)),
            },
          ].map(({ tab, intro, ...list }: { tab: Tab; intro?: string } & Omit<TagEditorProps, 'disabled'>) => (
            <Tabs.Panel key={tab} value={tab} pt="md">
              {intro ? (
                <Text size="sm" mb="sm">
                  {intro}
                </Text>
              ) : null}
              <TagEditor {...list} disabled={readOnly} />
            </Tabs.Panel>
          ))}
          {isAdmin ? (
            <Tabs.Panel value="users" pt="md">
              <UserAssignmentsTab serviceId={service.id} assignments={assignments} canManageUsers={permissions.canManageUsers} />
            </Tabs.Panel>
          ) : null}
        </Tabs>

        {isAdmin && tenantSlug ? <PublishingPanel service={service} tenantSlug={tenantSlug} /> : null}

        <SnapshotList serviceId={service.id} />
      </Stack>

      <CreateSnapshotModal serviceId={service.id} published={service.published} opened={snapshotOpen} onClose={() => setSnapshotOpen(false)} />
      <CsvImportModal serviceId={service.id} opened={csvOpen} onClose={() => setCsvOpen(false)} />
      {permissions.canMove ? (
        <MoveServiceModal
          serviceId={service.id}
          serviceName={service.name}
          tenants={otherTenants}
          searchAll={user && tenantsCapped(user) ? { currentTenantId: tenant?.id ?? service.tenant_id } : undefined}
          opened={moveOpen}
          onClose={() => setMoveOpen(false)}
          onMoved={() => {
            navigate('/');
            forgetService();
          }}
        />
      ) : null}
    </AppLayout>
  );
}

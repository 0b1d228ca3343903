import { Alert, Button, Group, Loader, NativeSelect, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { memo, useCallback, useEffect, useMemo, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { M } from '../../../common/messages';
import { SEARCH_DEBOUNCE_MS } from '../../../common/limits';
import { currentBucket } from '../../../common/quarters';
import { htmlToText } from '../../../common/richText';
import { messageOf } from '../../api/client';
import { useFullService, useReorderAspects, type Aspect, type Category, type QuickTemplate } from '../../api/catalog';
import { AppLayout } from '../../components/AppLayout';
import { CatalogCurrentTable } from '../../components/CatalogCurrentTable';
import { PageHeader } from '../../components/PageHeader';
import { RoadmapTable, type RoadmapTableHandlers } from '../../components/RoadmapTable';
import { useSession } from '../../session/SessionProvider';
import { CreateSnapshotModal } from '../ServiceSettings/CreateSnapshotModal';
import { CreateAspectModal, EditAspectModal } from './AspectModals';
import { AvailabilityModal, type AvailabilityTarget } from './AvailabilityModal';
import { CatalogFirstSteps } from './CatalogFirstSteps';
import { CreateCategoryModal, EditCategoryModal } from './CategoryModals';
import { filterCatalog, groupCatalog, type SearchableCatalog } from './catalogGroups';

type Mode = 'roadmap' | 'current';

/** The view named in the address (`?view=`), else the default view: the roadmap. */
const modeOf = (value: string | null): Mode => (value === 'current' ? 'current' : 'roadmap');

/**
 * The quarter of the current view named in the address (`?quarter=`) if the timeline has it, else
 * the default: this calendar quarter if the timeline has it, else its first entry.
 */
const quarterOf = (value: string | null, timeline: string[]): string | undefined =>
  value !== null && timeline.includes(value) ? value : currentBucket(timeline);

function CatalogFooter() {
  const { tenant } = useSession();
  return tenant ? (
    <Text size="sm" c="dimmed" data-testid="footer-tenant">
      Current Tenant: {tenant.name} ({tenant.slug})
    </Text>
  ) : null;
}

interface TablesProps {
  serviceId: string;
  templates: QuickTemplate[];
  catalog: SearchableCatalog;
  /** The search box's text; the table follows it once the debounce fires. */
  searchInput: string;
  mode: Mode;
  timeline: string[];
  /** The current view's quarter. */
  quarter: string | undefined;
  editable: boolean;
  handlers: RoadmapTableHandlers;
  emptyText: string;
}

/**
 * The table of the chosen view, filtered by the search once its debounce fires. Only this part
 * renders again then: the page around it (header, toolbar, dialogs) stays as it is.
 */
const CatalogTables = memo(function CatalogTables({
  serviceId,
  templates,
  catalog,
  searchInput,
  mode,
  timeline,
  quarter,
  editable,
  handlers,
  emptyText,
}: TablesProps) {
  const [search] = useDebouncedValue(searchInput, SEARCH_DEBOUNCE_MS);
  // The search matches the availability texts of the quarters the view shows.
  const groups = useMemo(
    () => filterCatalog(catalog, search, mode === 'roadmap' ? timeline : quarter ? [quarter] : []),
    [catalog, search, mode, timeline, quarter],
  );
  const searching = search.trim() !== '';
  return mode === 'roadmap' ? (
    <RoadmapTable
      serviceId={serviceId}
      templates={templates}
      groups={groups}
      timeline={timeline}
      editable={editable}
      searching={searching}
      handlers={handlers}
      emptyText={emptyText}
    />
  ) : (
    <CatalogCurrentTable groups={groups} bucket={quarter} searching={searching} emptyText={emptyText} />
  );
});

const backButton = (
  <Button component={Link} to="/" variant="default" size="xs" mt={6}>
    ← Back
  </Button>
);

export function CatalogPage() {
  const { serviceId = '' } = useParams();
  const full = useFullService(serviceId);
  const reorder = useReorderAspects(serviceId);

  // The view and the current view's quarter live in the address, so a reload or a shared link keeps them.
  const [address, setAddress] = useSearchParams();
  const mode = modeOf(address.get('view'));
  const choose = useCallback(
    (key: 'view' | 'quarter', value: string) =>
      setAddress(
        (prev) => {
          const next = new URLSearchParams(prev);
          next.set(key, value);
          return next;
        },
        { replace: true },
      ),
    [setAddress],
  );
  const [searchInput, setSearchInput] = useState('');
  const [pageError, setPageError] = useState<string | null>(null);
  const [creatingCategory, setCreatingCategory] = useState(false);
  const [newAspectCategory, setNewAspectCategory] = useState<string | null>(null);
  const [editingCategory, setEditingCategory] = useState<Category | null>(null);
  const [editingAspect, setEditingAspect] = useState<Aspect | null>(null);
  const [availability, setAvailability] = useState<AvailabilityTarget | null>(null);
  const [takingSnapshot, setTakingSnapshot] = useState(false);

  // A catalog that fails to load is only logged (spec section 8); the page says the service is not found.
  useEffect(() => {
    if (full.isError) console.error('Failed to load the catalog', full.error);
  }, [full.isError, full.error]);

  const data = full.data;
  const timeline = data?.resolved_data.timeline ?? data?.service.timeline ?? [];
  const catalog = useMemo(
    () => (data ? groupCatalog(data.categories, data.resolved_data.aspects, data.resolved_data.timeline ?? data.service.timeline) : null),
    [data],
  );
  const quarter = quarterOf(address.get('quarter'), timeline);
  const archived = Boolean(data?.service.archived);
  const canEdit = Boolean(data?.permissions.canEdit) && !archived;
  const canOpenSettings = Boolean(data?.permissions.canManageSettings ?? data?.permissions.canEdit);

  // mutate keeps its identity across renders (the mutation object does not): the rows' memo holds.
  const reorderAspects = reorder.mutate;
  const onReorder = useCallback(
    (categoryId: string, aspectIds: string[]) => {
      setPageError(null);
      reorderAspects({ categoryId, aspectIds }, { onError: (err) => setPageError(messageOf(err, M.failedReorderAspects)) });
    },
    [reorderAspects],
  );

  const handlers: RoadmapTableHandlers = useMemo(
    () => ({
      onEditAspect: setEditingAspect,
      onEditAvailability: (aspect, bucket) => setAvailability({ aspect, bucket }),
      onEditCategory: setEditingCategory,
      onAddAspect: (categoryId) => setNewAspectCategory(categoryId),
      onReorder,
    }),
    [onReorder],
  );

  if (full.isLoading || full.isError || !data || !catalog) {
    const notFound = full.isError || (!full.isLoading && !data);
    return (
      <AppLayout header={<PageHeader title="Catalog" leading={backButton} />} footer={<CatalogFooter />}>
        {notFound ? (
          <Text size="lg" role="status">
            {M.serviceNotFound}
          </Text>
        ) : (
          <Group gap="xs" role="status">
            <Loader size="sm" />
            <Text>Loading...</Text>
          </Group>
        )}
      </AppLayout>
    );
  }

  const { service } = data;
  // What the open editors edit, as read now: a colleague's change shows in them without losing what is typed.
  const aspectNow = (id: string | undefined) => (id ? data.resolved_data.aspects.find((a) => a.id === id) : undefined);
  const availabilityAspect = aspectNow(availability?.aspect.id);
  const orderedCategories = catalog.groups.map((g) => g.category);
  const nextPosition = orderedCategories.reduce((max, c) => Math.max(max, c.position + 1), 0);
  const emptyText = canEdit ? 'No categories yet. Add one with + Category.' : 'No categories yet.';

  return (
    <AppLayout
      header={<PageHeader title={service.name} icon={service.icon_url} description={htmlToText(service.description)} leading={backButton} />}
      footer={<CatalogFooter />}
    >
      <Stack gap="md">
        {archived ? (
          <Alert color="yellow" role="status" data-testid="archived-banner">
            {M.serviceArchivedBanner}
          </Alert>
        ) : null}
        {pageError ? (
          <Alert color="red" role="alert" withCloseButton closeButtonLabel="Dismiss" onClose={() => setPageError(null)}>
            {pageError}
          </Alert>
        ) : null}
        <Group justify="space-between" wrap="wrap" gap="md">
          <Group gap="md" wrap="wrap" className="print-hidden">
            <SegmentedControl
              aria-label="View mode"
              value={mode}
              onChange={(v) => choose('view', modeOf(v))}
              data={[
                { value: 'roadmap', label: 'Roadmap' },
                { value: 'current', label: 'Current' },
              ]}
            />
            <TextInput
              aria-label="Search aspects"
              placeholder="Search aspects..."
              value={searchInput}
              onChange={(e) => setSearchInput(e.currentTarget.value)}
              w={{ base: '100%', xs: 300 }}
            />
          </Group>
          {mode === 'roadmap' ? (
            <Group gap="sm" className="print-hidden">
              {canEdit ? (
                <>
                  <Button variant="default" onClick={() => setCreatingCategory(true)}>
                    + Category
                  </Button>
                  <Button variant="default" onClick={() => setNewAspectCategory('')} disabled={data.categories.length === 0}>
                    + Aspect
                  </Button>
                </>
              ) : null}
              {canOpenSettings ? (
                <>
                  <Button component={Link} to={`/catalog/${service.id}/settings?compare=latest`} variant="default">
                    Compare with last snapshot
                  </Button>
                  <Button component={Link} to={`/catalog/${service.id}/settings`} variant="default">
                    Settings
                  </Button>
                </>
              ) : null}
            </Group>
          ) : quarter ? (
            <Group gap="xs" wrap="nowrap">
              <Text component="label" htmlFor="current-quarter" size="sm" fw={600}>
                Quarter
              </Text>
              <NativeSelect id="current-quarter" value={quarter} onChange={(e) => choose('quarter', e.currentTarget.value)} data={timeline} w={130} />
            </Group>
          ) : null}
        </Group>

        {searchInput.trim() === '' ? (
          <CatalogFirstSteps
            service={service}
            categoryCount={data.categories.length}
            aspectCount={data.resolved_data.aspects.length}
            permissions={data.permissions}
            onAddCategory={() => setCreatingCategory(true)}
            onAddAspect={() => setNewAspectCategory(orderedCategories[0]?.id ?? '')}
            onTakeSnapshot={() => setTakingSnapshot(true)}
          />
        ) : null}
        <CatalogTables
          serviceId={service.id}
          templates={data.templates}
          catalog={catalog}
          searchInput={searchInput}
          mode={mode}
          timeline={timeline}
          quarter={quarter}
          editable={canEdit}
          handlers={handlers}
          emptyText={emptyText}
        />
      </Stack>

      {canEdit ? (
        <>
          <CreateCategoryModal serviceId={service.id} opened={creatingCategory} position={nextPosition} onClose={() => setCreatingCategory(false)} />
          <CreateAspectModal
            serviceId={service.id}
            categories={orderedCategories}
            initialCategoryId={newAspectCategory}
            onClose={() => setNewAspectCategory(null)}
          />
          <EditCategoryModal category={editingCategory} onClose={() => setEditingCategory(null)} />
          <EditAspectModal
            serviceId={service.id}
            aspect={editingAspect}
            latest={aspectNow(editingAspect?.id)}
            categories={orderedCategories}
            onClose={() => setEditingAspect(null)}
          />
          <AvailabilityModal
            serviceId={service.id}
            target={availability}
            templates={data.templates}
            templatesHref={canOpenSettings ? `/catalog/${service.id}/settings?tab=templates` : null}
            latest={availability && availabilityAspect ? (availabilityAspect.availabilities[availability.bucket] ?? '') : undefined}
            onClose={() => setAvailability(null)}
          />
        </>
      ) : null}
      {canOpenSettings && !archived ? (
        <CreateSnapshotModal serviceId={service.id} published={service.published} opened={takingSnapshot} onClose={() => setTakingSnapshot(false)} />
      ) : null}
    </AppLayout>
  );
}

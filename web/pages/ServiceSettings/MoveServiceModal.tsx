import { Alert, Button, Group, Select, Stack, Text } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import { flushSync } from 'react-dom';
import { SELECTOR_OPTIONS_PAGE } from '../../../common/limits';
import { M } from '../../../common/messages';
import { moveServiceSchema } from '../../../common/schemas/settings';
import { messageOf } from '../../api/client';
import { useMoveService } from '../../api/settings';
import { CatalogModal, ModalCancelButton } from '../../components/CatalogModal';
import { useSchemaForm } from '../../lib/schemaForm';
import type { SessionTenant } from '../../api/storage';
import { TenantSelect } from '../../components/TenantSelect';

interface Props {
  serviceId: string;
  serviceName: string;
  tenants: SessionTenant[];
  /**
   * The session lists the first tenants only (a super admin of many): the target is searched on the
   * server among every active tenant but `currentTenantId`.
   */
  searchAll?: { currentTenantId: string };
  opened: boolean;
  onClose: () => void;
  onMoved: () => void;
}

/** Move to Another Tenant: the service and all its data go to the chosen tenant; it cannot be undone. */
export function MoveServiceModal({ serviceId, serviceName, tenants, searchAll, opened, onClose, onMoved }: Props) {
  const move = useMoveService(serviceId);
  const form = useSchemaForm(moveServiceSchema, { targetTenantId: null as string | null });
  const { reset } = form;
  const [found, setFound] = useState<SessionTenant | null>(null);
  const current = searchAll?.currentTenantId;
  const exclude = useMemo(() => new Set(current ? [current] : []), [current]);

  useEffect(() => {
    if (opened) reset();
  }, [opened, reset]);

  const submit = ({ targetTenantId: target }: typeof form.values) => {
    if (!target) return;
    const tenant = tenants.find((t) => t.id === target) ?? (found?.id === target ? found : undefined);
    if (!window.confirm(`Move "${serviceName}" to ${tenant?.name ?? 'the selected tenant'}? This cannot be undone.`)) return;
    move.mutateAsync(target).then(
      () => {
        // Nothing is left unsaved before the service's page is left.
        flushSync(reset);
        window.alert(M.serviceMoved);
        onMoved();
      },
      (err: unknown) => window.alert(messageOf(err, M.failedMoveService)),
    );
  };

  return (
    <CatalogModal opened={opened} onClose={onClose} title="Move to Another Tenant" dirty={form.isDirty()}>
      <form onSubmit={form.onSubmit(submit)} noValidate>
        <Stack gap="md">
          <Alert color="yellow" variant="light" title="Warning" c="dark.9">
            The service and all its data (categories, aspects, availabilities, snapshots, actor roles and quick templates) move to the target tenant. User
            assignments of people who are not members of that tenant are removed. This cannot be undone.
          </Alert>
          {searchAll ? (
            <TenantSelect
              label="Target tenant"
              placeholder="Select a tenant"
              includeArchived={false}
              exclude={exclude}
              value={form.values.targetTenantId}
              error={form.errors.targetTenantId}
              onChange={(id, tenant) => {
                setFound(tenant ?? null);
                form.setFieldValue('targetTenantId', id);
              }}
            />
          ) : (
            <Select
              label="Target tenant"
              placeholder="Select a tenant"
              data={tenants.map((t) => ({ value: t.id, label: t.name }))}
              searchable
              // The modal puts the focus here: the list opens on a click, a key or typing.
              openOnFocus={false}
              limit={SELECTOR_OPTIONS_PAGE}
              nothingFoundMessage="No tenants found"
              {...form.getInputProps('targetTenantId')}
              data-autofocus
            />
          )}
          {tenants.length === 0 && !searchAll ? <Text size="sm">You belong to no other tenant.</Text> : null}
          <Group justify="flex-end">
            <ModalCancelButton />
            <Button type="submit" color="red.9" loading={move.isPending}>
              Move Service
            </Button>
          </Group>
        </Stack>
      </form>
    </CatalogModal>
  );
}

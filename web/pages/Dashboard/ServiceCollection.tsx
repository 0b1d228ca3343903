import { Anchor, Avatar, Badge, Card, Group, Stack, Table, Text, Title, useMatches, VisuallyHidden } from '@mantine/core';
import { memo, useEffect, useMemo } from 'react';
import { Link } from 'react-router';
import { NO_SERVICE_PERMISSIONS, type ServicePermissions } from '../../../common/permissions';
import { htmlToText } from '../../../common/richText';
import type { Service, ServiceList } from '../../api/services';
import { GapRow } from '../../components/RoadmapTableRow';
import { gapAttributes, useRowWindow, windowPieces, windowRowAttributes } from '../../components/useRowWindow';
import { ServiceActionsMenu, type ServiceActions } from './ServiceActionsMenu';

/** The next page is asked for when the services in the page come this close to the last one loaded. */
const NEAR_END_SERVICES = 30;

interface Props {
  services: Service[];
  view: 'cards' | 'list';
  /** What the caller may do: `default`, and the services an assignment raises above it. */
  permissions: ServiceList['permissions'] | undefined;
  /** Whether any service loaded offers actions (the list view's Actions column). */
  anyActions: boolean;
  actions: ServiceActions;
  /** False while the server has more services than those loaded. */
  complete: boolean;
  onNearEnd: () => void;
}

const permissionsOf = (permissions: ServiceList['permissions'] | undefined, id: string): ServicePermissions =>
  permissions?.services[id] ?? permissions?.default ?? NO_SERVICE_PERMISSIONS;

function ArchivedBadge() {
  return (
    <Badge color="gray.8" variant="filled" size="sm">
      ARCHIVED
    </Badge>
  );
}

const ServiceCard = memo(function ServiceCard({
  service,
  permissions,
  actions,
}: {
  service: Service;
  permissions: ServicePermissions;
  actions: ServiceActions;
}) {
  const summary = htmlToText(service.description);
  return (
    <Card withBorder radius="md" padding="lg" className="service-card" data-testid="service-card">
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm">
        <Group gap="sm" wrap="nowrap" style={{ minWidth: 0 }}>
          {service.icon_url ? <Avatar src={service.icon_url} alt="" radius="md" size={40} /> : null}
          <Stack gap={2} style={{ minWidth: 0 }}>
            <Title order={2} size="h4" className="service-card-title">
              <Anchor component={Link} to={`/catalog/${service.id}`} className="service-card-link" inherit underline="never">
                {service.name}
              </Anchor>
            </Title>
            <Text size="sm" c="dimmed">
              {service.slug}
            </Text>
          </Stack>
        </Group>
        <Group gap={4} wrap="nowrap">
          {service.archived ? <ArchivedBadge /> : null}
          <ServiceActionsMenu service={service} permissions={permissions} actions={actions} />
        </Group>
      </Group>
      {summary ? (
        <Text size="sm" mt="sm" lineClamp={3}>
          {summary}
        </Text>
      ) : null}
    </Card>
  );
});

/** One row of cards, as many as the width holds: the unit the cards are windowed by. */
const CardRow = memo(function CardRow(props: {
  rowKey: string;
  index: number;
  services: Service[];
  columns: number;
  permissions: ServiceList['permissions'] | undefined;
  actions: ServiceActions;
}) {
  const { rowKey, index, services, columns, permissions, actions } = props;
  return (
    <div className="service-card-row" style={{ gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))` }} {...windowRowAttributes(rowKey, index)}>
      {services.map((s) => (
        <ServiceCard key={s.id} service={s} permissions={permissionsOf(permissions, s.id)} actions={actions} />
      ))}
    </div>
  );
});

const CardGap = memo(function CardGap({ first, last, height }: { first: number; last: number; height: number }) {
  return <div className="service-card-gap" aria-hidden="true" style={{ height }} {...gapAttributes(first, last)} />;
});

/** Asks for the next page when the window comes within `near` of the last item loaded. */
function useNearEnd(end: number, count: number, near: number, complete: boolean, onNearEnd: () => void) {
  useEffect(() => {
    if (!complete && end >= count - near) onNearEnd();
  }, [complete, end, count, near, onNearEnd]);
}

/**
 * The cards in rows of as many as the width holds (one, two or three, as the grid was), windowed by
 * rows (useRowWindow): rows near the viewport are in the page, the others gaps of their height.
 */
function ServiceCards({ services, permissions, actions, complete, onNearEnd }: Omit<Props, 'view' | 'anyActions'>) {
  const columns = useMatches({ base: 1, sm: 2, lg: 3 }, { getInitialValueInEffect: false });
  const cardRows = useMemo(() => {
    const out: Service[][] = [];
    for (let i = 0; i < services.length; i += columns) out.push(services.slice(i, i + columns));
    return out;
  }, [services, columns]);
  // A row's height depends on how many cards it holds: its key says so.
  const keys = useMemo(() => cardRows.map((r) => `${columns}|${r[0]!.id}`), [cardRows, columns]);
  const { tableRef, range, focusedKey, onFocus, onBlur, heightOf } = useRowWindow<HTMLDivElement>(keys, { rowTag: 'div', fresh: true });
  useNearEnd(range.end, cardRows.length, Math.ceil(NEAR_END_SERVICES / columns), complete, onNearEnd);

  const focused = focusedKey === null ? -1 : keys.indexOf(focusedKey);
  const pieces = windowPieces(
    cardRows.length,
    (i) => (i >= range.start && i <= range.end) || i === focused,
    (i) => heightOf(keys[i]!),
  );
  return (
    <div ref={tableRef} className="service-cards" data-testid="service-cards" onFocus={onFocus} onBlur={onBlur}>
      {pieces.map((piece) =>
        piece.full ? (
          <CardRow
            key={keys[piece.index]}
            rowKey={keys[piece.index]!}
            index={piece.index}
            services={cardRows[piece.index]!}
            columns={columns}
            permissions={permissions}
            actions={actions}
          />
        ) : (
          <CardGap key={`gap-${keys[piece.from]}`} first={piece.from} last={piece.to} height={piece.height} />
        ),
      )}
    </div>
  );
}

const ServiceRow = memo(function ServiceRow(props: {
  service: Service;
  index: number;
  permissions: ServicePermissions;
  anyActions: boolean;
  actions: ServiceActions;
}) {
  const { service: s, index, permissions, anyActions, actions } = props;
  return (
    <Table.Tr aria-rowindex={index + 2} {...windowRowAttributes(s.id, index)}>
      <Table.Td>
        <Group gap="sm" wrap="nowrap">
          {s.icon_url ? <Avatar src={s.icon_url} alt="" radius="sm" size={24} /> : null}
          <Anchor component={Link} to={`/catalog/${s.id}`} fw={600}>
            {s.name}
          </Anchor>
        </Group>
      </Table.Td>
      <Table.Td>{s.slug}</Table.Td>
      <Table.Td>{s.service_owner}</Table.Td>
      <Table.Td>{s.archived ? <ArchivedBadge /> : 'Active'}</Table.Td>
      {anyActions ? (
        <Table.Td>
          <ServiceActionsMenu service={s} permissions={permissions} actions={actions} />
        </Table.Td>
      ) : null}
    </Table.Tr>
  );
});

/** The list view: one row a service, windowed as the catalog's rows are (useRowWindow). */
function ServiceTable({ services, permissions, anyActions, actions, complete, onNearEnd }: Omit<Props, 'view'>) {
  const keys = useMemo(() => services.map((s) => s.id), [services]);
  const { tableRef, range, focusedKey, onFocus, onBlur, heightOf } = useRowWindow(keys, { fresh: true });
  useNearEnd(range.end, services.length, NEAR_END_SERVICES, complete, onNearEnd);

  const focused = focusedKey === null ? -1 : keys.indexOf(focusedKey);
  const pieces = windowPieces(
    services.length,
    (i) => (i >= range.start && i <= range.end) || i === focused,
    (i) => heightOf(keys[i]!),
  );
  const columns = anyActions ? 5 : 4;
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table
        highlightOnHover
        withTableBorder
        verticalSpacing="sm"
        data-testid="service-list"
        ref={tableRef}
        onFocus={onFocus}
        onBlur={onBlur}
        // Unknown (-1) while more services are still on the server.
        aria-rowcount={complete ? services.length + 1 : -1}
      >
        <Table.Thead>
          <Table.Tr aria-rowindex={1}>
            <Table.Th>Name</Table.Th>
            <Table.Th>Slug</Table.Th>
            <Table.Th>Service Owner</Table.Th>
            <Table.Th>Status</Table.Th>
            {anyActions ? (
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            ) : null}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {pieces.map((piece) => {
            if (!piece.full) return <GapRow key={`gap-${keys[piece.from]}`} first={piece.from} last={piece.to} columns={columns} height={piece.height} />;
            const s = services[piece.index]!;
            return (
              <ServiceRow key={s.id} service={s} index={piece.index} permissions={permissionsOf(permissions, s.id)} anyActions={anyActions} actions={actions} />
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/**
 * The dashboard's services, as cards or as a list; opening one goes to its catalog. Loaded page by
 * page and windowed: only the cards or rows near the viewport are in the page, and coming near the
 * last one loaded, by scrolling or by the keyboard, asks for the next page
 * (docs/decisions/0114-paged-lists.md).
 */
export const ServiceCollection = memo(function ServiceCollection({ view, anyActions, ...rest }: Props) {
  return view === 'cards' ? <ServiceCards {...rest} /> : <ServiceTable anyActions={anyActions} {...rest} />;
});

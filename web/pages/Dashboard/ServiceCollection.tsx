import { Anchor, Avatar, Badge, Card, Group, SimpleGrid, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { memo } from 'react';
import { Link } from 'react-router';
import { htmlToText } from '../../../common/richText';
import type { Service } from '../../api/services';
import { ServiceActionsMenu, type ServiceActions } from './ServiceActionsMenu';

interface Props {
  services: Service[];
  view: 'cards' | 'list';
  actions: ServiceActions;
}

function ArchivedBadge() {
  return (
    <Badge color="gray.8" variant="filled" size="sm">
      ARCHIVED
    </Badge>
  );
}

const ServiceCard = memo(function ServiceCard({ service, actions }: { service: Service; actions: ServiceActions }) {
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
          <ServiceActionsMenu service={service} actions={actions} />
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

/** The dashboard's services, as cards or as a list; opening one goes to its catalog. */
export function ServiceCollection({ services, view, actions }: Props) {
  if (view === 'cards') {
    return (
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
        {services.map((s) => (
          <ServiceCard key={s.id} service={s} actions={actions} />
        ))}
      </SimpleGrid>
    );
  }
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table highlightOnHover withTableBorder verticalSpacing="sm" data-testid="service-list">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Slug</Table.Th>
            <Table.Th>Service Owner</Table.Th>
            <Table.Th>Status</Table.Th>
            {actions.anyActions ? (
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            ) : null}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {services.map((s) => (
            <Table.Tr key={s.id}>
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
              {actions.anyActions ? (
                <Table.Td>
                  <ServiceActionsMenu service={s} actions={actions} />
                </Table.Td>
              ) : null}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

import { Button, List, Table, Text, VisuallyHidden } from '@mantine/core';
import { useMemo } from 'react';
import { useDeliveries, useSendAgain, type WebhookDelivery, type WebhookEndpoint } from '../../api/integrations';
import { CatalogModal } from '../../components/CatalogModal';
import { when } from '../../components/ApiTokenCells';
import { notifySuccess } from '../../lib/notify';

/** A delivery's attempts, oldest first: when, the status answered or why it failed, how long it took. */
function AttemptList({ delivery }: { delivery: WebhookDelivery }) {
  if (delivery.attempt_log.length === 0) return <>{delivery.attempts}</>;
  return (
    <>
      {delivery.attempts}
      <List size="xs" c="dimmed" listStyleType="none" aria-label={`Attempts of ${delivery.event_type} of ${when(delivery.created_at)}`}>
        {delivery.attempt_log.map((a, i) => (
          <List.Item key={i}>
            {when(a.at)}: {a.error ?? a.response_status ?? 'sent'}
            {a.duration_ms === null ? '' : `, ${a.duration_ms} ms`}
          </List.Item>
        ))}
      </List>
    </>
  );
}

/** The delivery log of a webhook, newest first, each delivery with every attempt of it. */
export function DeliveryLog({ webhook, onClose }: { webhook: WebhookEndpoint | null; onClose: () => void }) {
  const deliveries = useDeliveries(webhook?.id ?? null);
  const again = useSendAgain(webhook?.id ?? '');
  const rows = useMemo(() => deliveries.data?.pages.flatMap((p) => p.deliveries) ?? [], [deliveries.data]);
  return (
    <CatalogModal opened={webhook !== null} onClose={onClose} title="Delivery log" size="xl">
      <Text size="sm" mb="sm" style={{ overflowWrap: 'anywhere' }}>
        {webhook?.url}
      </Text>
      {rows.length > 0 ? (
        <Table.ScrollContainer minWidth={560}>
          <Table striped aria-label="Deliveries">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Event</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Response</Table.Th>
                <Table.Th>Time</Table.Th>
                <Table.Th>Attempts</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((d) => (
                <Table.Tr key={d.id}>
                  <Table.Td>
                    {d.event_type}
                    <Text size="xs" c="dimmed">
                      {when(d.created_at)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" fw={600}>
                      {d.status}
                    </Text>
                    {d.error ? (
                      <Text size="xs" c="dimmed">
                        {d.error}
                      </Text>
                    ) : null}
                  </Table.Td>
                  <Table.Td>{d.response_status ?? '—'}</Table.Td>
                  <Table.Td>{d.duration_ms === null ? '—' : `${d.duration_ms} ms`}</Table.Td>
                  <Table.Td>
                    <AttemptList delivery={d} />
                  </Table.Td>
                  <Table.Td>
                    <Button
                      size="xs"
                      variant="default"
                      loading={again.isPending && again.variables === d.id}
                      onClick={() => again.mutate(d.id, { onSuccess: () => notifySuccess('Queued to send again.') })}
                    >
                      Send again
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      ) : null}
      {deliveries.hasNextPage ? (
        <Button variant="default" size="xs" mt="sm" loading={deliveries.isFetchingNextPage} onClick={() => void deliveries.fetchNextPage()}>
          Show older deliveries
        </Button>
      ) : null}
      {!deliveries.isLoading && rows.length === 0 ? <Text>Nothing sent yet</Text> : null}
    </CatalogModal>
  );
}

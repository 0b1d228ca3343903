import { Badge, Button, Group, Paper, Switch, Table, Text, Title } from '@mantine/core';
import type { Tenant } from '../../../api/tenants';

interface Props {
  tenants: Tenant[];
  loading: boolean;
  showArchived: boolean;
  onShowArchived: (value: boolean) => void;
  onCreate: () => void;
  onEdit: (tenant: Tenant) => void;
  onArchive: (tenant: Tenant) => void;
  onUnarchive: (tenant: Tenant) => void;
  onDelete: (tenant: Tenant) => void;
}

export const formatDate = (iso: string) => new Date(iso).toLocaleDateString();

/** Tenant Management: the tenant table with its actions. */
export function TenantManagement(p: Props) {
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="tenant-management">
      <Group justify="space-between" mb="md" wrap="wrap">
        <Title order={2} size="h3" id="tenant-management">
          Tenant Management
        </Title>
        <Group>
          <Switch label="Show Archived Tenants" checked={p.showArchived} onChange={(e) => p.onShowArchived(e.currentTarget.checked)} />
          <Button onClick={p.onCreate}>+ Create Tenant</Button>
        </Group>
      </Group>
      <Table.ScrollContainer minWidth={640}>
        <Table striped highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Slug</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th>Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {p.tenants.map((t) => (
              <Table.Tr key={t.id}>
                <Table.Td>{t.name}</Table.Td>
                <Table.Td>{t.slug}</Table.Td>
                <Table.Td>{t.archived ? <Badge color="dark">ARCHIVED</Badge> : <Badge color="dark" variant="outline">Active</Badge>}</Table.Td>
                <Table.Td>{formatDate(t.created_at)}</Table.Td>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap">
                    {t.archived ? (
                      <>
                        <Button size="xs" variant="default" onClick={() => p.onUnarchive(t)}>
                          Unarchive
                        </Button>
                        <Button size="xs" color="red.9" onClick={() => p.onDelete(t)}>
                          Delete Permanently
                        </Button>
                      </>
                    ) : (
                      <>
                        <Button size="xs" variant="default" onClick={() => p.onEdit(t)}>
                          Edit
                        </Button>
                        <Button size="xs" variant="default" onClick={() => p.onArchive(t)}>
                          Archive
                        </Button>
                      </>
                    )}
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {!p.loading && p.tenants.length === 0 ? (
        <Text c="dimmed" mt="sm">
          No tenants.
        </Text>
      ) : null}
    </Paper>
  );
}

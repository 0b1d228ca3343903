import { Badge, Button, Group, Paper, Switch, Table, Text, Title } from '@mantine/core';
import { memo, useCallback } from 'react';
import { PagedTable } from '../../../components/PagedTable';
import { SearchInput } from '../../../components/SearchInput';
import type { Tenant } from '../../../api/tenants';

const HEADINGS = ['Name', 'Slug', 'Status', 'Created', 'Actions'];
const keyOf = (t: Tenant) => t.id;

/** Stable functions and values: the section renders again only when one of them changes. */
interface Props {
  tenants: Tenant[];
  /** False while the server has more tenants matching the search than those loaded. */
  complete: boolean;
  onNearEnd: () => void;
  /** Told the search once typing pauses; a stable function. */
  onSearch: (search: string) => void;
  showArchived: boolean;
  onShowArchived: (value: boolean) => void;
  onCreate: () => void;
  onEdit: (tenant: Tenant) => void;
  onArchive: (tenant: Tenant) => void;
  onUnarchive: (tenant: Tenant) => void;
  onDelete: (tenant: Tenant) => void;
}

export const formatDate = (iso: string) => new Date(iso).toLocaleDateString();

/** Tenant Management: the tenant table with its actions, searched by name or slug on the server. */
export const TenantManagement = memo(function TenantManagement(p: Props) {
  const { onEdit, onArchive, onUnarchive, onDelete } = p;
  // The rows come a page at a time and only those near the viewport are in the page, so ten
  // thousand tenants show as quickly as twenty (docs/decisions/0114-paged-lists.md).
  const cells = useCallback(
    (t: Tenant) => (
      <>
        <Table.Td>{t.name}</Table.Td>
        <Table.Td>{t.slug}</Table.Td>
        <Table.Td>
          {t.archived ? (
            <Badge color="dark">ARCHIVED</Badge>
          ) : (
            <Badge color="dark" variant="outline">
              Active
            </Badge>
          )}
        </Table.Td>
        <Table.Td>{formatDate(t.created_at)}</Table.Td>
        <Table.Td>
          <Group gap="xs" wrap="nowrap">
            {t.archived ? (
              <>
                <Button size="xs" variant="default" onClick={() => onUnarchive(t)}>
                  Unarchive
                </Button>
                <Button size="xs" color="red.9" onClick={() => onDelete(t)}>
                  Delete Permanently
                </Button>
              </>
            ) : (
              <>
                <Button size="xs" variant="default" onClick={() => onEdit(t)}>
                  Edit
                </Button>
                <Button size="xs" variant="default" onClick={() => onArchive(t)}>
                  Archive
                </Button>
              </>
            )}
          </Group>
        </Table.Td>
      </>
    ),
    [onEdit, onArchive, onUnarchive, onDelete],
  );

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
      <Group mb="md" wrap="wrap">
        <SearchInput label="Search tenants" placeholder="Search by name or slug" onSearch={p.onSearch} miw={260} />
      </Group>
      <PagedTable
        label="Tenants"
        headings={HEADINGS}
        rows={p.tenants}
        rowKey={keyOf}
        cells={cells}
        complete={p.complete}
        onNearEnd={p.onNearEnd}
        minWidth={640}
      />
      {p.complete && p.tenants.length === 0 ? (
        <Text c="dimmed" mt="sm">
          No tenants.
        </Text>
      ) : null}
    </Paper>
  );
});

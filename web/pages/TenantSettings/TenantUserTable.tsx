import { Badge, Button, Table } from '@mantine/core';
import { useCallback } from 'react';
import type { TenantUser } from '../../api/users';
import { PagedTable } from '../../components/PagedTable';
import { roleLabel } from '../../lib/roles';
import { formatDate } from '../SuperAdmin/components/TenantManagement';

const HEADINGS = ['Name', 'Email', 'Role', 'Auth Provider', 'Created', 'Delete'];
const keyOf = (u: TenantUser) => u.id;

interface Props {
  rows: TenantUser[];
  /** False while the server has more rows than those loaded. */
  complete: boolean;
  onNearEnd: () => void;
  onDelete: (user: TenantUser) => void;
}

/** The tenant's users, loaded page by page and windowed (PagedTable). */
export function TenantUserTable({ rows, complete, onNearEnd, onDelete }: Props) {
  const cells = useCallback(
    (user: TenantUser) => (
      <>
        <Table.Td>
          {user.name}
          {user.invitation ? (
            <Badge ml="xs" size="sm" color="blue.9" title="Invited: joins when they first sign in or accept">
              Invited
            </Badge>
          ) : null}
        </Table.Td>
        <Table.Td>{user.email}</Table.Td>
        <Table.Td>{user.super_admin ? 'Super Admin' : roleLabel(user.role)}</Table.Td>
        <Table.Td>{user.auth_provider === 'entra' ? 'Entra' : 'Local'}</Table.Td>
        <Table.Td>{formatDate(user.created_at)}</Table.Td>
        <Table.Td>
          <Button size="xs" color="red.9" onClick={() => onDelete(user)} aria-label={`Delete ${user.email}`}>
            Delete
          </Button>
        </Table.Td>
      </>
    ),
    [onDelete],
  );
  return <PagedTable label="Users" headings={HEADINGS} rows={rows} rowKey={keyOf} cells={cells} complete={complete} onNearEnd={onNearEnd} />;
}

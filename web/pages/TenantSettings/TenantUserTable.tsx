import { Badge, Button, NativeSelect, Table } from '@mantine/core';
import { useCallback } from 'react';
import type { TenantUser } from '../../api/users';
import { PagedTable } from '../../components/PagedTable';
import { ROLE_OPTIONS, roleLabel } from '../../lib/roles';
import type { Role } from '../../../common/roles';
import { formatDate } from '../SuperAdmin/components/TenantManagement';

const HEADINGS = ['Name', 'Email', 'Role', 'Auth Provider', 'Created', 'Delete'];
const keyOf = (u: TenantUser) => u.id;

interface Props {
  rows: TenantUser[];
  /** False while the server has more rows than those loaded. */
  complete: boolean;
  onNearEnd: () => void;
  onDelete: (user: TenantUser) => void;
  /** Changes a member's role in this tenant; absent: the roles are only shown. */
  onRoleChange?: (user: TenantUser, role: Role) => void;
  /** The signed-in person, whose own role is not theirs to change. */
  selfId?: string;
}

/** The tenant's users, loaded page by page and windowed (PagedTable). */
export function TenantUserTable({ rows, complete, onNearEnd, onDelete, onRoleChange, selfId }: Props) {
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
        <Table.Td>
          {user.super_admin || !onRoleChange || user.id === selfId ? (
            user.super_admin ? (
              'Super Admin'
            ) : (
              roleLabel(user.role)
            )
          ) : (
            <NativeSelect
              size="xs"
              aria-label={`Role of ${user.email}`}
              data={ROLE_OPTIONS}
              value={user.role}
              onChange={(e) => onRoleChange(user, e.currentTarget.value as Role)}
            />
          )}
        </Table.Td>
        <Table.Td>{user.auth_provider === 'entra' ? 'Entra' : 'Local'}</Table.Td>
        <Table.Td>{formatDate(user.created_at)}</Table.Td>
        <Table.Td>
          <Button size="xs" color="red.9" onClick={() => onDelete(user)} aria-label={`Delete ${user.email}`}>
            Delete
          </Button>
        </Table.Td>
      </>
    ),
    [onDelete, onRoleChange, selfId],
  );
  return <PagedTable label="Users" headings={HEADINGS} rows={rows} rowKey={keyOf} cells={cells} complete={complete} onNearEnd={onNearEnd} />;
}

import { Button, Group, Table, Text } from '@mantine/core';
import type { ApiTokenView } from '../../common/schemas/integrations';
import { roleLabel } from '../lib/roles';

/** A time as the token lists show it, in the browser's locale. */
export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

/** The columns of a list of API tokens; with the tenant's column (the Super Admin Panel's, across tenants) after the name. */
export const apiTokenHeadings = (withTenant: boolean) => [
  'Name',
  ...(withTenant ? ['Tenant'] : []),
  'Role',
  'Services',
  'Created',
  'Last used',
  'Expires',
  'Actions',
];

/** How a token is named to people: with its tenant where tokens of several tenants are listed. */
export const tokenLabel = (token: { name: string; tenant_name?: string }) => (token.tenant_name ? `${token.name} of ${token.tenant_name}` : token.name);

interface Props<T> {
  token: T;
  /** The names of the services it is limited to; null: every service of its tenant. */
  services: string[] | null;
  /** When it was revoked: the row says so in place of its Revoke button. */
  revokedAt?: string | null;
  onRevoke: (token: T) => void;
  /** Re-issues a suspended token under the caller's name (Tenant Settings); absent: the row only says it is suspended. */
  onReissue?: (token: T) => void;
}

/**
 * The cells of one API token's row, the same in Tenant Settings and in the Super Admin Panel
 * (which also names its tenant): who or what it is, what it may do, and when it was used.
 */
export function ApiTokenCells<T extends ApiTokenView & { tenant_name?: string }>({ token: t, services, revokedAt = null, onRevoke, onReissue }: Props<T>) {
  return (
    <>
      <Table.Td>
        {t.name}
        <Text size="xs" c="dimmed" ff="monospace">
          {t.hint}
        </Text>
        {t.suspended_reason && !revokedAt ? (
          <Text size="xs" c="red.9" fw={600}>
            Suspended: {t.suspended_reason}
          </Text>
        ) : null}
      </Table.Td>
      {t.tenant_name === undefined ? null : <Table.Td>{t.tenant_name}</Table.Td>}
      <Table.Td>{roleLabel(t.role)}</Table.Td>
      <Table.Td>{services === null ? 'All services' : services.join(', ') || 'No services'}</Table.Td>
      <Table.Td>{when(t.created_at)}</Table.Td>
      <Table.Td>{t.last_used_at ? when(t.last_used_at) : 'Never'}</Table.Td>
      <Table.Td>{t.expires_at ? when(t.expires_at) : 'Never'}</Table.Td>
      <Table.Td>
        {revokedAt ? (
          <>
            <Text size="sm" fw={600}>
              Revoked
            </Text>
            <Text size="xs" c="dimmed">
              {when(revokedAt)}
            </Text>
          </>
        ) : (
          <Group gap="xs" wrap="nowrap">
            {t.suspended_reason && onReissue ? (
              <Button size="xs" variant="light" onClick={() => onReissue(t)} aria-label={`Re-issue ${tokenLabel(t)}`}>
                Re-issue
              </Button>
            ) : null}
            <Button size="xs" color="red" variant="light" onClick={() => onRevoke(t)} aria-label={`Revoke ${tokenLabel(t)}`}>
              Revoke
            </Button>
          </Group>
        )}
      </Table.Td>
    </>
  );
}

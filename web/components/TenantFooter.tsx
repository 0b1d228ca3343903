import { Anchor, Group, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useSession } from '../session/SessionProvider';

/** Footer links of the dashboard and the current tenant's name and slug. */
export function TenantFooter() {
  const { user, tenant } = useSession();
  return (
    <Group justify="space-between" wrap="wrap" gap="sm">
      <Group gap="md">
        {user?.permissions?.canManagePlatform ? (
          <Anchor component={Link} to="/super-admin" size="sm">
            Super Admin Panel
          </Anchor>
        ) : null}
        {user?.permissions?.canOpenTenantSettings ? (
          <Anchor component={Link} to="/tenant-settings" size="sm">
            Tenant Settings
          </Anchor>
        ) : null}
      </Group>
      {tenant ? (
        <Text size="sm" c="dimmed" data-testid="footer-tenant">
          Current Tenant: {tenant.name} ({tenant.slug})
        </Text>
      ) : null}
    </Group>
  );
}

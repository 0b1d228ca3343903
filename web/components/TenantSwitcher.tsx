import { NativeSelect, Text } from '@mantine/core';
import { useSession } from '../session/SessionProvider';

/** A plain name for one tenant; a dropdown that stores the choice and reloads for several. */
export function TenantSwitcher() {
  const { user, tenant, switchTenant } = useSession();
  if (!user || !tenant) return null;
  const tenants = user.availableTenants;
  if (tenants.length <= 1) {
    return (
      <Text size="sm" fw={500} data-testid="tenant-name">
        {tenant.name}
      </Text>
    );
  }
  return (
    <NativeSelect
      aria-label="Tenant"
      size="xs"
      value={tenant.id}
      data={tenants.map((t) => ({ value: t.id, label: t.name }))}
      onChange={(e) => {
        const next = tenants.find((t) => t.id === e.currentTarget.value);
        if (next) switchTenant(next);
      }}
    />
  );
}

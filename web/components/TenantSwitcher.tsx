import { NativeSelect, Text } from '@mantine/core';
import { useSession } from '../session/SessionProvider';

/** A plain name for one tenant; a dropdown that stores the choice and reloads for several. */
export function TenantSwitcher() {
  const { user, tenant, switchTenant } = useSession();
  if (!user || !tenant) return null;
  const tenants = user.availableTenants;
  if (tenants.length <= 1) {
    return (
      <Text size="sm" fw={500} data-testid="tenant-name" className="page-header-name">
        {tenant.name}
      </Text>
    );
  }
  return (
    <NativeSelect
      aria-label="Tenant"
      size="xs"
      // A long name is cut short in the closed select (its options and title show it in full), so
      // the header's other controls keep their room.
      w="16rem"
      maw="100%"
      title={tenant.name}
      value={tenant.id}
      data={tenants.map((t) => ({ value: t.id, label: t.name }))}
      onChange={(e) => {
        const next = tenants.find((t) => t.id === e.currentTarget.value);
        if (next) switchTenant(next);
      }}
    />
  );
}

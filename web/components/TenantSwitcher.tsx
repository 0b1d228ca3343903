import { NativeSelect, Select, Text } from '@mantine/core';
import { useMemo } from 'react';
import { SELECTOR_OPTIONS_PAGE } from '../../common/limits';
import { tenantsCapped, type SessionTenant } from '../api/storage';
import { useSession } from '../session/SessionProvider';
import { TenantSelect } from './TenantSelect';

/**
 * Up to this many tenants the switcher is the browser's own dropdown. A super admin may reach ten
 * thousand: a native list holds every one of them in every page (10,000 elements restyled at each
 * change anywhere), so above this the switcher is searched as one types and shows at most a page of
 * options (docs/decisions/0114-paged-lists.md).
 */
const NATIVE_SWITCHER_MAX = 50;

/** A plain name for one tenant; a dropdown that stores the choice and reloads for several. */
export function TenantSwitcher() {
  const { user, tenant, switchTenant } = useSession();
  const tenants = user?.availableTenants;
  const data = useMemo(() => (tenants ?? []).map((t) => ({ value: t.id, label: t.name })), [tenants]);
  if (!user || !tenant || !tenants) return null;
  if (tenants.length <= 1) {
    return (
      <Text size="sm" fw={500} data-testid="tenant-name" className="page-header-name">
        {tenant.name}
      </Text>
    );
  }
  const choose = (id: string | null, found?: SessionTenant) => {
    const next = found ?? tenants.find((t: SessionTenant) => t.id === id);
    if (next && next.id !== tenant.id) switchTenant(next);
  };
  // A long name is cut short in the closed select (its options and title show it in full), so the
  // header's other controls keep their room.
  const common = { 'aria-label': 'Tenant', size: 'xs', w: '16rem', maw: '100%', title: tenant.name } as const;
  if (tenantsCapped(user)) {
    // The session lists the first tenants only (SESSION_TENANTS_CAP): the server searches them all.
    return (
      <TenantSelect
        {...common}
        value={tenant.id}
        selected={{ value: tenant.id, label: tenant.name }}
        onChange={choose}
        includeArchived={false}
        allowDeselect={false}
        comboboxProps={{ withinPortal: false }}
      />
    );
  }
  if (tenants.length > NATIVE_SWITCHER_MAX) {
    return (
      <Select
        {...common}
        data={data}
        value={tenant.id}
        onChange={(id) => choose(id)}
        searchable
        limit={SELECTOR_OPTIONS_PAGE}
        allowDeselect={false}
        nothingFoundMessage="No tenants found"
        // The options open inside the header's landmark, not at the end of the page outside every landmark.
        comboboxProps={{ withinPortal: false }}
      />
    );
  }
  return <NativeSelect {...common} value={tenant.id} data={data} onChange={(e) => choose(e.currentTarget.value)} />;
}

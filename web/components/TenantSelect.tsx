import { Select, type SelectProps } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useEffect, useMemo, useState } from 'react';
import { SEARCH_DEBOUNCE_MS, SELECTOR_OPTIONS_PAGE } from '../../common/limits';
import { useTenantOptions } from '../api/admin';
import type { Tenant } from '../api/tenants';

/** Options a tenant selector offers: at most this many, whatever the installation holds. */
export const TENANT_OPTIONS_PAGE = SELECTOR_OPTIONS_PAGE;

type Option = { value: string; label: string };

interface Props extends Pick<
  SelectProps,
  | 'label'
  | 'placeholder'
  | 'required'
  | 'withAsterisk'
  | 'error'
  | 'onBlur'
  | 'w'
  | 'maw'
  | 'size'
  | 'title'
  | 'aria-label'
  | 'style'
  | 'allowDeselect'
  | 'comboboxProps'
> {
  value: string | null;
  /** The id chosen, and the tenant as the search found it. */
  onChange: (id: string | null, tenant?: Tenant) => void;
  /** The option of a value set from outside (the tenant in use): no search needs to find it to show it. */
  selected?: Option;
  /** Whether archived tenants are offered (marked as such). */
  includeArchived: boolean;
  /** Options offered besides the tenants (the platform's audit log), when they match the text typed. */
  extra?: Option[];
  /** Tenants not to offer (those already chosen elsewhere). */
  exclude?: ReadonlySet<string>;
  nothingFound?: string;
}

/**
 * A tenant selector of a super admin (the panel's, the header's and Move to Another Tenant's above
 * the session's cap): the server searches the tenants' names and slugs as one types (once typing
 * pauses) and answers at most a page of options, so the list stays short with ten thousand tenants.
 * The text of the chosen option is not a search.
 */
export function TenantSelect({ value, onChange, selected, includeArchived, extra, exclude, nothingFound = 'No tenants found', ...rest }: Props) {
  const [typed, setTyped] = useState('');
  const [picked, setPicked] = useState<Option | null>(selected ?? null);
  // Cleared from outside (a form reset): the text goes with it.
  useEffect(() => {
    if (!value && picked) {
      setPicked(null);
      setTyped('');
    }
  }, [value, picked]);
  const text = picked && typed === picked.label ? '' : typed.trim();
  const [search] = useDebouncedValue(text, SEARCH_DEBOUNCE_MS);
  const extras = useMemo(() => (extra ?? []).filter((o) => !text || o.label.toLowerCase().includes(text.toLowerCase())), [extra, text]);
  // Nothing is searched before the list is first opened (the header's switcher is in every page).
  const [wanted, setWanted] = useState(false);
  const found = useTenantOptions(search, includeArchived, wanted, TENANT_OPTIONS_PAGE - (extra?.length ?? 0));

  const tenants = found.data?.tenants;
  const options = useMemo(() => {
    const shown = (tenants ?? []).filter((t) => !exclude?.has(t.id)).map((t) => ({ value: t.id, label: t.archived ? `${t.name} (archived)` : t.name }));
    const all = [...shown, ...extras];
    // The chosen tenant stays an option whatever the last search found.
    return picked && value === picked.value && !all.some((o) => o.value === picked.value) ? [picked, ...all] : all;
  }, [tenants, exclude, extras, picked, value]);

  return (
    <Select
      {...rest}
      data={options}
      value={value}
      onChange={(next, option) => {
        setPicked(next && option ? { value: next, label: option.label } : null);
        onChange(
          next,
          tenants?.find((t) => t.id === next),
        );
      }}
      onDropdownOpen={() => setWanted(true)}
      // The list opens on a click, a key or typing, not when the focus arrives (a modal's first field,
      // the header's switcher passed through with Tab).
      openOnFocus={false}
      searchable
      searchValue={typed}
      onSearchChange={setTyped}
      // The options are the server's answer to the search: shown as they come.
      filter={({ options: shown }) => shown}
      nothingFoundMessage={found.isFetching ? 'Searching...' : nothingFound}
    />
  );
}

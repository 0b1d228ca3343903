import { TextInput, type TextInputProps } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { memo, useEffect, useState } from 'react';
import { SEARCH_DEBOUNCE_MS } from '../../common/limits';

type Props = Omit<TextInputProps, 'value' | 'defaultValue' | 'onChange'> & {
  /** Told what is typed, trimmed, once typing pauses; a stable function. */
  onSearch: (search: string) => void;
};

/**
 * A search box that holds what is typed and tells the page once typing pauses, as the catalog's
 * search does: a keystroke renders this box alone, never the list it searches (which the server
 * searches with what the page is told).
 */
export const SearchInput = memo(function SearchInput({ onSearch, ...input }: Props) {
  const [value, setValue] = useState('');
  const [debounced] = useDebouncedValue(value.trim(), SEARCH_DEBOUNCE_MS);
  useEffect(() => onSearch(debounced), [debounced, onSearch]);
  return <TextInput {...input} value={value} onChange={(e) => setValue(e.currentTarget.value)} />;
});

import { Alert, Button, CloseButton, Group, Pill, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { M } from '../../../common/messages';
import { messageOf } from '../../api/client';
import { useSchemaForm } from '../../lib/schemaForm';

interface Item {
  id: string;
  text: string;
}

export interface TagEditorProps {
  /** Names the list and the add field for assistive technology. */
  label: string;
  items: Item[];
  placeholder: string;
  /** The add request's schema reduced to its one typed field, named `field` (its rule and message). */
  schema: Parameters<typeof useSchemaForm>[0];
  field: string;
  addFallback: string;
  deleteFallback: string;
  onAdd: (text: string) => Promise<unknown>;
  onDelete: (id: string) => Promise<unknown>;
  disabled?: boolean;
}

/** Tags with a delete button each and an add field; errors show inline (spec section 8). */
export function TagEditor({ label, items, placeholder, schema, field, addFallback, deleteFallback, onAdd, onDelete, disabled }: TagEditorProps) {
  const form = useSchemaForm<Record<string, string>>(schema, { [field]: '' });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const add = async (values: Record<string, string>) => {
    const value = (values[field] ?? '').trim();
    setBusy(true);
    setError(null);
    try {
      await onAdd(value);
      // Keep anything typed while the add was on its way.
      if ((form.getValues()[field] ?? '').trim() === value) form.reset();
    } catch (err) {
      setError(messageOf(err, addFallback));
    } finally {
      setBusy(false);
    }
  };

  const remove = async (item: Item) => {
    if (!window.confirm(`Delete "${item.text}"? ${M.cannotBeUndone}.`)) return;
    setError(null);
    try {
      await onDelete(item.id);
    } catch (err) {
      setError(messageOf(err, deleteFallback));
    }
  };

  return (
    <Stack gap="md" maw={720}>
      {items.length ? (
        <Group gap="xs" role="list" aria-label={label}>
          {items.map((item) => (
            <div role="listitem" key={item.id}>
              <Pill size="lg" className="settings-tag">
                <Group gap={4} wrap="nowrap" component="span">
                  <span>{item.text}</span>
                  {!disabled ? <CloseButton size="sm" onClick={() => void remove(item)} aria-label={`Delete ${item.text}`} /> : null}
                </Group>
              </Pill>
            </div>
          ))}
        </Group>
      ) : (
        <Text c="dimmed" size="sm">
          None yet.
        </Text>
      )}
      {!disabled ? (
        <form
          onSubmit={form.onSubmit(
            (values) => void add(values),
            () => setError(null),
          )}
          noValidate
        >
          <Group align="flex-start" gap="sm">
            <TextInput
              aria-label={placeholder.replace(/\.\.\.$/, '')}
              placeholder={placeholder}
              {...form.getInputProps(field)}
              // Announced as it appears, as the other errors of this tab are.
              errorProps={{ role: 'alert' }}
              style={{ flex: 1 }}
            />
            <Button type="submit" loading={busy}>
              Add
            </Button>
          </Group>
        </form>
      ) : null}
      {error ? (
        <Alert color="red" role="alert" variant="light" c="red.9">
          {error}
        </Alert>
      ) : null}
    </Stack>
  );
}

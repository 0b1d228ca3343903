import { useEffect, useRef } from 'react';
import { schemaResolver, useForm, type UseFormInput, type UseFormReturnType } from '@mantine/form';

type Values = Record<string, unknown>;
/** A schema the resolver takes: any Standard Schema, which every zod schema is. */
type Schema = Parameters<typeof schemaResolver>[0];

function valueAt(values: Values, path: string): unknown {
  return path.split('.').reduce<unknown>((v, key) => (v == null ? undefined : (v as Record<string, unknown>)[key]), values);
}

/**
 * A form checked by a shared schema of `common/` (the server validates the same request with it),
 * so a rule and its message live once. A field's error appears when it is left or the form is
 * submitted, and goes as soon as the field is valid again while it is being corrected; a field
 * still wrong keeps its message. `isDirty()` says whether closing needs a "Discard changes?".
 */
export function useSchemaForm<V extends Values>(
  schema: Schema,
  initialValues: V,
  options: Omit<UseFormInput<V>, 'initialValues' | 'validate' | 'mode'> = {},
): UseFormReturnType<V> {
  const ref = useRef<UseFormReturnType<V> | null>(null);
  const form = useForm<V>({
    mode: 'controlled',
    initialValues,
    validate: schemaResolver(schema, { sync: true }),
    validateInputOnBlur: true,
    clearInputErrorOnChange: false,
    ...options,
    onValuesChange: (values, previous) => {
      options.onValuesChange?.(values, previous);
      const current = ref.current;
      if (!current) return;
      // Only fields already showing an error are checked as they change: a new field stays quiet
      // until it is left.
      for (const path of Object.keys(current.errors)) {
        if (valueAt(values, path) !== valueAt(previous, path)) current.validateField(path);
      }
    },
  });
  ref.current = form;
  return form;
}

/**
 * Every opening of a modal's form starts afresh: nothing typed and no error left from an earlier
 * try. The modal opens when `opened` becomes true, or becomes the thing it edits; `onOpen` sets
 * what else an opening starts from (the values editing starts from, before the form is reset).
 */
/**
 * For a form's submit button: pressing it does not take the focus from the field being typed in.
 * A field checked as it is left would otherwise show its error between the press and the release,
 * move the button down in a form scrolled to its end, and the click would land beside it.
 */
export const keepFieldFocus = (e: { preventDefault: () => void }) => e.preventDefault();

export function useFreshOnOpen(opened: unknown, form: { reset: () => void }, setError: (error: null) => void, onOpen?: () => void) {
  const ref = useRef({ form, onOpen });
  ref.current = { form, onOpen };
  useEffect(() => {
    if (!opened) return;
    ref.current.onOpen?.();
    ref.current.form.reset();
    setError(null);
  }, [opened, setError]);
}

import { TextInput, type TextInputProps } from '@mantine/core';

/** A service's slug field, as Create Service and Import both ask for it (a form's `getInputProps('slug')`). */
export function ServiceSlugInput(props: Omit<TextInputProps, 'label' | 'required' | 'description'>) {
  return <TextInput label="Slug" required description="Lowercase letters, digits and hyphens; it cannot be changed later." {...props} />;
}

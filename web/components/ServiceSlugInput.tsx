import { TextInput } from '@mantine/core';

/** A service's slug field, as Create Service and Import both ask for it. */
export function ServiceSlugInput({ value, onChange, error }: { value: string; onChange: (slug: string) => void; error?: string }) {
  return (
    <TextInput
      label="Slug"
      required
      description="Lowercase letters, digits and hyphens; it cannot be changed later."
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      error={error}
    />
  );
}

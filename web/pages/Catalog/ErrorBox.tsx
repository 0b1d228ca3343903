import { Alert } from '@mantine/core';

/** The inline error box of the catalog's modals (spec section 8). */
export function ErrorBox({ error }: { error: string | null }) {
  return error ? (
    <Alert color="red" role="alert">
      {error}
    </Alert>
  ) : null;
}

import { Alert } from '@mantine/core';

/** The dismissible message bar of the administration pages (spec section 8). */
export function MessageBar({ message, onClose, color = 'red' }: { message: string | null; onClose: () => void; color?: string }) {
  if (!message) return null;
  return (
    <Alert color={color} role="alert" withCloseButton closeButtonLabel="Dismiss message" onClose={onClose} data-testid="message-bar">
      {message}
    </Alert>
  );
}

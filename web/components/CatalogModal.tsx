import './CatalogModal.css';
import { Modal, type MantineSize } from '@mantine/core';
import type { ReactNode } from 'react';

interface Props {
  opened: boolean;
  onClose: () => void;
  title: string;
  size?: MantineSize | number | string;
  children: ReactNode;
}

/**
 * The modal of the dashboard and catalog screens: Mantine's Modal (closes on Escape and overlay
 * click, traps focus), with a header that is not a second page banner, a named close button and
 * error texts dark enough to read.
 */
export function CatalogModal({ opened, onClose, title, size = 'md', children }: Props) {
  return (
    <Modal.Root opened={opened} onClose={onClose} size={size} centered className="catalog-modal">
      <Modal.Overlay />
      <Modal.Content>
        <Modal.Header role="none">
          <Modal.Title fw={650} fz="lg">
            {title}
          </Modal.Title>
          <Modal.CloseButton aria-label="Close" />
        </Modal.Header>
        <Modal.Body>{children}</Modal.Body>
      </Modal.Content>
    </Modal.Root>
  );
}

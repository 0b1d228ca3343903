import './CatalogModal.css';
import { Button, Modal, type ButtonProps, type MantineSize } from '@mantine/core';
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useEffectEvent,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
  type ReactNode,
} from 'react';
import { DiscardChangesDialog, useUnsavedChanges } from '../lib/unsavedChanges';

interface Props {
  opened: boolean;
  onClose: () => void;
  title: string;
  size?: MantineSize | number | string;
  /** Typed work not yet saved: closing asks "Discard changes?" first, and so does leaving the page. */
  dirty?: boolean;
  children: ReactNode;
}

interface ModalGuard {
  /** Closes the modal as its X does: after "Discard changes?" when something typed is unsaved. */
  requestClose: () => void;
  /** A form inside says whether it holds unsaved changes. */
  setDirty: (dirty: boolean) => void;
}

const ModalGuardContext = createContext<ModalGuard | null>(null);

/** For a form inside a CatalogModal: declares its unsaved changes and gives the guarded close for its Cancel. */
export function useModalDirty(dirty: boolean): () => void {
  const guard = useContext(ModalGuardContext);
  const setDirty = guard?.setDirty;
  useLayoutEffect(() => {
    setDirty?.(dirty);
  }, [setDirty, dirty]);
  // Unmounted (the modal closed): nothing of this form is left to lose.
  useLayoutEffect(() => () => setDirty?.(false), [setDirty]);
  return guard?.requestClose ?? (() => undefined);
}

/** The Cancel of a modal's form: closes like the X, asking first when something typed would be lost. */
export function ModalCancelButton(props: Omit<ButtonProps, 'children' | 'variant'>) {
  const guard = useContext(ModalGuardContext);
  return (
    <Button variant="default" {...props} onClick={guard?.requestClose}>
      Cancel
    </Button>
  );
}

/**
 * The modal of the dashboard and catalog screens: Mantine's Modal (closes on Escape and overlay
 * click, traps focus), with a header that is not a second page banner, a named close button and
 * error texts dark enough to read. Typed work is never lost by accident: with unsaved changes
 * (the `dirty` prop, or a form inside through `useModalDirty`) the X, Cancel, Escape, a click
 * outside and leaving the page ask "Discard changes?" first; with nothing changed they close at once.
 */
export function CatalogModal({ opened, onClose, title, size = 'md', dirty = false, children }: Props) {
  const [formDirty, setFormDirty] = useState(false);
  const [asking, setAsking] = useState(false);
  const content = useRef<HTMLDivElement>(null);
  const unsaved = opened && (dirty || formDirty);

  useUnsavedChanges(unsaved, onClose);

  const requestClose = useCallback(() => (unsaved ? setAsking(true) : onClose()), [unsaved, onClose]);
  const setDirty = useCallback((next: boolean) => setFormDirty(next), []);
  const guard = useMemo<ModalGuard>(() => ({ requestClose, setDirty }), [requestClose, setDirty]);

  // Escape closes only the innermost layer. A link box, a menu or a select's list handles its own
  // Escape: those open outside the modal's box (their keys still bubble here), and a select marks
  // its field while its list is open. Mantine's own Escape handling would close the modal on any
  // Escape, so the modal listens itself.
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'Escape' || event.nativeEvent.isComposing) return;
    const target = event.target as HTMLElement;
    if (!content.current?.contains(target) || target.closest('[data-mantine-stop-propagation="true"]')) return;
    event.stopPropagation();
    requestClose();
  };

  // Focus lost to the page (a button that went busy, a field that went away): the modal on top
  // still takes the Escape.
  const onPageEscape = useEffectEvent((event: globalThis.KeyboardEvent) => {
    if (event.key !== 'Escape' || event.isComposing || (event.target !== document.body && event.target !== document.documentElement)) return;
    const dialogs = document.querySelectorAll('[role="dialog"][aria-modal="true"]');
    if (dialogs[dialogs.length - 1] === content.current) requestClose();
  });
  useEffect(() => {
    if (!opened) return;
    window.addEventListener('keydown', onPageEscape);
    return () => window.removeEventListener('keydown', onPageEscape);
  }, [opened]);

  return (
    <Modal.Root opened={opened} onClose={requestClose} size={size} centered className="catalog-modal" closeOnEscape={false} onKeyDown={onKeyDown}>
      <Modal.Overlay />
      <Modal.Content ref={content}>
        <Modal.Header role="none">
          <Modal.Title fw={650} fz="lg">
            {title}
          </Modal.Title>
          <Modal.CloseButton aria-label="Close" />
        </Modal.Header>
        <Modal.Body>
          <ModalGuardContext.Provider value={guard}>{children}</ModalGuardContext.Provider>
        </Modal.Body>
      </Modal.Content>
      <DiscardChangesDialog
        opened={asking && opened}
        onKeepEditing={() => setAsking(false)}
        onDiscard={() => {
          setAsking(false);
          onClose();
        }}
      />
    </Modal.Root>
  );
}

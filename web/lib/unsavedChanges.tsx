import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useEffect, useLayoutEffect, useRef } from 'react';
import { Outlet, useBlocker, type BlockerFunction } from 'react-router';

export const DISCARD_TITLE = 'Discard changes?';
const DISCARD_TEXT = 'What you typed here has not been saved and will be lost.';

/** Everything on screen holding typed work not yet saved; each says how to let it go. */
const unsaved = new Map<symbol, { discard?: () => void }>();

/**
 * Declares typed work not yet saved while `dirty` holds: leaving the page (a link, the browser's
 * Back) asks first, and so do a reload and closing the tab. `discard` lets it go when the person
 * chooses to leave anyway (a modal closes). The declaration follows the render it belongs to, so a
 * navigation right after a save (in `flushSync`) is no longer held back.
 */
export function useUnsavedChanges(dirty: boolean, discard?: () => void) {
  const discardRef = useRef(discard);
  useLayoutEffect(() => {
    discardRef.current = discard;
  });
  useLayoutEffect(() => {
    if (!dirty) return;
    const key = Symbol('unsaved');
    unsaved.set(key, { discard: () => discardRef.current?.() });
    return () => {
      unsaved.delete(key);
    };
  }, [dirty]);
}

interface DialogProps {
  opened: boolean;
  onDiscard: () => void;
  onKeepEditing: () => void;
}

/** "Discard changes?": asked before typed work is thrown away; Escape and a click outside keep editing. */
export function DiscardChangesDialog({ opened, onDiscard, onKeepEditing }: DialogProps) {
  return (
    <Modal.Root opened={opened} onClose={onKeepEditing} size="sm" centered zIndex={400} className="catalog-modal">
      <Modal.Overlay />
      <Modal.Content>
        <Modal.Header role="none">
          <Modal.Title fw={650} fz="lg">
            {DISCARD_TITLE}
          </Modal.Title>
        </Modal.Header>
        <Modal.Body>
          <Stack gap="md">
            <Text size="sm">{DISCARD_TEXT}</Text>
            <Group justify="flex-end">
              <Button variant="default" onClick={onKeepEditing} data-autofocus>
                Keep editing
              </Button>
              <Button color="red.9" onClick={onDiscard}>
                Discard
              </Button>
            </Group>
          </Stack>
        </Modal.Body>
      </Modal.Content>
    </Modal.Root>
  );
}

// A navigation to where the person already is loses nothing.
const leaves: BlockerFunction = ({ currentLocation, nextLocation }) =>
  unsaved.size > 0 && (currentLocation.pathname !== nextLocation.pathname || currentLocation.search !== nextLocation.search);

/**
 * The router's one guard (a router keeps only one blocker): every screen renders inside it, and a
 * navigation away from unsaved work, the browser's Back included, waits for "Discard changes?".
 */
export function UnsavedChangesGuard() {
  const blocker = useBlocker(leaves);

  useEffect(() => {
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      if (unsaved.size === 0) return;
      event.preventDefault();
      // Older browsers ask only when a value is set.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, []);

  const discard = () => {
    for (const entry of [...unsaved.values()]) entry.discard?.();
    blocker.proceed?.();
  };

  return (
    <>
      <Outlet />
      <DiscardChangesDialog opened={blocker.state === 'blocked'} onDiscard={discard} onKeepEditing={() => blocker.reset?.()} />
    </>
  );
}

import { useCallback, useState } from 'react';
import { M } from '../../common/messages';
import { messageOf } from '../api/client';

/**
 * Runs a modal's save, keeping its failure inline in the modal (spec section 8: create and edit
 * modals use inline error boxes). Answers whether the save went through.
 */
export function useSubmit(fallback: string = M.requestFailed) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(
    async (fn: () => Promise<unknown>): Promise<boolean> => {
      setBusy(true);
      setError(null);
      try {
        await fn();
        return true;
      } catch (err) {
        setError(messageOf(err, fallback));
        return false;
      } finally {
        setBusy(false);
      }
    },
    [fallback],
  );
  return { busy, error, setError, run };
}

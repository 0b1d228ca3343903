import { useCallback, useState } from 'react';
import { messageOf } from '../../api/client';

/**
 * The one way a catalog modal acts: clear the error box, run the call, close on success, or show
 * the answer's message (else the spec's fallback) and run onFail.
 */
export function useModalAction(onClose: () => void) {
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(
    async (action: () => Promise<unknown>, fallback: string, onFail?: () => void) => {
      setError(null);
      try {
        await action();
        onClose();
      } catch (err) {
        onFail?.();
        setError(messageOf(err, fallback));
      }
    },
    [onClose],
  );
  return { error, setError, run };
}

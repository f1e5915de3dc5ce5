// Runs one user action against the API at a time, remembering whether it is under way and how it
// failed, so its button can show progress and its error can be shown beside it.
import { useState } from 'preact/hooks';
import { asApiError, type ApiError } from '../api/client';

export interface Action {
  busy: boolean;
  error?: ApiError;
  run<T>(work: () => Promise<T>): Promise<T | undefined>;
  clear(): void;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  return {
    busy,
    error,
    async run(work) {
      setBusy(true);
      setError(undefined);
      try {
        return await work();
      } catch (failure) {
        setError(asApiError(failure));
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    clear: () => setError(undefined),
  };
}

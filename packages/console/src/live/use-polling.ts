// Loads a resource and, while `live`, polls it again with backoff (see backoff.ts for why polling).
// Polling pauses while the tab is hidden and resumes at once when it shows again. A new `key` (an
// other page, filter or id) starts afresh; answers for an old key are dropped.
import { useEffect, useRef, useState } from 'preact/hooks';
import { asApiError, type ApiError } from '../api/client';
import { LIVE_POLICY, nextDelay, type BackoffPolicy, type PollOutcome } from './backoff';

export interface PollState<T> {
  data?: T;
  /** The last failure; kept data stays shown beside it. */
  error?: ApiError;
  /** No answer yet for this key. */
  loading: boolean;
  updatedAt?: number;
  /** When the next poll is due, while live. */
  nextPollAt?: number;
}

export interface Poll<T> extends PollState<T> {
  refresh(): void;
}

export function usePolling<T>(load: () => Promise<T>, key: string, live: boolean, policy: BackoffPolicy = LIVE_POLICY): Poll<T> {
  const [state, setState] = useState<PollState<T>>({ loading: true });
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const keyRef = useRef(key);

  useEffect(() => {
    if (keyRef.current !== key) {
      keyRef.current = key;
      setState({ loading: true });
    }
    let stopped = false;
    let running = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let delay = policy.minMs;
    let fingerprint: string | undefined;

    const schedule = () => {
      if (stopped || !live || document.hidden) return;
      timer = setTimeout(run, delay);
      const due = Date.now() + delay;
      setState((previous) => ({ ...previous, nextPollAt: due }));
    };

    const run = async () => {
      timer = undefined;
      running = true;
      let outcome: PollOutcome;
      try {
        const data = await loadRef.current();
        if (stopped) return;
        const print = JSON.stringify(data);
        outcome = print === fingerprint ? 'unchanged' : 'changed';
        fingerprint = print;
        setState({ data, loading: false, updatedAt: Date.now() });
      } catch (error) {
        if (stopped) return;
        outcome = 'failed';
        setState((previous) => ({ ...previous, error: asApiError(error), loading: false, nextPollAt: undefined }));
      } finally {
        running = false;
      }
      delay = nextDelay(delay, outcome, policy);
      schedule();
    };

    const onVisibility = () => {
      if (document.hidden) {
        clearTimeout(timer);
        timer = undefined;
      } else if (live && !running && timer === undefined) {
        delay = policy.minMs;
        void run();
      }
    };

    void run();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [key, live, generation, policy]);

  return { ...state, refresh: () => setGeneration((value) => value + 1) };
}

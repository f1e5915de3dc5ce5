// A recovery's progress (QUEUED → RUNNING → COMPLETED, with the rows sent back so far), polled with
// backoff until it completes. It starts quicker than the live lists: a recovery of a few rows
// completes within seconds, and its form is waiting for the answer.
import { useEffect, useState } from 'preact/hooks';
import type { Recovery } from '../../api/types';
import type { BackoffPolicy } from '../../live/backoff';
import { usePolling } from '../../live/use-polling';
import { useSession } from '../../session/context';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Time } from '../../ui/Time';

const RECOVERY_POLICY: BackoffPolicy = { minMs: 500, maxMs: 15_000, idleFactor: 1.5, errorFactor: 2 };

const STATES: Record<Recovery['status'], { label: string; tone: string }> = {
  QUEUED: { label: 'Queued', tone: 'wait' },
  RUNNING: { label: 'Running', tone: 'wait' },
  COMPLETED: { label: 'Completed', tone: 'good' },
};

export function RecoveryProgress({ subscriberId, started, onCompleted }: { subscriberId: string; started: Recovery; onCompleted(): void }) {
  const { api } = useSession();
  // Polling stops once the recovery answers COMPLETED: nothing changes after that.
  const [finished, setFinished] = useState(started.status === 'COMPLETED');
  const poll = usePolling(() => api.getRecovery(subscriberId, started.recoveryId), `recovery:${started.recoveryId}`, !finished, RECOVERY_POLICY);
  const recovery = poll.data ?? started;
  const live = recovery.status !== 'COMPLETED';
  useEffect(() => {
    if (live) return;
    setFinished(true);
    onCompleted();
    // Keyed on `live` only: once per recovery, whatever the identity of onCompleted on later renders.
  }, [live]);
  const state = STATES[recovery.status];
  return (
    <div class="recovery" data-recovery-id={recovery.recoveryId}>
      <p role="status">
        Recovery <code>{recovery.recoveryId}</code>:{' '}
        <span class={`badge badge-${state.tone}`} data-recovery-status={recovery.status}>
          {state.label}
        </span>{' '}
        <span data-testid="recovery-requeued">
          {recovery.requeued} {recovery.requeued === 1 ? 'delivery' : 'deliveries'} sent again
        </span>
        {live ? ' so far.' : '.'}
      </p>
      <p class="muted">
        Range <Time iso={recovery.since} /> to <Time iso={recovery.until} />, statuses {recovery.statuses.join(', ')}
        {recovery.completedAt && (
          <>
            ; completed <Time iso={recovery.completedAt} />
          </>
        )}
        .
      </p>
      {poll.error && <ErrorNotice error={poll.error} title="Could not check the recovery's progress" />}
    </div>
  );
}

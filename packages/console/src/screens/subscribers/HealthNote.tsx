// The endpoint health the delivery engine reports, in words. HealthNote is the badge beside the
// enabled state (nothing while healthy); HealthFacts is the detail screen's full account. A
// subscriber without `health` never changed state: it has been healthy all along.
import type { SubscriberHealth } from '../../api/types';
import { Time } from '../../ui/Time';

export const OPEN_EXPLANATION = 'deliveries held, probed one at a time';

const inARow = (count: number) => `${count} ${count === 1 ? 'failure' : 'failures'} in a row`;

export function HealthNote({ health }: { health?: SubscriberHealth }) {
  if (!health || health.state === 'healthy') return null;
  const failures = inARow(health.consecutiveFailures);
  const text = health.state === 'open' ? `Deliveries held: ${failures}, probing` : `Failing: ${failures}`;
  return (
    <span class="badge badge-bad" title={health.lastError ?? undefined}>
      {text}
    </span>
  );
}

const LABELS: Record<SubscriberHealth['state'], { label: string; tone: string }> = {
  healthy: { label: 'Healthy', tone: 'good' },
  failing: { label: 'Failing', tone: 'bad' },
  open: { label: 'Open', tone: 'bad' },
};

export function HealthFacts({ health }: { health?: SubscriberHealth }) {
  if (!health) return <span data-health="healthy">Healthy (never failed)</span>;
  const { label, tone } = LABELS[health.state];
  return (
    <div data-health={health.state}>
      <span class={`badge badge-${tone}`}>{label}</span>
      {health.state === 'open' && <span>: {OPEN_EXPLANATION}</span>}
      {health.state !== 'healthy' && (
        <span>
          {' '}
          · {inARow(health.consecutiveFailures)}
        </span>
      )}
      <span class="muted">
        {' '}
        · since <Time iso={health.since} />
      </span>
      {health.lastError && (
        <div>
          Last error: <span class="error-text">{health.lastError}</span>
        </div>
      )}
    </div>
  );
}

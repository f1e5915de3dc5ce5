// The endpoint health the delivery engine reports, in words; nothing while it is healthy.
import type { SubscriberHealth } from '../../api/types';

export function HealthNote({ health }: { health?: SubscriberHealth }) {
  if (!health || health.state === 'healthy') return null;
  const text =
    health.state === 'open'
      ? `Deliveries held: ${health.consecutiveFailures} failures in a row, probing`
      : `Failing: ${health.consecutiveFailures} failures in a row`;
  return (
    <span class="badge badge-bad" title={health.lastError ?? undefined}>
      {text}
    </span>
  );
}

// The retention policy in words, for the Events screen (pure).
import type { RetentionPolicy } from '../../api/types';

export function keptFor(days: number): string {
  if (days === 0) return 'forever';
  if (days === 1) return '1 day';
  return `${days} days`;
}

export function retentionText(policy: RetentionPolicy): { summary: string; exceptions: string[] } {
  const source = policy.source === 'organization' ? "this organization's policy" : "the host's default";
  return {
    summary: `Settled events are kept ${keptFor(policy.settledEventsDays)} (${source}), then removed with their deliveries and attempts; events still being delivered are never removed.`,
    exceptions: Object.entries(policy.byEventType)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([type, days]) => `${type}: ${keptFor(days)}`),
  };
}

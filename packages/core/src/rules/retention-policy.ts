// An organization's retention policy (pure): what the API takes, what is stored, and what applies.
// Stored per organization in its `org_state` document; the windows are days for people and
// milliseconds for the retention job (rules/retention-windows.ts). Per-type windows are stored as a list,
// since event types contain dots, which a stored field name should not.
import type { RetentionPolicy } from './retention-windows.js';
import type { WebhookRetentionPolicy, WebhookRetentionPolicyRequest } from '../schemas/retention.js';

export const DAY_MS = 24 * 60 * 60 * 1000;

export interface StoredRetention {
  settledEventsDays?: number;
  byEventType?: Array<{ eventType: string; days: number }>;
  updatedAt: Date;
  updatedBy: string | null;
}

export function storedRetention(input: WebhookRetentionPolicyRequest, now: Date, actor: string | undefined): StoredRetention {
  return {
    ...(input.settledEventsDays !== undefined ? { settledEventsDays: input.settledEventsDays } : {}),
    ...(input.byEventType !== undefined
      ? { byEventType: Object.entries(input.byEventType).sort(([a], [b]) => a.localeCompare(b)).map(([eventType, days]) => ({ eventType, days })) }
      : {}),
    updatedAt: now,
    updatedBy: actor ?? null,
  };
}

/** The windows that apply: the organization's where it set them, the host's otherwise. */
export function effectiveRetention(host: RetentionPolicy, stored: StoredRetention | undefined): RetentionPolicy {
  if (!stored) return host;
  return {
    retentionMs: stored.settledEventsDays !== undefined ? stored.settledEventsDays * DAY_MS : host.retentionMs,
    retentionByEventType: stored.byEventType
      ? Object.fromEntries(stored.byEventType.map(({ eventType, days }) => [eventType, days * DAY_MS]))
      : host.retentionByEventType,
  };
}

export function retentionView(host: RetentionPolicy, stored: StoredRetention | undefined): WebhookRetentionPolicy {
  const applied = effectiveRetention(host, stored);
  return {
    ...inDays(applied),
    source: stored ? 'organization' : 'host',
    hostDefault: inDays(host),
    updatedAt: stored?.updatedAt.toISOString() ?? null,
  };
}

function inDays(policy: RetentionPolicy): { settledEventsDays: number; byEventType: Record<string, number> } {
  const days = (ms: number) => Math.round((ms / DAY_MS) * 1e6) / 1e6;
  return {
    settledEventsDays: days(policy.retentionMs),
    byEventType: Object.fromEntries(Object.entries(policy.retentionByEventType).map(([type, ms]) => [type, days(ms)])),
  };
}

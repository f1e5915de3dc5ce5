// Which settled events the retention job removes (pure): one group per retention window. Event
// types with an override of their own form their own group; every other type follows the default.
// An organization with a policy of its own (rules/retention-policy.ts) gets its groups; every other
// organization follows the host's. A window of 0 keeps its events forever, so it yields no group.

export interface RetentionPolicy {
  /** Default window for settled events, ms; 0 = forever. */
  retentionMs: number;
  /** Windows per event type, ms; 0 = forever. */
  retentionByEventType: Readonly<Record<string, number>>;
}

export interface RetentionGroup {
  /** Added to the settled-events query: which organizations and event types this window covers. */
  match: { orgId?: string | { $nin: string[] }; eventType: string | { $nin: string[] } };
  /** Settled events created before this are removed. */
  cutoff: Date;
}

export function retentionGroups(host: RetentionPolicy, now: Date, orgPolicies: ReadonlyMap<string, RetentionPolicy> = new Map()): RetentionGroup[] {
  const orgIds = [...orgPolicies.keys()].sort();
  const groups = windows(host, now).map((group) => (orgIds.length > 0 ? { ...group, match: { orgId: { $nin: orgIds }, ...group.match } } : group));
  for (const orgId of orgIds) {
    for (const group of windows(orgPolicies.get(orgId)!, now)) groups.push({ ...group, match: { orgId, ...group.match } });
  }
  return groups;
}

function windows(policy: RetentionPolicy, now: Date): RetentionGroup[] {
  const overridden = Object.keys(policy.retentionByEventType).sort();
  const groups: RetentionGroup[] = [];
  if (policy.retentionMs > 0) groups.push({ match: { eventType: { $nin: overridden } }, cutoff: new Date(now.getTime() - policy.retentionMs) });
  for (const type of overridden) {
    const window = policy.retentionByEventType[type]!;
    if (window > 0) groups.push({ match: { eventType: type }, cutoff: new Date(now.getTime() - window) });
  }
  return groups;
}

/**
 * How the retention pass shares the store with deliveries: it removes at most `batchEvents` events
 * (with their rows and attempts) per step and rests after each step so that it occupies the store
 * for at most `share` of its wall-clock time (rules/store-share.ts). A step is a handful of round
 * trips, so a delivery that meets one waits at most that long.
 */
export interface RetentionPace {
  batchEvents: number;
  share: number;
}

export const RETENTION_PACE: RetentionPace = { batchEvents: 200, share: 0.2 };

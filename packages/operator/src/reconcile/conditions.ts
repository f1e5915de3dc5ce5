// Status conditions from the outcome of one reconcile (pure).
import type { Condition, ConditionStatus } from '../crd/types.js';

export type ConditionReason =
  | 'Synced'
  | 'Conflict'
  | 'SecretNotFound'
  | 'SecretInvalid'
  | 'HostUnreachable'
  | 'Invalid'
  | 'Rejected'
  | 'AutoDisabled';

export type SyncOutcome =
  /** `autoDisabled`: Herald's reason, while the operator leaves an auto-disabled subscriber alone. */
  | { ok: true; message: string; autoDisabled?: string | undefined }
  | { ok: false; reason: Exclude<ConditionReason, 'Synced' | 'AutoDisabled'>; message: string };

/**
 * Synced: did the last attempt bring Herald in line with this generation?
 * Ready: is the subscriber in Herald known to match the spec? A host outage makes that Unknown
 * (it matched before and probably still does); every other failure makes it False.
 */
export function conditionsFor(outcome: SyncOutcome, generation: number, now: string, previous: readonly Condition[] = []): Condition[] {
  const synced: Omit<Condition, 'lastTransitionTime'> = outcome.ok
    ? { type: 'Synced', status: 'True', reason: 'Synced', message: outcome.message, observedGeneration: generation }
    : { type: 'Synced', status: 'False', reason: outcome.reason, message: outcome.message, observedGeneration: generation };
  const readyStatus: ConditionStatus = outcome.ok ? (outcome.autoDisabled === undefined ? 'True' : 'False') : outcome.reason === 'HostUnreachable' ? 'Unknown' : 'False';
  const ready: Omit<Condition, 'lastTransitionTime'> = {
    type: 'Ready',
    status: readyStatus,
    reason: outcome.ok ? (outcome.autoDisabled === undefined ? 'Synced' : 'AutoDisabled') : outcome.reason,
    message: outcome.ok
      ? outcome.autoDisabled === undefined
        ? 'Subscriber in Herald matches the spec'
        : `Herald auto-disabled the subscriber: ${outcome.autoDisabled}. The operator leaves it disabled until the spec changes or it is enabled through Herald`
      : outcome.message,
    observedGeneration: generation,
  };
  return [withTransitionTime(ready, now, previous), withTransitionTime(synced, now, previous)];
}

/** lastTransitionTime moves only when the status flips (Kubernetes API conventions). */
function withTransitionTime(condition: Omit<Condition, 'lastTransitionTime'>, now: string, previous: readonly Condition[]): Condition {
  const before = previous.find((candidate) => candidate.type === condition.type);
  const lastTransitionTime = before && before.status === condition.status ? before.lastTransitionTime : now;
  return { ...condition, lastTransitionTime };
}

export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((condition) => condition.type === type);
}

// @herald/operator: syncs WebhookSubscriber custom resources into Herald over its HTTP API.
export { loadOperatorConfig, OperatorConfigError, type OperatorConfig } from './config.js';
export { startOperator, type RunningOperator } from './operator.js';
export { deriveHandle, effectiveHandle, HANDLE_PATTERN } from './crd/handle.js';
export * from './crd/types.js';
export { desiredSubscriber, type DesiredSubscriber } from './reconcile/desired.js';
export { diffSubscriber, planSync, type SyncPlan } from './reconcile/plan.js';
export { conditionsFor, type SyncOutcome } from './reconcile/conditions.js';
export { resolveSecret, type SecretResolution } from './reconcile/secret.js';
export { retryDelayMs } from './queue/backoff.js';
export { decideLease, type LeaseDecision, type LeaseRecord } from './leader/lease-decision.js';
export { HeraldClient } from './herald/client.js';

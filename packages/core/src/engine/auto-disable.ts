// The periodic auto-disable check (an Agenda job, engine/jobs.ts). It reads what every replica
// stored — endpoint health, the newest delivered row, the subscriber's own state — so it decides the
// same on any replica and after a restart; rules/auto-disable.ts decides, the subscriber side writes
// (by revision, so a concurrent update wins and the next check decides again).
import { autoDisableMessage, autoDisableVerdict } from '../rules/auto-disable.js';
import { OPERATIONAL_EVENTS, type EmitOperational } from '../model/operational.js';
import type { EngineLogger } from '../shared/logger.js';
import type { DisableSubscriber } from './contract.js';
import type { HealthStore } from './store/health.js';

export interface AutoDisableCheckDeps {
  health: HealthStore;
  /** The configured limit, ms; 0: off. */
  afterMs: number;
  now: () => Date;
  disable: DisableSubscriber;
  emit?: EmitOperational | undefined;
  logger: EngineLogger;
}

/** One pass: the subscribers it disabled. */
export async function checkAutoDisable(deps: AutoDisableCheckDeps): Promise<number> {
  if (deps.afterMs <= 0) return 0;
  const now = deps.now();
  let disabled = 0;
  for (const candidate of await deps.health.failingSince(new Date(now.getTime() - deps.afterMs))) {
    const subscriber = await deps.health.subscriberState(candidate.subscriberId);
    if (!subscriber?.enabled || subscriber.listener) continue;
    const verdict = autoDisableVerdict({
      health: candidate,
      lastSuccessAt: await deps.health.lastSuccessAt(candidate.subscriberId),
      enabledSince: subscriber.enabledSince,
      now,
      afterMs: deps.afterMs,
    });
    if (!verdict.disable) continue;
    const message = autoDisableMessage(verdict.failingFrom, deps.afterMs, candidate.lastError);
    const owner = await deps.disable({ subscriberId: candidate.subscriberId, failingFrom: verdict.failingFrom, message, now });
    if (!owner) continue;
    disabled += 1;
    deps.logger.warn({ subscriberId: owner.handle, orgId: owner.orgId, failingSince: verdict.failingFrom.toISOString(), lastError: candidate.lastError }, 'subscriber auto-disabled: every delivery has failed for longer than the limit; its pending deliveries end FAILED');
    deps.emit?.(
      owner.orgId,
      {
        type: OPERATIONAL_EVENTS.subscriberDisabled,
        data: { subscriberId: owner.handle, code: 'AUTO_DISABLED', message, failingSince: verdict.failingFrom.toISOString(), disabledAt: now.toISOString(), lastError: candidate.lastError },
      },
      `${candidate.subscriberId}:${verdict.failingFrom.getTime()}`,
    );
  }
  return disabled;
}

// Herald's own operational events, published through its own pipeline to the subscribers that opt
// in with `herald.*` (or an exact `herald.` type) — never to `*` (events/matching.ts). Event types
// have two segments, so the names join subject and action with `_`.
//
// Emitting never fails the work that caused it: a publish error is logged and dropped. Each event
// has an idempotency key derived from its cause, so one cause seen twice (two replicas, a retried
// job) is published once.
import type { EngineLogger } from '../engine/index.js';

export const OPERATIONAL_EVENTS = {
  deliveryExhausted: 'herald.delivery_exhausted',
  subscriberFailing: 'herald.subscriber_failing',
  subscriberRecovered: 'herald.subscriber_recovered',
  recoveryCompleted: 'herald.recovery_completed',
} as const;

export type OperationalEvent =
  | {
      type: typeof OPERATIONAL_EVENTS.deliveryExhausted;
      /** The delivery whose retries ran out; FAILED now, recoverable. */
      data: { deliveryId: string; eventId: string; eventType: string; subscriberId: string; attempts: number; lastError: string | null };
    }
  | {
      type: typeof OPERATIONAL_EVENTS.subscriberFailing | typeof OPERATIONAL_EVENTS.subscriberRecovered;
      /** `failing`: the breaker opened (deliveries held); `recovered`: a probe succeeded. */
      data: { subscriberId: string; state: 'open' | 'healthy'; since: string; consecutiveFailures: number; lastError: string | null };
    }
  | {
      type: typeof OPERATIONAL_EVENTS.recoveryCompleted;
      data: { recoveryId: string; subscriberId: string; requeued: number };
    };

export type PublishOperational = (orgId: string, eventType: string, aggregateId: string, data: Record<string, unknown>, idempotencyKey: string) => Promise<unknown>;

export type EmitOperational = (orgId: string, event: OperationalEvent, cause: string) => void;

/** What the event is about: its aggregate id. */
function aggregateOf(event: OperationalEvent): string {
  if (event.type === OPERATIONAL_EVENTS.deliveryExhausted) return event.data.deliveryId;
  if (event.type === OPERATIONAL_EVENTS.recoveryCompleted) return event.data.recoveryId;
  return event.data.subscriberId;
}

export function operationalEmitter(publish: PublishOperational, logger: EngineLogger): EmitOperational {
  return (orgId, event, cause) => {
    void publish(orgId, event.type, aggregateOf(event), event.data, `${event.type}:${cause}`).catch((error: unknown) => {
      logger.warn({ eventType: event.type, err: { message: error instanceof Error ? error.message : String(error) } }, 'operational event not published');
    });
  };
}

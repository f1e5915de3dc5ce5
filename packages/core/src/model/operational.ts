// Herald's own operational events, published through its own pipeline to the subscribers that opt
// in with `herald.*` (or an exact `herald.` type) — never to `*` (rules/matching.ts). Event types
// have two segments, so the names join subject and action with `_`.
//
// Emitting never fails the work that caused it: a publish error is logged and dropped. Each event
// has an idempotency key derived from its cause, so one cause seen twice (two replicas, a retried
// job) is published once.
import type { EngineLogger } from '../shared/logger.js';
import type { EventTypeDefinition } from '../shared/event-types.js';

export const OPERATIONAL_EVENTS = {
  deliveryExhausted: 'herald.delivery_exhausted',
  subscriberFailing: 'herald.subscriber_failing',
  subscriberRecovered: 'herald.subscriber_recovered',
  subscriberDisabled: 'herald.subscriber_disabled',
  recoveryCompleted: 'herald.recovery_completed',
  deliveryStalled: 'herald.delivery_stalled',
} as const;

export type OperationalEvent =
  | {
      type: typeof OPERATIONAL_EVENTS.deliveryExhausted;
      /** The delivery whose retries ran out; FAILED now, recoverable. */
      data: {
        deliveryId: string;
        eventId: string;
        eventType: string;
        subscriberId: string;
        attempts: number;
        lastError: string | null;
        /** For a subscriber with per-key ordering: the key, the delivery's number, and that the key's next delivery proceeds. */
        ordering?: { aggregateType: string; aggregateId: string; sequence: number; nextProceeds: true };
      };
    }
  | {
      type: typeof OPERATIONAL_EVENTS.subscriberFailing | typeof OPERATIONAL_EVENTS.subscriberRecovered;
      /** `failing`: the breaker opened (deliveries held); `recovered`: a probe succeeded. */
      data: { subscriberId: string; state: 'open' | 'healthy'; since: string; consecutiveFailures: number; lastError: string | null };
    }
  | {
      type: typeof OPERATIONAL_EVENTS.subscriberDisabled;
      /** Every delivery failed for longer than the auto-disable limit (engine/auto-disable.ts). */
      data: { subscriberId: string; code: 'AUTO_DISABLED'; message: string; failingSince: string; disabledAt: string; lastError: string | null };
    }
  | {
      type: typeof OPERATIONAL_EVENTS.recoveryCompleted;
      data: { recoveryId: string; subscriberId: string; requeued: number };
    }
  | {
      type: typeof OPERATIONAL_EVENTS.deliveryStalled;
      /** Deliveries have waited while a delivery engine claimed none (engine/stall-watch.ts). */
      data: { stallId: string; dueSince: string; waitingSeconds: number; loopStuck: boolean };
    };

export type PublishOperational = (orgId: string, eventType: string, aggregateId: string, data: Record<string, unknown>, idempotencyKey: string) => Promise<unknown>;

export type EmitOperational = (orgId: string, event: OperationalEvent, cause: string) => void;

/** What the event is about: its aggregate id. */
function aggregateOf(event: OperationalEvent): string {
  if (event.type === OPERATIONAL_EVENTS.deliveryExhausted) return event.data.deliveryId;
  if (event.type === OPERATIONAL_EVENTS.recoveryCompleted) return event.data.recoveryId;
  if (event.type === OPERATIONAL_EVENTS.deliveryStalled) return event.data.stallId;
  return event.data.subscriberId;
}

export function operationalEmitter(publish: PublishOperational, logger: EngineLogger): EmitOperational {
  return (orgId, event, cause) => {
    void publish(orgId, event.type, aggregateOf(event), event.data, `${event.type}:${cause}`).catch((error: unknown) => {
      logger.warn({ eventType: event.type, err: { message: error instanceof Error ? error.message : String(error) } }, 'operational event not published');
    });
  };
}

const text = { type: 'string' } as const;
const nullableText = { type: ['string', 'null'] } as const;
const count = { type: 'integer', minimum: 0 } as const;
const schemaOf = (properties: Record<string, unknown>) => ({ type: 'object', required: Object.keys(properties), properties, additionalProperties: false });
const health = schemaOf({ subscriberId: text, state: { enum: ['open', 'healthy'] }, since: { type: 'string', format: 'date-time' }, consecutiveFailures: count, lastError: nullableText });

/** The catalog entries of Herald's own events, so they are documented where every type is. */
export const OPERATIONAL_EVENT_TYPES: readonly EventTypeDefinition[] = [
  {
    type: OPERATIONAL_EVENTS.deliveryExhausted,
    description:
      'A delivery ended FAILED after being attempted: its retries ran out, or the receiver answered 410. Recover it with POST …/webhook-subscribers/{id}/recover. ' +
      'For a subscriber with per-key ordering, `ordering` names the key and the delivery\'s sequence number, and says that the next delivery of that key now proceeds.',
    dataSchema: {
      ...schemaOf({ deliveryId: text, eventId: text, eventType: text, subscriberId: text, attempts: count, lastError: nullableText }),
      properties: {
        deliveryId: text, eventId: text, eventType: text, subscriberId: text, attempts: count, lastError: nullableText,
        ordering: schemaOf({ aggregateType: text, aggregateId: text, sequence: { type: 'integer', minimum: 1 }, nextProceeds: { const: true } }),
      },
    },
    example: { deliveryId: 'd7f0c2a9e4b1', eventId: '3b241101-e2bb-4255-8caf-4136c566a962', eventType: 'apikey.generated', subscriberId: 'billing', attempts: 11, lastError: 'HTTP 503' },
  },
  {
    type: OPERATIONAL_EVENTS.subscriberFailing,
    description: "A subscriber kept failing: its deliveries are held PENDING (attempts untouched) and probed one at a time.",
    dataSchema: health,
    example: { subscriberId: 'billing', state: 'open', since: '2025-01-31T12:00:00.000Z', consecutiveFailures: 10, lastError: 'HTTP 503' },
  },
  {
    type: OPERATIONAL_EVENTS.subscriberRecovered,
    description: 'A probe of a held subscriber succeeded: its held deliveries drain.',
    dataSchema: health,
    example: { subscriberId: 'billing', state: 'healthy', since: '2025-01-31T12:05:00.000Z', consecutiveFailures: 0, lastError: null },
  },
  {
    type: OPERATIONAL_EVENTS.subscriberDisabled,
    description:
      'Every delivery to a subscriber failed for longer than the auto-disable limit (default 5 days): Herald set it `enabled: false` with `disabledReason`, and its pending deliveries ended FAILED. ' +
      'Enable it again to resume, then recover the range from `failingSince` with POST …/webhook-subscribers/{id}/recover.',
    dataSchema: schemaOf({ subscriberId: text, code: { const: 'AUTO_DISABLED' }, message: text, failingSince: { type: 'string', format: 'date-time' }, disabledAt: { type: 'string', format: 'date-time' }, lastError: nullableText }),
    example: {
      subscriberId: 'billing',
      code: 'AUTO_DISABLED',
      message: 'every delivery has failed since 2025-01-26T12:00:00.000Z, longer than the auto-disable limit of 5d (last error: HTTP 503); enable it again to resume, and recover the failed range',
      failingSince: '2025-01-26T12:00:00.000Z',
      disabledAt: '2025-01-31T12:00:30.000Z',
      lastError: 'HTTP 503',
    },
  },
  {
    type: OPERATIONAL_EVENTS.recoveryCompleted,
    description: 'A recovery of a range of deliveries finished; `requeued` deliveries were sent again.',
    dataSchema: schemaOf({ recoveryId: text, subscriberId: text, requeued: count }),
    example: { recoveryId: 'rec_5f2b9c1e0a7d4e63', subscriberId: 'billing', requeued: 42 },
  },
  {
    type: OPERATIONAL_EVENTS.deliveryStalled,
    description:
      'Deliveries of this organization have been due for a while and a delivery engine claimed none meanwhile (docs/operations.md, "When delivery stops"). ' +
      '`dueSince` is when the oldest of them became due; `loopStuck` says the engine\'s loop itself stopped, which its liveness probe reports too.',
    dataSchema: schemaOf({ stallId: text, dueSince: { type: 'string', format: 'date-time' }, waitingSeconds: count, loopStuck: { type: 'boolean' } }),
    example: { stallId: '9d4c1f7e-2b3a-4c5d-8e6f-7a8b9c0d1e2f', dueSince: '2025-01-31T12:00:00.000Z', waitingSeconds: 45, loopStuck: false },
  },
];

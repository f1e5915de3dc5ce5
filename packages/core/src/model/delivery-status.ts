// The event and delivery status model of DECISIONS §5. Pure; the engine imports it too.
//
// Delivery: PENDING → IN_FLIGHT → DELIVERED | PENDING (retry, or an expired lease) | FAILED.
//           PENDING → FAILED when the subscriber is disabled or deleted (cancelled).
//           DELIVERED | FAILED → PENDING only by an explicit redeliver/retry.
// Event:    PENDING (recorded, fan-out not finished) → DISPATCHED → ALL_DELIVERED | FAILED;
//           PENDING → ALL_DELIVERED when no subscriber matched;
//           ALL_DELIVERED | FAILED → DISPATCHED on redeliver/retry; FAILED ↔ DISPATCHED as rows change.
import type { DeliveryStatus, EventStatus } from '../schemas/index.js';

const DELIVERY_TRANSITIONS: Record<DeliveryStatus, readonly DeliveryStatus[]> = {
  PENDING: ['IN_FLIGHT', 'FAILED'],
  IN_FLIGHT: ['DELIVERED', 'PENDING', 'FAILED'],
  DELIVERED: ['PENDING'],
  FAILED: ['PENDING'],
};

const EVENT_TRANSITIONS: Record<EventStatus, readonly EventStatus[]> = {
  PENDING: ['DISPATCHED', 'ALL_DELIVERED'],
  DISPATCHED: ['ALL_DELIVERED', 'FAILED'],
  ALL_DELIVERED: ['DISPATCHED'],
  FAILED: ['DISPATCHED', 'ALL_DELIVERED'],
};

export function canTransitionDelivery(from: DeliveryStatus, to: DeliveryStatus): boolean {
  return DELIVERY_TRANSITIONS[from].includes(to);
}

export function canTransitionEvent(from: EventStatus, to: EventStatus): boolean {
  return EVENT_TRANSITIONS[from].includes(to);
}

export function isTerminalDelivery(status: DeliveryStatus): boolean {
  return status === 'DELIVERED' || status === 'FAILED';
}

/** ALL_DELIVERED or FAILED: every planned row exists and none is open. */
export function isSettledEvent(status: EventStatus): boolean {
  return status === 'ALL_DELIVERED' || status === 'FAILED';
}

/**
 * The status of a dispatched event from its rows: ALL_DELIVERED when every row is DELIVERED (or
 * there are none), FAILED when every row is terminal and one FAILED, else DISPATCHED.
 * A PENDING event (fan-out unfinished) is not derived from rows; see eventStatusAfterRowChange.
 */
export function aggregateEventStatus(rowStatuses: Iterable<DeliveryStatus>): Exclude<EventStatus, 'PENDING'> {
  let anyFailed = false;
  for (const status of rowStatuses) {
    if (!isTerminalDelivery(status)) return 'DISPATCHED';
    if (status === 'FAILED') anyFailed = true;
  }
  return anyFailed ? 'FAILED' : 'ALL_DELIVERED';
}

/** What the stored event status should become after its rows changed; PENDING stays until the fan-out completes. */
export function eventStatusAfterRowChange(current: EventStatus, rowStatuses: Iterable<DeliveryStatus>): EventStatus {
  if (current === 'PENDING') return 'PENDING';
  return aggregateEventStatus(rowStatuses);
}

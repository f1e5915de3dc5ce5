// The status vocabularies of DECISIONS §5 as schemas (the transition rules live in model/delivery-status.ts).
import { Type, type Static } from 'typebox';

export const EventStatus = Type.Enum(['PENDING', 'DISPATCHED', 'ALL_DELIVERED', 'FAILED'], {
  title: 'EventStatus',
  description: 'PENDING (recorded) → DISPATCHED (deliveries in progress) → ALL_DELIVERED | FAILED.',
});
export type EventStatus = Static<typeof EventStatus>;
export const EVENT_STATUSES: readonly EventStatus[] = EventStatus.enum;

export const DeliveryStatus = Type.Enum(['PENDING', 'IN_FLIGHT', 'DELIVERED', 'FAILED'], {
  title: 'DeliveryStatus',
  description: 'PENDING → IN_FLIGHT → DELIVERED | PENDING (retry) | FAILED.',
});
export type DeliveryStatus = Static<typeof DeliveryStatus>;
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = DeliveryStatus.enum;

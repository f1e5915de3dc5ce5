// The event document a publish records. Pure (ids and sealing are passed in).
import type { PublishEventInput } from '../schemas/index.js';
import type { EventDocument, SealedSecret } from '../storage/documents.js';
import type { SplitData } from '../model/payload.js';

export interface NewEventParts {
  eventId: string;
  orgId: string;
  input: PublishEventInput;
  split: SplitData;
  now: Date;
  idempotencyKey: string | undefined;
  /** The sealed sensitive values, when there are any and they can be sealed. */
  sealedSensitive: SealedSecret | undefined;
}

/** The family of `family.action`: the default aggregate type. */
export function eventFamily(eventType: string): string {
  return eventType.slice(0, eventType.indexOf('.'));
}

export function newEventDocument(parts: NewEventParts): EventDocument {
  const { input, now } = parts;
  const event: EventDocument = {
    _id: parts.eventId,
    orgId: parts.orgId,
    eventType: input.eventType,
    aggregateType: input.aggregateType ?? eventFamily(input.eventType),
    aggregateId: input.aggregateId,
    status: 'PENDING',
    occurredAt: input.occurredAt === undefined ? now : new Date(input.occurredAt),
    createdAt: now,
    updatedAt: now,
    // Only the public part of the payload is ever stored in plaintext.
    data: JSON.stringify(parts.split.publicData),
    sensitiveFields: Object.keys(parts.split.sensitiveValues),
    subscriberIds: [],
    deliveryCount: 0,
    openDeliveries: 0,
    failedDeliveries: 0,
  };
  if (parts.idempotencyKey !== undefined) event.idempotencyKey = parts.idempotencyKey;
  if (parts.sealedSensitive !== undefined) event.sealedSensitive = parts.sealedSensitive;
  return event;
}

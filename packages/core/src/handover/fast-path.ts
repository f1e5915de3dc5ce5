// The one port through which publishing hands work to the delivery engine, without a database round
// trip: the publisher asks for slots (`admit`) while it plans a batch, writes the admitted rows
// already IN_FLIGHT under the engine's lease token, and ends the batch with one `handOver`, whatever
// became of it: the written rows start with their event in memory, every other slot it reserved is
// given back, and the poll is woken for rows left to it. Rows the engine had no slot for are written
// PENDING and found by its poll, in due order, with the retries.
import type { EventPayload } from '../model/payload.js';
import type { EventStatus } from '../schemas/index.js';
import type { DeliveryDocument, EventDocument, SubscriberDocument } from '../storage/documents.js';

export type SubscriberForSend = Pick<
  SubscriberDocument,
  '_id' | 'enabled' | 'targetUrl' | 'timeoutMs' | 'secret' | 'previousSecrets' | 'maxConcurrency' | 'rateLimitPerSecond' | 'egressProxy' | 'tls' | 'disabledReason' | 'oauth2'
>;

export interface AdmitRequest {
  subscriberId: string;
  timeoutMs: number;
  maxConcurrency?: number | undefined;
  rateLimitPerSecond?: number | undefined;
}

export interface Admission {
  /** The lease owner written on admitted rows. */
  token: string;
  leaseUntil: Date;
  accepted: readonly boolean[];
}

export interface DispatchItem {
  row: DeliveryDocument;
  subscriber: SubscriberForSend;
  payload: EventPayload;
}

/** An event's counters as the publisher just wrote them: the engine need not read them back. */
export interface WrittenCounters {
  eventId: string;
  open: number;
  failed: number;
  status: EventStatus;
}

/** An event whose admitted rows are durable IN_FLIGHT: they start from here. */
export interface StartedEvent {
  admission: Admission;
  items: readonly DispatchItem[];
  /** The event as stored, so the engine need not read its counters back. */
  written: WrittenCounters;
  /** The event as written, when some of its rows were left to the poll: the poll need not read it back. */
  forPoll?: EventDocument | undefined;
}

/** The end of one publish batch, as the engine needs to know it. */
export interface HandOver {
  /** Every admission the batch made, including those of events it did not write. */
  admissions: readonly Admission[];
  started: readonly StartedEvent[];
  /** Rows were written PENDING (no slot, ordered, or another writer's): poll soon. */
  leftToPoll: boolean;
}

export interface FastPath {
  /** Reserves a slot for each row it can start at once; every admission ends in a `handOver`. */
  admit(requests: readonly AdmitRequest[], now: Date): Admission;
  /** Starts the started events' rows and gives back every other reserved slot. */
  handOver(handOver: HandOver): void;
  /** Rows were made due elsewhere (a fan-out completed, rows requeued): poll soon. */
  notify(): void;
}

export const NO_FAST_PATH: FastPath = {
  admit: (requests) => ({ token: '', leaseUntil: new Date(0), accepted: requests.map(() => false) }),
  handOver: () => undefined,
  notify: () => undefined,
};

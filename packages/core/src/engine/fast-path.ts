// How the publisher hands fresh rows to the local engine without a database round trip: it asks
// for slots (`admit`) before writing the rows, writes the admitted ones already IN_FLIGHT under the
// engine's lease token, and passes them on with the event in memory (`dispatch`). Rows the engine
// has no free slot for are written PENDING and found by its poll, in due order, with the retries.
import type { EventPayload } from '../events/payload.js';
import type { EventStatus } from '../schemas/index.js';
import type { DeliveryDocument, SubscriberDocument } from '../storage/documents.js';

export type SubscriberForSend = Pick<
  SubscriberDocument,
  '_id' | 'enabled' | 'targetUrl' | 'timeoutMs' | 'secret' | 'previousSecrets' | 'maxConcurrency' | 'rateLimitPerSecond' | 'egressProxy'
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

export interface FastPath {
  /** Reserves a slot for each row it can start at once. */
  admit(requests: readonly AdmitRequest[], now: Date): Admission;
  /** Starts the admitted rows, now durable as IN_FLIGHT; `written` is their event as stored. */
  dispatch(admission: Admission, items: readonly DispatchItem[], written?: WrittenCounters): void;
  /** Gives back the slots of an admission whose rows were not written. */
  release(admission: Admission): void;
  /** Rows were made due (written PENDING, requeued): poll soon. */
  notify(): void;
}

export const NO_FAST_PATH: FastPath = {
  admit: (requests) => ({ token: '', leaseUntil: new Date(0), accepted: requests.map(() => false) }),
  dispatch: () => undefined,
  release: () => undefined,
  notify: () => undefined,
};

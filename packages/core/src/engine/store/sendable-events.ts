// Events whose queued rows this engine may still send, kept so that the poll need not read them
// again: those this process just published with rows left to the poll, and those the poll read for
// an earlier batch (an event's rows are claimed over several batches, and retried). What an attempt
// needs of an event (its type, ids and payload, sensitive values sealed) never changes once
// written, so a kept copy is as good as a read. Its counters do change: they are left out, and come
// from the engine's counters (engine/store/counters.ts), as they do for the fast path.
//
// Bounded by count and by size, least recently used first out. A forgotten event is read again.
import type { EventDocument } from '../../storage/documents.js';

/**
 * An event as an attempt needs it, without its subscriber list or its counters. Its row count
 * (`deliveryCount`) is kept: fixed before its rows are written, it tells a claim when it holds all
 * of them (whole-event-claims.ts).
 */
export type SendableEvent = Omit<EventDocument, 'subscriberIds' | 'openDeliveries' | 'failedDeliveries' | 'status' | 'updatedAt'>;

export interface SendableEventLimits {
  maxEvents: number;
  /** Of payload text (public and sealed), which is what an event's size comes from. */
  maxBytes: number;
}

export const SENDABLE_EVENT_LIMITS: SendableEventLimits = { maxEvents: 10_000, maxBytes: 32 * 1024 * 1024 };

/** What one kept event weighs: its payload texts, and a fixed part for the rest. */
export function sendableEventBytes(event: SendableEvent): number {
  const sealed = event.sealedSensitive;
  return 512 + event.data.length + (sealed ? sealed.ciphertext.length + sealed.iv.length + sealed.tag.length : 0);
}

export class SendableEvents {
  private readonly kept = new Map<string, { event: SendableEvent; bytes: number }>();
  private bytes = 0;
  private readonly limits: SendableEventLimits;

  constructor(limits: SendableEventLimits = SENDABLE_EVENT_LIMITS) {
    this.limits = limits;
  }

  get size(): number {
    return this.kept.size;
  }

  remember(event: EventDocument | SendableEvent): void {
    const sendable = sendablePart(event);
    const bytes = sendableEventBytes(sendable);
    if (bytes > this.limits.maxBytes) return;
    this.forget(sendable._id);
    this.kept.set(sendable._id, { event: sendable, bytes });
    this.bytes += bytes;
    for (const [id, entry] of this.kept) {
      if (this.kept.size <= this.limits.maxEvents && this.bytes <= this.limits.maxBytes) break;
      this.kept.delete(id);
      this.bytes -= entry.bytes;
    }
  }

  /** The kept event, now the most recently used. */
  get(eventId: string): SendableEvent | undefined {
    const entry = this.kept.get(eventId);
    if (!entry) return undefined;
    this.kept.delete(eventId);
    this.kept.set(eventId, entry);
    return entry.event;
  }

  private forget(eventId: string): void {
    const entry = this.kept.get(eventId);
    if (!entry) return;
    this.kept.delete(eventId);
    this.bytes -= entry.bytes;
  }
}

function sendablePart(event: EventDocument | SendableEvent): SendableEvent {
  const { subscriberIds: _plan, openDeliveries: _open, failedDeliveries: _failed, status: _status, updatedAt: _updated, ...sendable } = event as EventDocument;
  return sendable;
}

// Finding due rows and claiming them. A claim is a conditional update per batch — an `$or` of each
// row's expected state (PENDING, the attempts and nextAttemptAt we read) — so each row goes to
// exactly one claimer, which then owns it under its lease token. Where updates are not atomic
// (FerretDB v1) a claimer first inserts one claim document per row whose `_id` names that
// incarnation of the row; the unique `_id` decides (storage/claims.ts).
import type { SubscriberForSend } from '../../handover/fast-path.js';
import type { DeliveryStatus } from '../../schemas/index.js';
import { claimIncarnations } from '../../storage/claims.js';
import type { Collections } from '../../storage/collections.js';
import { findByIds, type StoreCompat } from '../../storage/compat.js';
import type { DeliveryDocument, EventDocument } from '../../storage/documents.js';
import type { EngineCounters } from './counters.js';
import { StorePart } from './part.js';
import { SendableEvents, type SendableEvent } from './sendable-events.js';
import { wholeEvents } from './whole-event-claims.js';

const SEND_PROJECTION = { _id: 1, enabled: 1, targetUrl: 1, timeoutMs: 1, secret: 1, previousSecrets: 1, maxConcurrency: 1, rateLimitPerSecond: 1, egressProxy: 1, tls: 1, disabledReason: 1, oauth2: 1 } as const;

export class ClaimStore extends StorePart {
  private readonly counters: EngineCounters;
  private readonly sendable = new SendableEvents();

  constructor(collections: Collections, compat: StoreCompat, counters: EngineCounters) {
    super(collections, compat);
    this.counters = counters;
  }

  /** The oldest due PENDING rows, whoever wrote them, leaving out subscribers with no free slot. */
  findDue(now: Date, limit: number, excludeSubscribers: readonly string[]): Promise<DeliveryDocument[]> {
    const filter = excludeSubscribers.length > 0 ? { subscriberId: { $nin: [...excludeSubscribers] } } : {};
    return this.read(() =>
      this.collections.queue
        .find({ status: 'PENDING', nextAttemptAt: { $lte: now }, ...filter })
        .sort({ nextAttemptAt: 1 })
        .limit(limit)
        .toArray(),
    );
  }

  /** An event whose rows the poll may send: it is then not read again (sendable-events.ts). */
  rememberEvent(event: EventDocument): void {
    this.sendable.remember(event);
  }

  /** What sending these rows needs: their subscribers (read fresh) and their events (read unless kept). */
  async loadForSend(rows: readonly DeliveryDocument[]): Promise<{ subscribers: Map<string, SubscriberForSend>; events: Map<string, SendableEvent> }> {
    const subscriberIds = [...new Set(rows.map((row) => row.subscriberId))];
    const events = new Map<string, SendableEvent>();
    const unknown: string[] = [];
    for (const eventId of new Set(rows.map((row) => row.eventId))) {
      const kept = this.sendable.get(eventId);
      if (kept) events.set(eventId, kept);
      else unknown.push(eventId);
    }
    const mark = this.counters.readMark();
    const [subscribers, read] = await Promise.all([
      this.read(() => this.collections.subscribers.find({ _id: { $in: subscriberIds } }, { projection: SEND_PROJECTION }).toArray()),
      unknown.length > 0 ? this.findEvents(unknown) : [],
    ]);
    for (const event of read) {
      // Where counters are held in memory, the ones read here spare the first outcome a second read.
      this.counters.rememberRead(event._id, { open: event.openDeliveries ?? 0, failed: event.failedDeliveries ?? 0, status: event.status }, mark);
      this.sendable.remember(event);
      events.set(event._id, event);
    }
    return { subscribers: new Map(subscribers.map((subscriber) => [subscriber._id, subscriber as SubscriberForSend])), events };
  }

  private async findEvents(eventIds: readonly string[]): Promise<EventDocument[]> {
    return findByIds(this.collections.events, this.compat, eventIds, { projection: { subscriberIds: 0 } }, true);
  }

  /**
   * Claims rows read a moment ago under `token`; returns the rows won, as now stored. `events` (as
   * `loadForSend` gave them) lets a claim that writes a statement per row take a whole event in one.
   */
  async claim(rows: readonly DeliveryDocument[], token: string, now: Date, leaseUntil: Date, events?: ReadonlyMap<string, SendableEvent>): Promise<DeliveryDocument[]> {
    if (rows.length === 0) return [];
    const candidates = this.compat.uniqueKeyClaims ? await claimIncarnations(this.collections, this.compat, rows, token, now, true) : [...rows];
    if (candidates.length === 0) return [];
    const update = { $set: { status: 'IN_FLIGHT' as DeliveryStatus, leaseOwner: token, leaseUntil, updatedAt: now } };
    const modifiedCount = this.compat.pointReads && this.compat.uniqueKeyClaims && events
      ? await this.claimByEvent(candidates, events, update)
      : await this.updateRowsInState(
          candidates.map((row) => ({ id: row._id, expected: { status: 'PENDING', attempts: row.attempts, nextAttemptAt: row.nextAttemptAt } })),
          update,
        );
    // As stored: `updatedAt` is when the row was taken, which its settle records as the copy's `takenAt`.
    const claimed = candidates.map((row) => ({ ...row, status: 'IN_FLIGHT' as DeliveryStatus, leaseOwner: token, leaseUntil, updatedAt: now }));
    if (modifiedCount === candidates.length) return claimed;
    // Another claimer, a cancel or a manual retry changed some rows since we read them.
    const won = await this.read(() =>
      this.collections.queue.find({ _id: { $in: candidates.map((row) => row._id) }, leaseOwner: token }, { projection: { _id: 1 } }).toArray(),
    );
    const wonIds = new Set(won.map((row) => row._id));
    return claimed.filter((row) => wonIds.has(row._id));
  }

  /**
   * Rows whose incarnations this claimer won, set IN_FLIGHT one statement per whole event and one
   * per other row (whole-event-claims.ts says when an event's equality is safe), at most
   * `maxWriteBatch` statements to a command.
   */
  private async claimByEvent(rows: readonly DeliveryDocument[], events: ReadonlyMap<string, SendableEvent>, update: { $set: Partial<DeliveryDocument> }): Promise<number> {
    const { whole, single } = wholeEvents(rows, (eventId) => events.get(eventId)?.deliveryCount);
    return this.updateQueueInChunks([
      ...whole.map((group) => ({
        updateMany: { filter: this.compat.byKey<DeliveryDocument>({ eventId: group.eventId }, { status: 'PENDING', attempts: group.attempts, nextAttemptAt: group.nextAttemptAt }), update },
      })),
      ...single.map((row) => ({
        updateOne: { filter: this.compat.byId<DeliveryDocument>(row._id, { status: 'PENDING', attempts: row.attempts, nextAttemptAt: row.nextAttemptAt }), update },
      })),
    ]);
  }
}

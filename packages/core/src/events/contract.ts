// What the event service offers (events/service.ts implements it; Herald exposes it).
import type { EventStatus, Page, PublishBatchItem, PublishEventInput, WebhookEvent, WebhookEventDetail } from '../schemas/index.js';
import type { HeraldError } from '../shared/errors.js';
import type { Scope } from '../shared/scope.js';

export interface PublishResult {
  event: WebhookEvent;
  /** false: the same idempotency key was seen before; the stored event is returned, nothing fanned out again. */
  created: boolean;
}

/** One item's outcome in `publishMany`: its event (durable), or why it was not published. */
export type PublishManyResult = ({ ok: true } & PublishResult) | { ok: false; error: HeraldError };

export interface ErasedEvent {
  eventId: string;
  /** Rows removed that were still to be sent (only with force). */
  cancelledDeliveries: number;
  deliveries: number;
  attempts: number;
}

export interface EventService {
  publish(scope: Scope, input: PublishEventInput, options?: { idempotencyKey?: string }): Promise<PublishResult>;
  /**
   * Publishes each item as `publish` would (its `idempotencyKey` as publish's option), sharing the
   * store's round trips; one result per item, in order. An invalid item fails alone. Items with the
   * same key are taken in order, as repeated publishes would be. `error` is a typed error
   * (ValidationError, ConflictError, StoreUnavailableError, or code INTERNAL_SERVER_ERROR).
   */
  publishMany(scope: Scope, items: readonly PublishBatchItem[]): Promise<PublishManyResult[]>;
  /** `cursor`: a previous page's `nextCursor` (not with `offset`). */
  list(scope: Scope, query?: { status?: EventStatus; limit?: number; offset?: number; cursor?: string }): Promise<Page<WebhookEvent>>;
  get(scope: Scope, eventId: string): Promise<WebhookEventDetail>;
  /** Every row back to PENDING (due now), the event back to DISPATCHED. */
  redeliver(scope: Scope, eventId: string): Promise<WebhookEventDetail>;
  /**
   * Erases the event, its rows and their attempts now. ConflictError while rows are still to be
   * sent, unless `force` (which removes them too); NotFoundError when nothing of it is left.
   */
  erase(scope: Scope, eventId: string, options?: { force?: boolean }): Promise<ErasedEvent>;
}

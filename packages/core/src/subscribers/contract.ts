// What the subscriber service offers (subscribers/service.ts implements it; Herald exposes it).
import type {
  Page,
  WebhookFilterPreview,
  WebhookFilterPreviewRequest,
  WebhookSubscriberCreateRequest,
  WebhookSubscriberDeliverySummary,
  WebhookSubscriberListItem,
  WebhookSubscriberResponse,
  WebhookSubscriberUpdateRequest,
} from '../schemas/index.js';
import type { Scope } from '../shared/scope.js';

/**
 * An ephemeral subscriber that relays to a developer's machine (`herald webhooks listen`): the host
 * deletes it when the stream closes; `expiresAt` lets any process remove one whose host died.
 */
export interface ListenerOptions {
  expiresAt: Date;
}

/** A page of a subscriber's deliveries (the API's WebhookSubscriberDeliveryList). */
export interface SubscriberDeliveryPage {
  list: WebhookSubscriberDeliverySummary[];
  nextCursor?: string;
}

export interface SubscriberService {
  create(scope: Scope, input: WebhookSubscriberCreateRequest, options?: { listener?: ListenerOptions }): Promise<WebhookSubscriberResponse>;
  get(scope: Scope, handle: string): Promise<WebhookSubscriberResponse>;
  /** Listeners are left out unless `listeners` is true (they are not configuration). */
  list(scope: Scope, query?: { limit?: number; offset?: number; listeners?: boolean }): Promise<Page<WebhookSubscriberListItem>>;
  /** Moves a live listener's expiry forward; false when it is gone. */
  renewListener(scope: Scope, handle: string, expiresAt: Date): Promise<boolean>;
  /** Handles of listeners whose expiry has passed (their stream died with its host). */
  expiredListeners(scope: Scope, now: Date): Promise<string[]>;
  update(scope: Scope, handle: string, patch: WebhookSubscriberUpdateRequest): Promise<WebhookSubscriberResponse>;
  delete(scope: Scope, handle: string): Promise<void>;
  /** Newest attempt first (rows never attempted by creation time), at most 50. */
  deliveries(scope: Scope, handle: string): Promise<WebhookSubscriberDeliverySummary[]>;
  /** The same, page by page: `cursor` is a previous page's `nextCursor`. */
  deliveriesPage(scope: Scope, handle: string, query?: { cursor?: string }): Promise<SubscriberDeliveryPage>;
  /** Which of the org's most recent events a filter (and patterns) would have delivered; nothing is stored. */
  previewFilter(scope: Scope, input: WebhookFilterPreviewRequest): Promise<WebhookFilterPreview>;
}

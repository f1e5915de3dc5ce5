// The shapes of the public HTTP API that the console reads and writes, named for the console. They
// are the served OpenAPI documents' own (@herald/api-types: generated, checked by a test
// against what the host serves), not imported from the server's packages: the console is a
// client of the API, like any other, and ships none of their code.
import type { components as ManagementApi } from '@herald/api-types/management';
import type { components as WebhookApi } from '@herald/api-types/webhooks';

type Webhooks = WebhookApi['schemas'];

export type FieldError = Webhooks['FieldError'];
export type ErrorBody = Webhooks['ErrorResponse'];
export type Pagination = Webhooks['Pagination'];

export type Me = ManagementApi['schemas']['Me'];

/** Served by the console's own host route: what the API cannot tell about the host. */
export interface HostInfo {
  readOnly: boolean;
}

export type SubscriberHealth = Webhooks['SubscriberHealth'];
export type SubscriberDisabledReason = Webhooks['SubscriberDisabledReason'];

type SubscriberDetail = Webhooks['WebhookSubscriberResponseSchema'];
/** A single subscriber or a list item: `updatedBy` is present on a single subscriber only. */
export type Subscriber = Omit<SubscriberDetail, 'updatedBy'> & Partial<Pick<SubscriberDetail, 'updatedBy'>>;
export type SubscriberList = Webhooks['WebhookSubscriberList'];

type SubscriberRequest = Webhooks['WebhookSubscriberRequest'];
/** A filter may also be sent as a string, only for the API to refuse it with its field message. */
export type SubscriberInput = Omit<SubscriberRequest, 'filter'> & { filter?: SubscriberRequest['filter'] | string };

export type FilterPreview = Webhooks['WebhookFilterPreview'];
export type FilterPreviewItem = FilterPreview['list'][number];

export type EventStatus = Webhooks['EventStatus'];
export type DeliveryStatus = Webhooks['DeliveryStatus'];
export const EVENT_STATUSES: readonly EventStatus[] = ['PENDING', 'DISPATCHED', 'ALL_DELIVERED', 'FAILED'];

export type SubscriberDelivery = Webhooks['WebhookSubscriberDeliverySummary'];
export type SubscriberDeliveryList = Webhooks['WebhookSubscriberDeliveryList'];
export type EventDelivery = Webhooks['WebhookEventDelivery'];
export type DeliveryAttempt = Webhooks['DeliveryAttempt'];
export type EventDeliveryDetail = Webhooks['WebhookEventDeliveryDetail'];

export type WebhookEvent = Webhooks['WebhookEvent'];
export type WebhookEventList = Webhooks['WebhookEventList'];
export type WebhookEventDetail = Webhooks['WebhookEventDetail'];

export type Recovery = Webhooks['Recovery'];
export type RecoveryRequest = Webhooks['RecoveryRequest'];
export type RecoverableStatus = Recovery['statuses'][number];
export const RECOVERABLE_STATUSES: readonly RecoverableStatus[] = ['FAILED', 'DELIVERED'];

export type EventType = Webhooks['WebhookEventType'];
export type EventTypeList = Webhooks['WebhookEventTypeList'];
/** The event catalog as AsyncAPI 3.0: only saved as a file here, never read. */
export type AsyncApiDocument = Webhooks['AsyncApiDocument'];

/** GET /api/v0.9/webhook-retention: how long settled events are kept (days; 0 = forever). */
export type RetentionPolicy = Webhooks['WebhookRetentionPolicy'];

/** A consumer-portal session as POST /portal-sessions answers it, and the sender's branding in it. */
export type PortalSession = Webhooks['PortalSession'];
export type PortalBranding = Webhooks['PortalBranding'];

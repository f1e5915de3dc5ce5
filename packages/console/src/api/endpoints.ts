// The API operations the console uses, one function each (paths as in docs/server.md).
import type { ApiClient } from './client';
import type {
  AsyncApiDocument,
  EventDelivery,
  EventStatus,
  EventType,
  EventTypeList,
  FilterPreview,
  HostInfo,
  Me,
  Recovery,
  RecoveryRequest,
  RetentionPolicy,
  Subscriber,
  SubscriberDeliveryList,
  SubscriberInput,
  SubscriberList,
  WebhookEvent,
  WebhookEventDetail,
  WebhookEventList,
} from './types';

const WEBHOOKS = '/api/v0.9';
const MANAGEMENT = '/api/v1';
export const PAGE_SIZE = 20;

const segment = (value: string) => encodeURIComponent(value);
const subscriberPath = (id: string) => `${WEBHOOKS}/webhook-subscribers/${segment(id)}`;
const eventPath = (id: string) => `${WEBHOOKS}/webhook-events/${segment(id)}`;

function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

export function endpoints(client: ApiClient) {
  return {
    me: () => client.request<Me>('GET', `${MANAGEMENT}/me`),

    listSubscribers: (offset: number) =>
      client.request<SubscriberList>('GET', `${WEBHOOKS}/webhook-subscribers${query({ limit: PAGE_SIZE, offset })}`),
    getSubscriber: (id: string) => client.request<Subscriber>('GET', subscriberPath(id)),
    createSubscriber: (input: SubscriberInput) => client.request<Subscriber>('POST', `${WEBHOOKS}/webhook-subscribers`, input),
    updateSubscriber: (id: string, changes: SubscriberInput) => client.request<Subscriber>('PUT', subscriberPath(id), changes),
    previewFilter: (filter: Record<string, unknown>, events: string[]) =>
      client.request<FilterPreview>('POST', `${WEBHOOKS}/webhook-subscribers/filter-preview`, { filter, events }),
    deleteSubscriber: (id: string) => client.request<void>('DELETE', subscriberPath(id)),
    subscriberDeliveries: (id: string) => client.request<SubscriberDeliveryList>('GET', `${subscriberPath(id)}/deliveries`),
    recoverDeliveries: (id: string, request: RecoveryRequest) => client.request<Recovery>('POST', `${subscriberPath(id)}/recover`, request),
    getRecovery: (id: string, recoveryId: string) =>
      client.request<Recovery>('GET', `${subscriberPath(id)}/recoveries/${segment(recoveryId)}`),

    listEventTypes: () => client.request<EventTypeList>('GET', `${WEBHOOKS}/webhook-event-types`),
    getEventType: (type: string) => client.request<EventType>('GET', `${WEBHOOKS}/webhook-event-types/${segment(type)}`),
    getAsyncApi: () => client.request<AsyncApiDocument>('GET', `${WEBHOOKS}/asyncapi.json`),
    sendTestEvent: (type: string) => client.request<WebhookEvent>('POST', `${WEBHOOKS}/webhook-event-types/${segment(type)}/test`, {}),
    getRetention: () => client.request<RetentionPolicy>('GET', `${WEBHOOKS}/webhook-retention`),

    /** From `cursor` (a previous page's nextCursor) when given, else from `offset`. */
    listEvents: (offset: number, status?: EventStatus, cursor?: string) =>
      client.request<WebhookEventList>('GET', `${WEBHOOKS}/webhook-events${query(cursor ? { status, limit: PAGE_SIZE, cursor } : { status, limit: PAGE_SIZE, offset })}`),
    getEvent: (id: string) => client.request<WebhookEventDetail>('GET', eventPath(id)),
    redeliverEvent: (id: string) => client.request<WebhookEventDetail>('POST', `${eventPath(id)}/redeliver`),
    retryDelivery: (eventId: string, deliveryId: string) =>
      client.request<EventDelivery>('POST', `${eventPath(eventId)}/deliveries/${segment(deliveryId)}/retry`),
  };
}

export type Endpoints = ReturnType<typeof endpoints>;

/** Whether the host refuses changes; public, served beside the console. Unknown counts as writable: the API still refuses. */
export async function loadHostInfo(): Promise<HostInfo> {
  try {
    const response = await fetch('/console/host.json', { cache: 'no-store' });
    if (!response.ok) return { readOnly: false };
    const body = (await response.json()) as Partial<HostInfo>;
    return { readOnly: body.readOnly === true };
  } catch {
    return { readOnly: false };
  }
}

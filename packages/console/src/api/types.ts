// The shapes of the public HTTP API that the console reads and writes, as docs/server.md and the
// served OpenAPI documents describe them. Written out here rather than imported from the server's
// packages: the console is a client of the API, like any other, and ships none of their code.

export interface FieldError {
  field: string;
  message: string;
}

export interface ErrorBody {
  status: 'error';
  code: string;
  message: string;
  errors?: FieldError[];
}

export interface Pagination {
  total: number;
  limit: number;
  offset: number;
}

export interface Page<T> {
  list: T[];
  count: number;
  pagination: Pagination;
}

export interface Me {
  principal: string;
  kind: 'api-token' | 'jwt';
  name?: string;
  scopes: string[];
  orgId: string;
  expiresAt?: string;
}

/** Served by the console's own host route: what the API cannot tell about the host. */
export interface HostInfo {
  readOnly: boolean;
}

export interface SubscriberHealth {
  state: 'healthy' | 'failing' | 'open';
  since: string;
  consecutiveFailures: number;
  lastError: string | null;
}

export interface Subscriber {
  id: string;
  orgId: string;
  displayName: string;
  targetUrl: string;
  enabled: boolean;
  events: string[];
  timeoutMs: number;
  /** The payload filter, when set. */
  filter?: Record<string, unknown>;
  /** Present when deliveries are ordered per aggregate. */
  ordering?: 'aggregate';
  hasSecret: boolean;
  health?: SubscriberHealth;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  /** Present on a single subscriber, absent from list items. */
  updatedBy?: string;
}

export interface SubscriberInput {
  id?: string;
  displayName?: string;
  targetUrl?: string;
  secret?: string;
  events?: string[];
  enabled?: boolean;
  timeoutMs?: number;
  /** null removes the filter; a string is sent only for the API to refuse with its field message. */
  filter?: Record<string, unknown> | string | null;
  ordering?: 'aggregate' | 'none';
}

export interface FilterPreviewItem {
  eventId: string;
  eventType: string;
  aggregateType: string;
  aggregateId: string;
  occurredAt: string;
  matches: boolean;
}

export interface FilterPreview {
  list: FilterPreviewItem[];
  matching: number;
}

export type EventStatus = 'PENDING' | 'DISPATCHED' | 'ALL_DELIVERED' | 'FAILED';
export type DeliveryStatus = 'PENDING' | 'IN_FLIGHT' | 'DELIVERED' | 'FAILED';
export const EVENT_STATUSES: readonly EventStatus[] = ['PENDING', 'DISPATCHED', 'ALL_DELIVERED', 'FAILED'];

export interface SubscriberDelivery {
  deliveryId: string;
  eventType: string | null;
  occurredAt: string | null;
  status: DeliveryStatus;
  lastHttpStatus: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  deliveredAt: string | null;
  /** Only on rows of an ordered subscriber: the row's place in its key. */
  sequence?: number;
}

export interface EventDelivery {
  deliveryId: string;
  subscriberId: string;
  targetUrl: string | null;
  status: DeliveryStatus;
  lastHttpStatus: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  deliveredAt: string | null;
  /** Only on rows of an ordered subscriber: the row's place in its key. */
  sequence?: number;
}

export interface DeliveryAttempt {
  attempt: number;
  startedAt: string;
  durationMs: number;
  httpStatus: number | null;
  errorClass: string | null;
  errorMessage: string | null;
  responseBodySnippet: string | null;
}

export interface EventDeliveryDetail extends EventDelivery {
  attempts: number;
  nextAttemptAt: string | null;
  encryptedFields: string[];
  createdAt: string;
  attemptHistory: DeliveryAttempt[];
}

interface EventFields {
  eventId: string;
  eventType: string;
  orgId: string;
  aggregateType: string;
  aggregateId: string;
  status: EventStatus;
  occurredAt: string;
}

export interface WebhookEvent extends EventFields {
  deliveries: EventDelivery[];
}

export interface WebhookEventDetail extends EventFields {
  deliveries: EventDeliveryDetail[];
}

export type RecoverableStatus = 'FAILED' | 'DELIVERED';
export const RECOVERABLE_STATUSES: readonly RecoverableStatus[] = ['FAILED', 'DELIVERED'];

export interface RecoveryRequest {
  since: string;
  until?: string;
  statuses: RecoverableStatus[];
}

export interface Recovery {
  recoveryId: string;
  subscriberId: string;
  since: string;
  until: string;
  statuses: RecoverableStatus[];
  status: 'QUEUED' | 'RUNNING' | 'COMPLETED';
  requeued: number;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

export interface EventType {
  type: string;
  description?: string;
  /** Data fields Herald encrypts before storing; always present, possibly empty. */
  sensitive: string[];
  dataSchema?: unknown;
  example?: unknown;
}

/** GET /api/v0.9/webhook-retention: how long settled events are kept (days; 0 = forever). */
export interface RetentionPolicy {
  settledEventsDays: number;
  byEventType: Record<string, number>;
  source: 'organization' | 'host';
  hostDefault: { settledEventsDays: number; byEventType: Record<string, number> };
  updatedAt: string | null;
}

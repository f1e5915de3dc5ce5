// @herald/core public API (docs/ARCHITECTURE.md "Core public API").
export { createHerald } from './herald.js';
export type {
  DeliveryService,
  EventCatalog,
  EventService,
  EventTypeDefinition,
  Herald,
  HeraldHealth,
  HeraldLogger,
  HeraldOptions,
  ListenerOptions,
  MasterKeys,
  MongoConnection,
  PrincipalDirectory,
  PublishManyResult,
  PublishResult,
  Scope,
  SigningProfile,
  SubscriberService,
} from './types.js';
export type { DeliveryOptions, EngineMetrics } from './engine/index.js';
export { parseProxyUrl as parseEgressProxyUrl } from './engine/egress/proxy-config.js';
export type { RetentionService } from './retention/service.js';
export {
  ConfigError,
  ConflictError,
  ForbiddenError,
  HeraldError,
  isHeraldError,
  NotFoundError,
  ValidationError,
  type FieldIssue,
} from './errors/index.js';
export { clientTimeoutOptions, isStoreUnavailable, storeClientOptions, StoreUnavailableError } from './storage/availability.js';
export { keepClientConnected, type ClientKeeper, type ClientKeeperOptions } from './storage/client-keeper.js';
export { contextFromTraceparent } from './tracing.js';
export { DELETED_USER, SYSTEM_ACTOR } from './subscribers/mapping.js';
export { validateSubscriberCreate, validateSubscriberUpdate } from './subscribers/validation.js';
export { checkEventTypeDefinition } from './validation/event-type.js';
export { isValidEventPattern, isValidEventType } from './events/matching.js';
export { aggregateEventStatus, canTransitionDelivery, canTransitionEvent } from './deliveries/status.js';

// Every API shape as a TypeBox schema (for Fastify validation, serialization and OpenAPI) …
export * as schemas from './schemas/index.js';
// … and as a TypeScript type.
export type {
  DeliveryAttempt,
  DeliveryStatus,
  ErrorResponse,
  EventStatus,
  FieldError,
  Page,
  PageQuery,
  Pagination,
  PublishBatchAccepted,
  PublishBatchItem,
  PublishBatchRefused,
  PublishBatchRequest,
  PublishBatchResult,
  PublishEventInput,
  WebhookDeliveryParams,
  WebhookEvent,
  WebhookEventDelivery,
  WebhookEventDeliveryDetail,
  WebhookEventDetail,
  WebhookEventList,
  WebhookEventListQuery,
  WebhookEventParams,
  WebhookEventType,
  WebhookEventTypeList,
  WebhookFilterPreview,
  WebhookFilterPreviewRequest,
  WebhookSubscriberCreateRequest,
  WebhookSubscriberDeliveryList,
  WebhookSubscriberDeliverySummary,
  WebhookSubscriberList,
  WebhookSubscriberListItem,
  WebhookSubscriberListQuery,
  WebhookSubscriberParams,
  WebhookSubscriberRequest,
  WebhookSubscriberResponse,
  WebhookSubscriberUpdateRequest,
} from './schemas/index.js';

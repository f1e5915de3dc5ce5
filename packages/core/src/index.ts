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
export { ATTEMPT_END_CHANNEL, ATTEMPT_START_CHANNEL, type AttemptEnd, type AttemptEndMessage, type AttemptStartMessage } from './engine/observation.js';
export type { RetentionService } from './types.js';
export { parseProxyUrl as parseEgressProxyUrl } from './engine/egress/proxy-config.js';
export {
  ConfigError,
  ConflictError,
  ForbiddenError,
  HeraldError,
  isHeraldError,
  NotFoundError,
  ValidationError,
  type FieldIssue,
} from './shared/errors.js';
export { clientTimeoutOptions, isStoreUnavailable, StoreUnavailableError } from './storage/availability.js';
export { keepClientConnected, type ClientKeeper, type ClientKeeperOptions } from './storage/client-keeper.js';
export { contextFromTraceparent } from './shared/tracing.js';
export { DELETED_USER, SYSTEM_ACTOR } from './subscribers/mapping.js';
export { validateSubscriberCreate, validateSubscriberUpdate } from './subscribers/validation.js';
// What the subscriber shapes cannot say in JSON Schema (URL normalization, duplicate patterns), for
// hosts that validate requests with the schemas and then hand them to core.
export { normaliseSubscriberRequest } from './validation/subscriber-input.js';
export { checkEventTypeDefinition } from './model/event-type-check.js';
export { ASYNCAPI_VERSION, buildAsyncApiDocument, type AsyncApiDocument, type AsyncApiOptions } from './asyncapi/document.js';
export { isValidEventPattern, isValidEventType } from './rules/matching.js';
export { aggregateEventStatus, canTransitionDelivery, canTransitionEvent } from './model/delivery-status.js';

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
  OAuth2Input,
  OAuth2Summary,
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

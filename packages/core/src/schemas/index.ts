// Every API shape of Herald's webhook resources. The server uses these very schemas for validation,
// serialization and OpenAPI; nobody restates a shape.
export * from './common.js';
export * from './status.js';
export * from './client-tls.js';
export * from './oauth2.js';
export * from './subscribers.js';
export * from './events.js';
export * from './publish-batch.js';
export * from './recoveries.js';
export * from './event-types.js';
export * from './retention.js';

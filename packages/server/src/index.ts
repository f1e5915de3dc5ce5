// @herald/server public API: build the app (tests, embedding) or start the whole host.
export { buildApp, BODY_LIMIT_BYTES, MANAGEMENT_API_PREFIX, WEBHOOK_API_PREFIX, type AppDeps, type AppOptions } from './app.js';
export { startHost, type HostMode, type RunningHost, type StartHostOptions } from './host.js';
export { loadConfig, HostConfigError, type LoadConfigOptions } from './config/load.js';
export { HostConfig } from './config/schema.js';
export { TokenStore, type ApiTokenInfo } from './auth/token-store.js';
export { ALL_SCOPES, SCOPES, type Scope } from './auth/scopes.js';
export { createLogger } from './logging/logger.js';

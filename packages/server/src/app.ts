// buildApp(config, deps): the Fastify host without listening, so tests and the executable start it
// the same way. Validation, serialization and OpenAPI all come from the routes' TypeBox schemas.
import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ValidationError, type Herald } from '@herald/core';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { registerAuth } from './auth/auth-hooks.js';
import type { JwtVerifier } from './auth/jwt-verifier.js';
import type { TokenStore } from './auth/token-store.js';
import type { HostConfig } from './config/schema.js';
import { consolePlugin } from './console/plugin.js';
import { UnsupportedMediaTypeError } from './errors/api-errors.js';
import { handleClientError } from './errors/client-error.js';
import { frameworkErrorHandler, installErrorHandling, undeclaredMethodError } from './routing/error-handler.js';
import type { HostMetrics, MetricSources } from './metrics/host-metrics.js';
import { registerOpenApi } from './openapi/register.js';
import type { PortalStore } from './portal/portal-store.js';
import type { ProjectStore } from './projects/project-store.js';
import { acceptMissingBody } from './routes/common.js';
import { managementRoutes } from './routes/management.js';
import { meRoutes } from './routes/me.js';
import { opsRoutes, type Readiness } from './routes/ops.js';
import { asyncApiRoutes } from './routes/asyncapi.js';
import { portalRoutes } from './routes/portal.js';
import { webhookEventTypeRoutes } from './routes/webhook-event-types.js';
import { webhookRetentionRoutes } from './routes/webhook-retention.js';
import { webhookEventRoutes } from './routes/webhook-events.js';
import { webhookEventBatchRoutes } from './routes/webhook-event-batch.js';
import { webhookListenRoutes } from './routes/webhook-listen.js';
import { listenInternalRoute } from './listen/internal-route.js';
import { ListenerRegistry } from './listen/registry.js';
import { webhookSubscriberRoutes } from './routes/webhook-subscribers.js';
import { parseJsonBody } from './routing/json-body.js';
import { contentTypeCharset, hostFieldCount, isAcceptedCharset } from './routing/request-head.js';
import { RouteTable } from './routing/route-table.js';
import { installStoreGuard, isExemptFromStoreGuard } from './routing/store-guard.js';
import { typeboxValidatorCompiler } from './validation/validator-compiler.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;
export const WEBHOOK_API_VERSION = '0.9';
export const WEBHOOK_API_PREFIX = `/api/v${WEBHOOK_API_VERSION}`;
export const MANAGEMENT_API_PREFIX = '/api/v1';
/** Longer path parameters are refused before routing (400 naming the parameter). */
export const MAX_PARAM_LENGTH = 1000;

/** How often Node looks for connections past their headers or request timeout: 100 ms – 1 s. */
export function timeoutCheckInterval(headersTimeoutMs: number): number {
  return Math.min(1000, Math.max(100, Math.floor(headersTimeoutMs / 10)));
}

export interface AppDeps {
  herald: Herald;
  tokens: TokenStore;
  projects: ProjectStore;
  portal: PortalStore;
  jwtVerifier?: JwtVerifier;
  logger: Logger;
  metrics: HostMetrics;
  metricSources: MetricSources;
  readiness(): Promise<Readiness>;
  /** This host's origin as its own engine reaches it (`herald webhooks listen`); absent: no listening. */
  selfOrigin?: () => string | undefined;
}

export interface AppOptions {
  /** Serve the APIs; false in `--engine-only` mode (health and metrics only). */
  api: boolean;
  /** Whether this process runs the delivery engine (readiness then requires it). */
  engineEnabled: boolean;
}

export async function buildApp(config: HostConfig, deps: AppDeps, options: AppOptions): Promise<FastifyInstance> {
  // Typed as Fastify's logger so the instance matches FastifyInstance's defaults (pino satisfies it).
  const loggerInstance: FastifyBaseLogger = deps.logger;
  const routes = new RouteTable();
  const app = Fastify({
    loggerInstance,
    bodyLimit: BODY_LIMIT_BYTES,
    // Request ids are ours, never taken from the client, so they can be trusted in logs.
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    // Long path ids must reach validation (400 with a field) instead of silently missing the route.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    clientErrorHandler: handleClientError,
    frameworkErrors: frameworkErrorHandler(routes, MAX_PARAM_LENGTH),
    // A client that sends its request a line at a time would otherwise hold a connection for
    // minutes: both bounds are answered 408 (errors/client-error.ts) and the socket closed.
    requestTimeout: config.requestTimeoutMs,
    http: {
      // Node would answer a missing Host with an empty 400; the hook below answers it in our shape.
      requireHostHeader: false,
      headersTimeout: config.headersTimeoutMs,
      // Node enforces both timeouts only when it checks its connections (every 30 s by default),
      // so it checks often enough to close a connection within about a tenth of the bound.
      connectionsCheckingInterval: timeoutCheckInterval(config.headersTimeoutMs),
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(typeboxValidatorCompiler);
  // JSON only: without this, text/plain bodies would be parsed and fail validation instead of 415.
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  // As bytes: decoding to a string first would replace invalid UTF-8 before it could be refused.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  installErrorHandling(app);
  installStoreGuard(app, { silentForMs: () => deps.herald.storeSilentForMs(), exempt: isExemptFromStoreGuard });
  app.addHook('onRoute', (route) => {
    routes.add(route.method, route.url);
    acceptMissingBody(route);
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // RFC 9112 §3.2: an HTTP/1.1 request without Host is answered 400.
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      throw ValidationError.single('host', 'header is required in HTTP/1.1');
    }
    // RFC 9112 §3.2: more than one Host field is answered 400 — two names for one request.
    if (hostFieldCount(request.raw.rawHeaders) > 1) throw ValidationError.single('host', 'must be sent once');
    const charset = contentTypeCharset(request.headers['content-type']);
    if (!isAcceptedCharset(charset)) {
      throw new UnsupportedMediaTypeError(`Request bodies must be UTF-8 JSON; charset=${JSON.stringify(charset)} is not accepted`);
    }
    const undeclared = undeclaredMethodError(routes, request);
    if (undeclared) throw undeclared;
  });
  deps.metrics.instrument(app);

  await app.register(opsRoutes, {
    readiness: deps.readiness,
    engineEnabled: options.engineEnabled,
    metrics: deps.metrics,
    metricSources: deps.metricSources,
  });
  if (!options.api) return app;

  const listeners = new ListenerRegistry();
  await app.register(listenInternalRoute, { registry: listeners });
  const auth = { tokens: deps.tokens, portal: deps.portal, jwtVerifier: deps.jwtVerifier, orgId: config.org, readOnly: config.readOnly };
  await app.register(
    async (webhookApi) => {
      registerAuth(webhookApi, auth);
      await registerOpenApi(webhookApi, {
        title: 'Herald webhook API',
        version: WEBHOOK_API_VERSION,
        description: 'Webhook subscribers and events of the instance\'s organization, and the event types it publishes.',
      });
      const routeOptions = { herald: deps.herald, orgId: config.org, publicBaseUrl: config.publicBaseUrl, basePath: WEBHOOK_API_PREFIX };
      await webhookApi.register(webhookSubscriberRoutes, routeOptions);
      await webhookApi.register(webhookEventRoutes, routeOptions);
      await webhookApi.register(webhookEventBatchRoutes, routeOptions);
      await webhookApi.register(webhookEventTypeRoutes, routeOptions);
      await webhookApi.register(asyncApiRoutes, {
        herald: deps.herald,
        signingProfile: config.signingProfile,
        traceparentHeader: config.deliveryTraceparent ?? false,
        version: WEBHOOK_API_VERSION,
      });
      await webhookApi.register(webhookRetentionRoutes, routeOptions);
      await webhookApi.register(portalRoutes, {
        orgId: config.org,
        portal: deps.portal,
        publicBaseUrl: config.publicBaseUrl,
        branding: { name: config.portalName ?? config.org, ...(config.portalColor ? { color: config.portalColor } : {}) },
        readOnly: config.readOnly,
      });
      await webhookApi.register(webhookListenRoutes, {
        herald: deps.herald,
        orgId: config.org,
        registry: listeners,
        readOnly: config.readOnly,
        selfOrigin: deps.selfOrigin ?? (() => undefined),
        graceMs: config.listenGraceMs,
      });
    },
    { prefix: WEBHOOK_API_PREFIX },
  );
  await app.register(
    async (managementApi) => {
      registerAuth(managementApi, auth);
      await registerOpenApi(managementApi, {
        title: 'Herald management API',
        version: '1',
        description: 'The organization this instance serves, its projects, and the caller\'s own identity.',
      });
      await managementApi.register(managementRoutes, {
        orgId: config.org,
        orgDisplayName: config.org,
        projects: deps.projects,
        publicBaseUrl: config.publicBaseUrl,
        basePath: MANAGEMENT_API_PREFIX,
      });
      await managementApi.register(meRoutes, { orgId: config.org });
    },
    { prefix: MANAGEMENT_API_PREFIX },
  );
  await app.register(consolePlugin, { readOnly: config.readOnly, portalFrameAncestors: config.portalFrameAncestors });
  return app;
}

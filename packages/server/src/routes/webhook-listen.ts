// `herald webhooks listen` (docs/server.md "Listening from a developer machine"): a server-sent-events
// stream whose ephemeral subscriber targets this host's internal route (listen/internal-route.ts),
// plus the CLI's replies and its explicit close. Hidden from the OpenAPI documents: a stream that
// never ends cannot be described by them nor probed by their fuzzers, and only the CLI speaks it.
import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ConflictError, ForbiddenError, NotFoundError, type Herald, type Scope } from '@herald/core';
import { Type } from 'typebox';
import { SCOPES } from '../auth/scopes.js';
import { LISTEN_PATH, type ListenerRegistry, type LiveListener } from '../listen/registry.js';
import { coreScope, NoContent } from './common.js';

export interface WebhookListenOptions {
  herald: Herald;
  orgId: string;
  registry: ListenerRegistry;
  readOnly: boolean;
  /** This host's own origin as the engine reaches it; undefined when this process runs no engine. */
  selfOrigin(): string | undefined;
}

/** The CLI's receiver answers within this, or the engine records a timeout. */
export const LISTENER_TIMEOUT_MS = 15_000;
/** Streams send a comment this often (keeps proxies from closing them) and renew their expiry. */
const HEARTBEAT_MS = 15_000;
/** A listener whose host stopped renewing it is removed by whichever host sweeps after this. */
const EXPIRY_MS = 60_000;
const SWEEP_MS = 30_000;

const ListenerParams = Type.Object({ listenerId: Type.String({ pattern: '^lst_[0-9a-f]{24}$' }) }, { additionalProperties: false });
const ReplyParams = Type.Object(
  { listenerId: ListenerParams.properties.listenerId, deliveryId: Type.String({ pattern: '^lsd_[0-9a-f]{24}$' }) },
  { additionalProperties: false },
);
const ListenQuery = Type.Object(
  { events: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Comma-separated event patterns; default every event.' })) },
  { additionalProperties: false },
);
const ReplyBody = Type.Object(
  {
    status: Type.Integer({ minimum: 200, maximum: 599 }),
    body: Type.Optional(Type.String({ maxLength: 4096 })),
    durationMs: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);

export const webhookListenRoutes: FastifyPluginAsyncTypebox<WebhookListenOptions> = async (app, options) => {
  const { herald, orgId, registry } = options;
  const system: Scope = { orgId, actor: 'system:listen' };
  const closing = new Map<string, Promise<void>>();

  /** Forgets and deletes a listener once, however many ways (stream end, DELETE, shutdown) ask. */
  const close = (id: string): Promise<void> => {
    const pending = closing.get(id);
    if (pending) return pending;
    const listener = registry.get(id);
    registry.remove(id);
    listener?.end();
    const deleted = herald.subscribers.delete(system, id).catch((error: unknown) => {
      if (!(error instanceof NotFoundError)) app.log.warn({ listenerId: id, err: { message: (error as Error).message } }, 'listener not deleted; its expiry removes it');
    });
    closing.set(id, deleted);
    void deleted.finally(() => closing.delete(id));
    return deleted;
  };

  const owned = (listenerId: string, principalId: string): LiveListener => {
    const listener = registry.get(listenerId);
    if (!listener || listener.principalId !== principalId) throw new NotFoundError(`listener "${listenerId}" not found`);
    return listener;
  };

  app.get(
    '/webhook-listen',
    { config: { scope: SCOPES.subscriberCreate }, schema: { hide: true, querystring: ListenQuery } },
    async (request, reply) => {
      // A GET, so the auth hook's read-only rule does not see that it creates a subscriber.
      if (options.readOnly) throw new ForbiddenError('The instance is in read-only mode');
      const origin = options.selfOrigin();
      if (origin === undefined) throw new ConflictError('this host runs no delivery engine; listen through a host started in mode "all"');
      const events = (request.query.events ?? '*').split(',').map((pattern) => pattern.trim());
      const id = `lst_${randomBytes(12).toString('hex')}`;
      const secret = `whsec_${randomBytes(24).toString('base64')}`;
      // Validation of the patterns is core's (a 400 naming events[i]) and happens before the stream opens.
      await herald.subscribers.create(
        coreScope(request, orgId),
        { id, displayName: `herald webhooks listen (${request.principal!.id})`, targetUrl: `${origin}${LISTEN_PATH}${id}`, events, secret, timeoutMs: LISTENER_TIMEOUT_MS },
        { listener: { expiresAt: new Date(Date.now() + EXPIRY_MS) } },
      );

      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive', 'x-request-id': request.id });
      // A write after end() would be an 'error' on the response: ended streams are never written to.
      const write = (text: string): void => {
        if (!raw.writableEnded && !raw.destroyed) raw.write(text);
      };
      const send = (event: string, data: unknown): void => {
        write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      };
      registry.add({ id, orgId, principalId: request.principal!.id, secret, timeoutMs: LISTENER_TIMEOUT_MS, send, end: () => raw.end() });
      send('ready', { listenerId: id, secret, events });
      const heartbeat = setInterval(() => {
        write(': heartbeat\n\n');
        void herald.subscribers.renewListener(system, id, new Date(Date.now() + EXPIRY_MS)).catch(() => undefined);
      }, HEARTBEAT_MS);
      raw.once('close', () => {
        clearInterval(heartbeat);
        void close(id);
      });
    },
  );

  app.post(
    '/webhook-listen/:listenerId/replies/:deliveryId',
    { config: { scope: SCOPES.subscriberCreate }, schema: { hide: true, params: ReplyParams, body: ReplyBody, response: { 204: NoContent } } },
    async (request, reply) => {
      const { listenerId, deliveryId } = request.params;
      owned(listenerId, request.principal!.id);
      if (!registry.reply(listenerId, deliveryId, request.body)) throw new NotFoundError(`no delivery "${deliveryId}" waits for a reply`);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/webhook-listen/:listenerId',
    { config: { scope: SCOPES.subscriberCreate }, schema: { hide: true, params: ListenerParams, response: { 204: NoContent } } },
    async (request, reply) => {
      const { listenerId } = request.params;
      owned(listenerId, request.principal!.id);
      await close(listenerId);
      return reply.code(204).send(null);
    },
  );

  // Listeners whose host died never had their stream's close: their expiry lapses and any host sweeps them.
  const sweep = setInterval(() => {
    void (async () => {
      for (const handle of await herald.subscribers.expiredListeners(system, new Date())) {
        if (!registry.get(handle)) await herald.subscribers.delete(system, handle).catch(() => undefined);
      }
    })().catch(() => undefined);
  }, SWEEP_MS);
  sweep.unref();

  // Open streams would hold the server open: end them, and let their listeners be deleted, before closing.
  app.addHook('preClose', async () => {
    clearInterval(sweep);
    await Promise.all(registry.all().map((listener) => close(listener.id)));
  });
};

// `herald webhooks listen` (docs/server.md "Listening from a developer machine"): a server-sent-events
// stream whose ephemeral subscriber targets this host's internal route (listen/internal-route.ts),
// plus the CLI's replies and its explicit close. A dropped stream leaves its listener alive for a
// grace period so the CLI can resume it (`?resume=lst_…`) with the same id and secret: a receiver
// configured with the secret printed at start keeps verifying across a network blip. Hidden from
// the OpenAPI documents: a stream that never ends cannot be described by them nor probed by their
// fuzzers, and only the CLI speaks it.
import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ConflictError, ForbiddenError, NotFoundError, schemas, type Herald, type Scope } from '@herald/core';
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
  /** How long a listener outlives its dropped stream (0: deleted at once); default LISTEN_GRACE_MS. */
  graceMs?: number | undefined;
}

/** A listener waits this long for its CLI to resume it after the stream drops, then is deleted. */
export const LISTEN_GRACE_MS = 60_000;

/** The CLI's receiver answers within this, or the engine records a timeout. */
export const LISTENER_TIMEOUT_MS = 15_000;
/** Streams send a comment this often (keeps proxies from closing them) and renew their expiry. */
const HEARTBEAT_MS = 15_000;
/** A listener whose host stopped renewing it is removed by whichever host sweeps after this. */
const EXPIRY_MS = 60_000;
const SWEEP_MS = 30_000;

const LISTENER_ID = '^lst_[0-9a-f]{24}$';
const ListenerParams = Type.Object({ listenerId: Type.String({ pattern: LISTENER_ID }) }, { additionalProperties: false });
const ReplyParams = Type.Object(
  { listenerId: ListenerParams.properties.listenerId, deliveryId: Type.String({ pattern: '^lsd_[0-9a-f]{24}$' }) },
  { additionalProperties: false },
);
const ListenQuery = Type.Object(
  {
    events: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, pattern: schemas.TEXT_PATTERN, description: 'Comma-separated event patterns; default every event.' })),
    resume: Type.Optional(
      Type.String({
        pattern: LISTENER_ID,
        description: 'A listener this caller opened before: resumed with its id and secret if it still exists with the same events, else a new one is opened (`ready.resumed` says which).',
      }),
    ),
  },
  { additionalProperties: false },
);
const ReplyBody = Type.Object(
  {
    status: Type.Integer({ minimum: 200, maximum: 599 }),
    body: Type.Optional(Type.String({ maxLength: 4096, pattern: schemas.TEXT_PATTERN })),
    durationMs: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);

export const webhookListenRoutes: FastifyPluginAsyncTypebox<WebhookListenOptions> = async (app, options) => {
  const { herald, orgId, registry } = options;
  const system: Scope = { orgId, actor: 'system:listen' };
  const graceMs = options.graceMs ?? LISTEN_GRACE_MS;
  const closing = new Map<string, Promise<void>>();
  /** Listeners without a stream, by id: the timer that deletes them unless resumed first. */
  const graceTimers = new Map<string, NodeJS.Timeout>();

  const stopGrace = (id: string): void => {
    clearTimeout(graceTimers.get(id));
    graceTimers.delete(id);
  };

  /** Forgets and deletes a listener once, however many ways (grace expiry, DELETE, shutdown) ask. */
  const close = (id: string): Promise<void> => {
    const pending = closing.get(id);
    if (pending) return pending;
    stopGrace(id);
    const listener = registry.get(id);
    registry.remove(id);
    listener?.stream?.end();
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

  /** The stream dropped: the listener waits `graceMs` for a resume, then goes as before. */
  const detached = (id: string): void => {
    if (graceMs === 0) {
      void close(id);
      return;
    }
    stopGrace(id);
    const timer = setTimeout(() => void close(id), graceMs);
    timer.unref();
    graceTimers.set(id, timer);
    // No heartbeat renews it now; should this host die during the grace, any host sweeps it after.
    void herald.subscribers.renewListener(system, id, new Date(Date.now() + graceMs + EXPIRY_MS)).catch(() => undefined);
  };

  /**
   * The listener `resume` names, if this caller may take it over: opened by the same principal in
   * this org with the same patterns, and still held by this process. Anything else — expired,
   * deleted, another replica's or host's, another principal's — is indistinguishable from unknown,
   * so a foreign id reveals nothing, and the caller gets a new listener instead.
   */
  const resumable = (resume: string | undefined, principalId: string, events: readonly string[]): LiveListener | undefined => {
    if (resume === undefined) return undefined;
    const listener = registry.get(resume);
    if (!listener || closing.has(resume) || listener.principalId !== principalId || listener.orgId !== orgId) return undefined;
    return samePatterns(listener.events, events) ? listener : undefined;
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
      const principalId = request.principal!.id;
      let listener = resumable(request.query.resume, principalId, events);
      const resumed = listener !== undefined;
      if (!listener) {
        const id = `lst_${randomBytes(12).toString('hex')}`;
        const secret = `whsec_${randomBytes(24).toString('base64')}`;
        // Validation of the patterns is core's (a 400 naming events[i]) and happens before the stream opens.
        await herald.subscribers.create(
          coreScope(request, orgId),
          { id, displayName: `herald webhooks listen (${principalId})`, targetUrl: `${origin}${LISTEN_PATH}${id}`, events, secret, timeoutMs: LISTENER_TIMEOUT_MS },
          { listener: { expiresAt: new Date(Date.now() + EXPIRY_MS) } },
        );
        listener = { id, orgId, principalId, secret, events, timeoutMs: LISTENER_TIMEOUT_MS, stream: undefined };
        registry.add(listener);
      }
      const { id, secret } = listener;

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
      const stream = { send, end: () => raw.end() };
      stopGrace(id);
      // A resume may arrive before this host saw the old connection close: that one is ended.
      registry.attach(id, stream)?.end();
      if (resumed) void herald.subscribers.renewListener(system, id, new Date(Date.now() + EXPIRY_MS)).catch(() => undefined);
      send('ready', { listenerId: id, secret, events: listener.events, resumed, graceMs });
      const heartbeat = setInterval(() => {
        write(': heartbeat\n\n');
        void herald.subscribers.renewListener(system, id, new Date(Date.now() + EXPIRY_MS)).catch(() => undefined);
      }, HEARTBEAT_MS);
      const onClose = (): void => {
        clearInterval(heartbeat);
        if (registry.detach(id, stream)) detached(id);
      };
      raw.once('close', onClose);
      // A client that left while the subscriber was being created fired its 'close' before anyone
      // listened: without this its listener would keep a dead stream and never enter its grace.
      if (request.raw.socket.destroyed) onClose();
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

  // Open streams would hold the server open: end them, and delete every listener (those in their
  // grace period too: their secrets live only in this process's memory) before closing.
  app.addHook('preClose', async () => {
    clearInterval(sweep);
    await Promise.all(registry.all().map((listener) => close(listener.id)));
  });
};

/** Same patterns, whatever their order or repetition. */
function samePatterns(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((pattern) => right.has(pattern));
}

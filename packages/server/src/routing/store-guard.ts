// A request waiting on a database that answers nothing is answered 503 within
// REQUEST_STORE_SILENCE_MS rather than hanging until the driver's socket timeout. The judgement is
// core's store watch (commands waiting, none answered), so a busy database — answering, slowly —
// keeps its requests waiting for their answers; only a silent one cuts them short.
//
// The guard answers on the raw response and takes the reply over (hijack): Fastify then ignores
// what the route's hooks and handler produce later, when the database answers or their commands
// time out, instead of logging every one of them as a second reply.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StoreUnavailableError } from '@herald/core';
import { toErrorReply } from '../errors/error-reply.js';

/** Silence after which a waiting request is answered 503: 2 s end to end, with room to spare. */
export const REQUEST_STORE_SILENCE_MS = 1_500;
const CHECK_EVERY_MS = 100;

const answeredByGuard = Symbol('answeredByGuard');

export interface StoreGuardOptions {
  silentForMs(): number;
  /** Paths that never wait on the database or bound their own wait (probes, streams). */
  exempt(path: string): boolean;
}

export function installStoreGuard(app: FastifyInstance, options: StoreGuardOptions): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (options.exempt(request.url)) return done();
    const timer = setInterval(() => {
      if (reply.sent) return clearInterval(timer);
      if (options.silentForMs() < REQUEST_STORE_SILENCE_MS) return;
      clearInterval(timer);
      answerUnavailable(request, reply);
    }, CHECK_EVERY_MS);
    reply.raw.once('close', () => clearInterval(timer));
    done();
  });
  // A handler that fails after the guard answered has nobody left to tell (hooks that fail then
  // are already dropped by Fastify, which stops a hijacked request's chain).
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function guarded(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      const result: unknown = handler.call(this, request, reply);
      if (!(result instanceof Promise)) return result;
      return result.catch((error: unknown) => {
        if ((request as GuardedRequest)[answeredByGuard]) return undefined;
        throw error;
      });
    };
  });
}

type GuardedRequest = FastifyRequest & { [answeredByGuard]?: true };

function answerUnavailable(request: FastifyRequest, reply: FastifyReply): void {
  (request as GuardedRequest)[answeredByGuard] = true;
  const { statusCode, headers, body } = toErrorReply(new StoreUnavailableError(), request.id);
  // The same line as a 503 from the error handler, so every refused request is in the log with its cause.
  request.log.warn({ code: body.code, cause: `no answer from the database for ${REQUEST_STORE_SILENCE_MS / 1000} s` }, 'request failed: the database is unavailable');
  reply.hijack();
  const text = JSON.stringify(body);
  reply.raw.writeHead(statusCode, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'x-request-id': request.id,
  });
  reply.raw.end(text);
}

/** Probes bound their own wait; the console and the OpenAPI documents never touch the database; a
 * listener's relay waits on its CLI, not on the database. */
export function isExemptFromStoreGuard(url: string): boolean {
  const path = url.split('?', 1)[0]!;
  return (
    path === '/healthz' ||
    path === '/readyz' ||
    path.startsWith('/internal/listen/') ||
    path === '/console' ||
    path.startsWith('/console/') ||
    path.endsWith('/openapi.json')
  );
}

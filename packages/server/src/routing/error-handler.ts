// Installs the one error handler and the not-found handler on the root instance; every error of
// every route, hook, parser and validator ends here and leaves in the ErrorResponse shape. Errors
// Fastify raises before routing (bad percent-encoding, over-long path parameters) come through
// `frameworkErrors` to the same reply.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError, ValidationError } from '@herald/core';
import { pathOf, type RouteTable } from './route-table.js';
import { MethodNotAllowedError } from '../errors/api-errors.js';
import { toErrorReply } from '../errors/error-reply.js';

function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const mapped = toErrorReply(error, request.id);
  if (mapped.statusCode === 503) {
    request.log.warn({ code: mapped.body.code, cause: error instanceof Error ? error.message : undefined }, 'request failed: the database is unavailable');
  } else if (mapped.statusCode >= 500) {
    request.log.error({ err: error }, 'request failed');
  } else {
    request.log.info({ code: mapped.body.code, statusCode: mapped.statusCode }, 'request rejected');
  }
  return reply.code(mapped.statusCode).headers(mapped.headers).send(mapped.body);
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => sendError(error, request, reply));

  app.setNotFoundHandler(async (request) => {
    throw new NotFoundError(`No route for ${request.method} ${pathOf(request.url)}`);
  });
}

/**
 * For an onRequest hook, so that it comes before any body is read (Fastify would otherwise refuse a
 * QUERY without Content-Type first): a request the router could not place, on a path that exists
 * with other methods, is a 405 naming them.
 */
export function undeclaredMethodError(routes: RouteTable, request: FastifyRequest): MethodNotAllowedError | undefined {
  if (!request.is404) return undefined;
  const allowed = routes.allowedMethods(pathOf(request.url));
  return allowed.length > 0 ? new MethodNotAllowedError(request.method, allowed) : undefined;
}

/** Fastify's `frameworkErrors` option: these requests skip the onRequest hooks, so the id is set here. */
export function frameworkErrorHandler(routes: RouteTable, maxParamLength: number) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    let reported: unknown = error;
    if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      const field = routes.overlongParameter(pathOf(request.url), maxParamLength) ?? 'path';
      reported = ValidationError.single(field, `must be at most ${maxParamLength} characters`);
    }
    reply.header('x-request-id', request.id);
    void sendError(reported, request, reply);
  };
}

// Installs the one error handler and the not-found handler on the root instance; every error of
// every route, hook, parser and validator ends here and leaves in the ErrorResponse shape.
import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '@herald/core';
import { toErrorReply } from './error-reply.js';

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const mapped = toErrorReply(error, request.id);
    if (mapped.statusCode >= 500) {
      request.log.error({ err: error }, 'request failed');
    } else {
      request.log.info({ code: mapped.body.code, statusCode: mapped.statusCode }, 'request rejected');
    }
    return reply.code(mapped.statusCode).headers(mapped.headers).send(mapped.body);
  });

  app.setNotFoundHandler(async (request) => {
    throw new NotFoundError(`No route for ${request.method} ${request.url.split('?')[0]}`);
  });
}

// Serves the Herald console (packages/console, a static build) at /console/ on the host's own
// origin, so it needs no extra process and its API calls are same-origin. Loading it needs no
// credentials: it is static, and every API call it makes carries the signed-in token. An encapsulated
// plugin: its headers and hooks stay on /console/ routes.
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { CONSOLE_SECURITY_HEADERS, cacheControlFor, REVALIDATE } from './headers.js';

export const CONSOLE_PATH = '/console/';

/** packages/console/dist, from src/console or dist/console of this package alike. */
export const DEFAULT_CONSOLE_ROOT = fileURLToPath(new URL('../../../console/dist/', import.meta.url));

export interface ConsoleOptions {
  /** The host refuses every mutating request (HERALD_READ_ONLY): the console disables its actions. */
  readOnly: boolean;
  /** The console's build directory (default: packages/console/dist beside this package). */
  root?: string;
}

export const NOT_BUILT_MESSAGE =
  'The Herald console is not built: run `npm run build` (or `make build`) in the Herald checkout, then restart herald-server';

function notBuilt(reply: FastifyReply): FastifyReply {
  return reply
    .code(503)
    .header('cache-control', 'no-store')
    .send({ status: 'error', code: 'SERVICE_UNAVAILABLE', message: NOT_BUILT_MESSAGE });
}

export const consolePlugin: FastifyPluginAsync<ConsoleOptions> = async (app, options) => {
  const root = options.root ?? DEFAULT_CONSOLE_ROOT;

  app.addHook('onSend', async (_request, reply, payload) => {
    reply.headers(CONSOLE_SECURITY_HEADERS);
    return payload;
  });

  // What the API cannot tell a client about the host itself; public, like the page.
  app.get('/console/host.json', async (_request, reply) => {
    return reply.header('cache-control', REVALIDATE).send({ readOnly: options.readOnly });
  });

  // Checked once at start: a build made while the host runs shows after a restart.
  if (!existsSync(join(root, 'index.html'))) {
    app.get('/console', async (_request, reply) => notBuilt(reply));
    app.get('/console/*', async (_request, reply) => notBuilt(reply));
    return;
  }

  // The app's relative asset URLs resolve against /console/, so the bare path redirects there.
  app.get('/console', async (_request, reply) => reply.redirect(CONSOLE_PATH, 301));
  await app.register(fastifyStatic, {
    root,
    prefix: CONSOLE_PATH,
    index: ['index.html'],
    decorateReply: false,
    dotfiles: 'ignore',
    cacheControl: false,
    setHeaders(reply, path) {
      reply.header('cache-control', cacheControlFor(relative(root, path)));
    },
  });
};

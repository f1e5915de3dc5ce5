// Serves the Herald console (packages/console, a static build) at /console/ on the host's own
// origin, so it needs no extra process and its API calls are same-origin. Loading it needs no
// credentials: it is static, and every API call it makes carries the signed-in token. An encapsulated
// plugin: its headers and hooks stay on /console/ routes.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { CONSOLE_SECURITY_HEADERS, cacheControlFor, portalSecurityHeaders, REVALIDATE } from './headers.js';

export const CONSOLE_PATH = '/console/';
/** The consumer portal: the same app, which reads its mode from this path (docs/console.md). */
export const PORTAL_PATH = '/console/portal/';

/** packages/console/dist, from src/console or dist/console of this package alike. */
export const DEFAULT_CONSOLE_ROOT = fileURLToPath(new URL('../../../console/dist/', import.meta.url));

export interface ConsoleOptions {
  /** The host refuses every mutating request (HERALD_READ_ONLY): the console disables its actions. */
  readOnly: boolean;
  /** The console's build directory (default: packages/console/dist beside this package). */
  root?: string;
  /** CSP frame-ancestors of the portal page (default 'self'). */
  portalFrameAncestors?: readonly string[];
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

  const portalHeaders = portalSecurityHeaders(options.portalFrameAncestors ?? ["'self'"]);
  app.addHook('onSend', async (request, reply, payload) => {
    reply.headers(request.url.split('?')[0] === PORTAL_PATH ? portalHeaders : CONSOLE_SECURITY_HEADERS);
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
  app.get('/console/portal', async (_request, reply) => reply.redirect(PORTAL_PATH, 301));
  // The portal page is the console's own index.html under a path of its own, so it can carry its
  // own framing policy; the app sees the path and starts in portal mode.
  app.get(PORTAL_PATH, async (_request, reply) => {
    const page = await readFile(join(root, 'index.html'));
    return reply.header('cache-control', REVALIDATE).type('text/html; charset=utf-8').send(page);
  });
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

// POST /internal/listen/{listenerId}: the target of every listener subscriber. The engine reaches it
// over loopback (core's selfTargetPrefix lets exactly this path past the SSRF guard). It is not
// behind token auth — the engine has no token — so it accepts only deliveries signed with the
// listener's own secret, then relays them to the CLI's stream and answers with the CLI's outcome.
import { verify } from '@herald/receiver';
import type { FastifyPluginAsync } from 'fastify';
import { LISTEN_PATH, type ListenerRegistry } from './registry.js';

/** Answered before the engine's own timeout, so the outcome recorded is ours, not a timeout. */
const ANSWER_MARGIN_MS = 500;
/** Not relayed: they describe the hop to this host, not the delivery. */
const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

export const listenInternalRoute: FastifyPluginAsync<{ registry: ListenerRegistry }> = async (app, { registry }) => {
  // The signature covers the exact bytes, so the body stays a string.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.post<{ Params: { listenerId: string } }>(`${LISTEN_PATH}:listenerId`, { schema: { hide: true } }, async (request, reply) => {
    const listener = registry.get(request.params.listenerId);
    // 410, not 404: the engine treats Gone as terminal, so a closed listener's deliveries stop at once.
    if (!listener) return reply.code(410).send({ status: 'error', code: 'GONE', message: 'this listener is closed' });
    const body = typeof request.body === 'string' ? request.body : '';
    try {
      verify(request.headers, body, listener.secret);
    } catch {
      return reply.code(401).send({ status: 'error', code: 'UNAUTHORIZED', message: 'not a delivery signed for this listener' });
    }
    // Between a dropped stream and its resume nobody can relay: a 503 is a failed attempt the
    // engine retries on its usual schedule (no Retry-After: a reconnect takes seconds, and the
    // schedule's first steps are that short), so the delivery reaches the CLI once it is back.
    const { stream } = listener;
    if (!stream) {
      return reply.code(503).send({ status: 'error', code: 'SERVICE_UNAVAILABLE', message: 'the listening CLI is disconnected; it may resume within its grace period' });
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (!HOP_HEADERS.has(name) && typeof value === 'string') headers[name] = value;
    }
    const answer = await registry.push(listener.id, stream, { headers, body }, listener.timeoutMs - ANSWER_MARGIN_MS);
    if (!answer) return reply.code(504).type('text/plain').send('the listening CLI did not relay an answer in time');
    return reply.code(answer.status).type('text/plain').send(answer.body ?? '');
  });
};

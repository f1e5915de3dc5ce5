// The listen stream's wire side: opening GET /api/v0.9/webhook-listen (with `resume` naming the
// listener of a dropped stream, so the server hands back the same one) and reading its
// server-sent events, one {event, data} frame at a time, with eventsource-parser (any line ending,
// any chunk boundary).
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { userAgent } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import { describeHttpError } from '../http/client.js';

export interface StreamFrame {
  event: string;
  data: string;
}

export async function* openListenStream(
  baseUrl: string,
  token: string,
  events: readonly string[],
  signal: AbortSignal,
  resume?: string,
): AsyncGenerator<StreamFrame> {
  const url = new URL('api/v0.9/webhook-listen', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  url.searchParams.set('events', events.join(','));
  if (resume !== undefined) url.searchParams.set('resume', resume);
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', 'user-agent': userAgent }, signal });
  if (response.status !== 200 || response.body === null) {
    const body = Buffer.from(await response.arrayBuffer());
    // Refusals (auth, bad pattern) do not get better by reconnecting.
    throw new CliError(`HTTP_${response.status}`, describeHttpError(response.status, body), ExitCode.failed);
  }
  const messages = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  // Comment-only blocks (heartbeats) produce no message; an event without a type is a 'message', as in EventSource.
  for await (const message of messages) yield { event: message.event || 'message', data: message.data };
}

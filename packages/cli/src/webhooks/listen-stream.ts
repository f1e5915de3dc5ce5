// The listen stream's wire side: opening GET /api/v0.9/webhook-listen (with `resume` naming the
// listener of a dropped stream, so the server hands back the same one) and reading its
// server-sent events, one {event, data} frame at a time.
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
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n/g, '\n');
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      // Comment-only blocks are heartbeats.
      if (data.length > 0) yield { event, data: data.join('\n') };
    }
  }
}

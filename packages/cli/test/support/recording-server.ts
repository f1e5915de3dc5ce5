// A loopback HTTP server that records every request and answers with whatever the test sets.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  /** Path and query exactly as received. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** Header names in the letter case the client sent. */
  readonly rawHeaderNames: readonly string[];
  readonly body: Buffer;
}

export interface Reply {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
}

export type Responder = (request: RecordedRequest) => Reply;

export interface RecordingServer {
  readonly url: string;
  readonly requests: RecordedRequest[];
  respond(responder: Responder): void;
  /** Forgets the requests and goes back to the default answer, as when it started. */
  reset(): void;
  close(): Promise<void>;
}

/** A JSON answer, as Herald's API gives them. */
export const jsonReply = (body: unknown, status = 200): Reply => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

const defaultReply: Responder = () => jsonReply({ ok: true });

export async function startRecordingServer(): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  let responder: Responder = defaultReply;
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const recorded: RecordedRequest = {
        method: incoming.method ?? '',
        url: incoming.url ?? '',
        headers: incoming.headers,
        rawHeaderNames: incoming.rawHeaders.filter((_, index) => index % 2 === 0),
        body: Buffer.concat(chunks),
      };
      requests.push(recorded);
      const reply = responder(recorded);
      outgoing.writeHead(reply.status ?? 200, reply.headers ?? {});
      outgoing.end(reply.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respond(next) {
      responder = next;
    },
    reset() {
      requests.length = 0;
      responder = defaultReply;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

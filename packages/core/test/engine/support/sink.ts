// A real HTTP receiver on 127.0.0.1 for engine tests: records every request and answers with
// whatever the test's handler decides.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  receivedAt: number;
}

export type SinkHandler = (request: ReceivedRequest, response: ServerResponse, index: number) => void | Promise<void>;

export interface Sink {
  url: string;
  port: number;
  received: ReceivedRequest[];
  connections: number;
  setHandler(handler: SinkHandler): void;
  /** Resolves once `count` requests have arrived (or rejects after timeoutMs). */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export const answer = (status: number, headers: Record<string, string> = {}, body = ''): SinkHandler =>
  (_request, response) => { response.writeHead(status, headers).end(body); };

export async function startSink(handler: SinkHandler = answer(204)): Promise<Sink> {
  let current = handler;
  const received: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const waiters: Array<{ count: number; done: () => void }> = [];
  let connections = 0;
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const entry: ReceivedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks),
      receivedAt: Date.now(),
    };
    received.push(entry);
    try {
      await current(entry, res, received.length - 1);
    } catch {
      if (!res.headersSent) res.writeHead(599).end();
    }
    for (const waiter of [...waiters]) {
      if (received.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.done();
      }
    }
  });
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    get connections() { return connections; },
    setHandler(next) { current = next; },
    waitFor(count, timeoutMs = 15_000) {
      if (received.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`sink got ${received.length} of ${count} requests`)), timeoutMs);
        waiters.push({ count, done: () => { clearTimeout(timer); resolve(); } });
      });
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

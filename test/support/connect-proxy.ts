// A real HTTP CONNECT proxy on 127.0.0.1 for egress tests: records the authority each CONNECT
// asked for and its Proxy-Authorization, then pipes bytes to that address, or refuses with the
// status the test sets. `stop()`/`start()` take it down and bring it back on the same port.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface ConnectRequest {
  authority: string;
  proxyAuthorization: string | undefined;
}

export interface ConnectProxy {
  /** `http://127.0.0.1:<port>`, without credentials. */
  url: string;
  port: number;
  connects: ConnectRequest[];
  /** Answer every CONNECT with this status instead of opening the tunnel (undefined: tunnel). */
  refuseWith(status: number | undefined): void;
  /** Only CONNECTs carrying this Proxy-Authorization are tunnelled; others get 407. */
  requireAuthorization(value: string | undefined): void;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startConnectProxy(port = 0): Promise<ConnectProxy> {
  const connects: ConnectRequest[] = [];
  const sockets = new Set<Socket>();
  let refusal: number | undefined;
  let required: string | undefined;
  let server: Server | undefined;
  let boundPort = port;

  const onConnect = (request: IncomingMessage, client: Socket, head: Buffer): void => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client)).on('error', () => client.destroy());
    const authority = request.url ?? '';
    const proxyAuthorization = request.headers['proxy-authorization'];
    connects.push({ authority, proxyAuthorization });
    const status = required !== undefined && proxyAuthorization !== required ? 407 : refusal;
    if (status !== undefined) {
      client.end(`HTTP/1.1 ${status} Refused\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const { hostname, port: targetPort } = new URL(`http://${authority}`);
    const upstream = connect({ host: hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(targetPort) });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on('error', () => {
      if (!client.destroyed) client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
    });
  };

  const start = async (): Promise<void> => {
    server = createServer((_request, response) => response.writeHead(405).end());
    server.on('connect', onConnect);
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(boundPort, '127.0.0.1', () => resolve());
    });
    boundPort = (server.address() as AddressInfo).port;
  };
  await start();

  return {
    get url() {
      return `http://127.0.0.1:${boundPort}`;
    },
    get port() {
      return boundPort;
    },
    connects,
    refuseWith(status) {
      refusal = status;
    },
    requireAuthorization(value) {
      required = value;
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      server = undefined;
    },
    start,
  };
}

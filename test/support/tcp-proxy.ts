// A loopback TCP proxy in front of the store. It can add a delay to every round trip, as a
// networked MongoDB would (each chunk from the client is forwarded `delayMs` later, in order;
// answers come back at once), and it can cut the network and restore it: an outage in which the
// store keeps its data, on any store. It can also hold the store's answers back (the store takes
// every command and answers none, as a stuck one does) and let them through later, in order.
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** The store's URI with the proxy's address in place of the store's. */
  uri: string;
  /** Drops every open connection and refuses new ones (nothing listens on the port) until `restore`. */
  cut(): void;
  restore(): void;
  /** Keeps every answer from the store back, on open and new connections, until `release`. */
  hold(): void;
  /** Lets the held answers through, in order, and every later one. */
  release(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetUri: string, options: { delayMs?: number } = {}): Promise<TcpProxy> {
  const delayMs = options.delayMs ?? 0;
  const target = new URL(targetUri);
  const sockets = new Set<Socket>();
  let cut = false;
  let held = false;
  let heldAnswers: Array<() => void> = [];
  const accept = (client: Socket) => {
    const upstream = connect(Number(target.port || 27017), target.hostname);
    sockets.add(client).add(upstream);
    let releaseAt = 0;
    client.on('data', (chunk) => {
      if (delayMs === 0) {
        upstream.write(chunk);
        return;
      }
      // Never before an earlier chunk: a later one may not overtake it.
      releaseAt = Math.max(Date.now() + delayMs, releaseAt);
      setTimeout(() => upstream.write(chunk), releaseAt - Date.now());
    });
    upstream.on('data', (chunk) => {
      if (held) heldAnswers.push(() => client.write(chunk));
      else client.write(chunk);
    });
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', closeBoth).on('error', closeBoth);
    upstream.on('close', closeBoth).on('error', closeBoth);
  };
  // Refused, not accepted and then reset: a connection the proxy accepted and dropped at once
  // would test the driver's handling of that race, not Herald's of an outage.
  let server: Server = createServer(accept);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const proxied = new URL(targetUri);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(port);
  return {
    uri: proxied.toString(),
    cut() {
      if (cut) return;
      cut = true;
      server.close();
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      if (!cut) return;
      cut = false;
      server = createServer(accept);
      server.listen(port, '127.0.0.1');
    },
    hold() {
      held = true;
    },
    release() {
      held = false;
      const answers = heldAnswers;
      heldAnswers = [];
      for (const answer of answers) answer();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      if (!cut) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

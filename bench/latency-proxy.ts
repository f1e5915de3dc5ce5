// A loopback TCP proxy that adds `delayMs` to every round trip between Herald and the store, as a
// networked MongoDB would: each chunk from the client is forwarded `delayMs` later, in order.
// Answers come back at once, so a request/response exchange costs exactly `delayMs` more.
// Run as its own process (`node bench/latency-proxy.ts <uri> <delayMs>` prints {"uri": …}) so its
// CPU is not counted as Herald's.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { pathToFileURL } from 'node:url';

export interface LatencyProxy {
  /** The store's URI with the proxy's address in place of the store's. */
  uri: string;
  close(): Promise<void>;
}

export async function startLatencyProxy(targetUri: string, delayMs: number): Promise<LatencyProxy> {
  const target = new URL(targetUri);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 27017), target.hostname);
    sockets.add(client).add(upstream);
    let releaseAt = 0;
    client.on('data', (chunk) => {
      // Never before an earlier chunk: a later one may not overtake it.
      releaseAt = Math.max(Date.now() + delayMs, releaseAt);
      const wait = releaseAt - Date.now();
      setTimeout(() => upstream.write(chunk), wait);
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', closeBoth).on('error', closeBoth);
    upstream.on('close', closeBoth).on('error', closeBoth);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const proxied = new URL(targetUri);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(port);
  return {
    uri: proxied.toString(),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const proxy = await startLatencyProxy(process.argv[2]!, Number(process.argv[3]));
  process.stdout.write(`${JSON.stringify({ uri: proxy.uri })}\n`);
  process.on('SIGTERM', () => void proxy.close().then(() => process.exit(0)));
}

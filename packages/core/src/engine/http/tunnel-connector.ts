// Deliveries through an HTTP CONNECT proxy without giving up the SSRF guard. undici's ProxyAgent
// asks the proxy to CONNECT to the target's *name*, so the proxy would resolve it — possibly to a
// private address, or differently from any check made here (DNS rebinding). This connector instead:
//   1. resolves the name itself through the guarded lookup (forbidden answers dropped, an IP
//      literal checked as it is), the same policy as a direct delivery;
//   2. opens a TCP connection to the proxy (operator configuration, trusted: not checked);
//   3. asks it to CONNECT to the checked address as an IP literal and port;
//   4. for https targets starts TLS inside the tunnel with the original name as SNI and as the
//      name the certificate must carry; undici sends the original Host header either way.
// The proxy's failures — unreachable, no answer, a CONNECT refused, closed before answering —
// are ProxyErrors (class PROXY); what happens once the tunnel is up is classed as for any socket.
import { isIP, connect as netConnect, type LookupFunction, type Socket } from 'node:net';
import { buildConnector } from 'undici';
import type { SsrfPolicy } from '../ssrf/policy.js';
import type { EgressProxy } from '../egress/proxy-config.js';
import { guardedLookup, SsrfBlockedError, tlsOptions, type ClientTlsOptions } from './guarded-connector.js';

/** Larger CONNECT answers are not a proxy speaking HTTP. */
const MAX_CONNECT_RESPONSE_BYTES = 16 * 1024;

export class ProxyError extends Error {
  readonly code = 'EGRESS_PROXY';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProxyError';
  }
}

/** The first address of `hostname` the policy allows, or why there is none. */
function resolveChecked(lookup: LookupFunction, policy: SsrfPolicy, hostname: string): Promise<string> {
  if (isIP(hostname) !== 0) {
    const verdict = policy.check(hostname);
    return verdict.allowed ? Promise.resolve(hostname) : Promise.reject(new SsrfBlockedError(hostname, verdict.category));
  }
  return new Promise((resolve, reject) => {
    lookup(hostname, { all: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(Array.isArray(addresses) ? (addresses[0]?.address ?? '') : addresses);
    });
  });
}

/** Opens a CONNECT tunnel to `authority` through `proxy`; resolves with the tunnel's socket. */
export function openTunnel(proxy: EgressProxy, authority: string, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: proxy.host, port: proxy.port });
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (error: ProxyError | undefined): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.off('data', onData).off('error', onError).off('close', onClose);
      // Without a 'data' listener a flowing socket would drop what arrives before undici (or TLS) reads it.
      socket.pause();
      if (error) {
        socket.destroy();
        reject(error);
      } else resolve(socket);
    };
    const timer = setTimeout(() => finish(new ProxyError(`egress proxy ${proxy.display} did not open a tunnel within ${timeoutMs} ms`)), timeoutMs);
    const onError = (error: NodeJS.ErrnoException): void => {
      finish(new ProxyError(`egress proxy ${proxy.display} unreachable: ${error.code ?? error.message}`, { cause: error }));
    };
    const onClose = (): void => finish(new ProxyError(`egress proxy ${proxy.display} closed the connection before answering CONNECT`));
    const onData = (chunk: Buffer): void => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) {
        if (received.length > MAX_CONNECT_RESPONSE_BYTES) finish(new ProxyError(`egress proxy ${proxy.display} sent an oversized answer to CONNECT`));
        return;
      }
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(received.subarray(0, end).toString('latin1'))?.[1];
      if (status === undefined) {
        finish(new ProxyError(`egress proxy ${proxy.display} did not answer CONNECT with HTTP`));
        return;
      }
      if (!status.startsWith('2')) {
        finish(new ProxyError(`egress proxy ${proxy.display} refused CONNECT: HTTP ${status}`));
        return;
      }
      // Bytes after the answer already belong to the tunnel.
      const rest = received.subarray(end + 4);
      finish(undefined);
      if (rest.length > 0) socket.unshift(rest);
    };
    socket.on('data', onData).on('error', onError).on('close', onClose);
    socket.once('connect', () => {
      const auth = proxy.authorization ? `Proxy-Authorization: ${proxy.authorization}\r\n` : '';
      socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth}\r\n`);
    });
  });
}

export function createTunnelConnector(proxy: EgressProxy, policy: SsrfPolicy, connectTimeoutMs: number, clientTls?: ClientTlsOptions): buildConnector.connector {
  const lookup = guardedLookup(policy);
  // Used only to start TLS over the tunnel (undici's httpSocket), so sessions and ALPN are undici's;
  // the subscriber's client certificate is presented to the receiver, never to the proxy.
  const tls = buildConnector({ timeout: connectTimeoutMs, keepAlive: true, ...tlsOptions(clientTls) });
  return (options, callback) => {
    const hostname = options.hostname.replace(/^\[(.*)\]$/, '$1');
    const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
    resolveChecked(lookup, policy, hostname)
      .then((address) => openTunnel(proxy, `${isIP(address) === 6 ? `[${address}]` : address}:${port}`, connectTimeoutMs))
      .then(
        (tunnel) => {
          tunnel.setNoDelay(true).setKeepAlive(true, 60_000);
          if (options.protocol !== 'https:') {
            callback(null, tunnel);
            return;
          }
          const servername = options.servername ?? (isIP(hostname) === 0 ? hostname : undefined);
          tls({ ...options, ...(servername ? { servername } : {}), httpSocket: tunnel }, (error, socket) => {
            if (error !== null) {
              tunnel.destroy();
              callback(error, null);
            } else callback(null, socket);
          });
        },
        (error: Error) => callback(error, null),
      );
  };
}

// The SSRF guard applied at connect time (DECISIONS §7): DNS answers are checked by the lookup
// the socket itself uses, so a name that re-binds between a check and the connect cannot slip
// through; IP-literal targets (which skip DNS) are checked before connecting; and the connected
// socket's peer address is checked once more before any byte of the request is written.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { buildConnector } from 'undici';
import type { ForbiddenCategory, SsrfPolicy } from '../ssrf/policy.js';

export class SsrfBlockedError extends Error {
  readonly code = 'SSRF_BLOCKED';

  constructor(host: string, category: ForbiddenCategory) {
    super(`refused to connect to ${host}: it is a ${category} address (SSRF guard; see ssrfAllowList)`);
    this.name = 'SsrfBlockedError';
  }
}

export function guardedLookup(policy: SsrfPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      // Forbidden answers are dropped; only allowed addresses are ever handed to connect().
      let refused: ForbiddenCategory = 'unparseable';
      const allowed = addresses.filter((entry) => {
        const verdict = policy.check(entry.address);
        if (!verdict.allowed) refused = verdict.category;
        return verdict.allowed;
      });
      const first = allowed[0];
      if (!first) {
        callback(new SsrfBlockedError(hostname, refused), '', 0);
        return;
      }
      // node's LookupFunction callback type only names the single-address form; with
      // `all: true` (used by happy-eyeballs connects) it expects the array.
      if (options.all) (callback as unknown as (err: null, all: LookupAddress[]) => void)(null, allowed);
      else callback(null, first.address, first.family);
    });
  };
}

/** TLS options of one subscriber (a client certificate for mutual TLS, its own CAs); https targets only. */
export interface ClientTlsOptions {
  cert?: string;
  key?: string;
  ca?: string;
}

export function createGuardedConnector(policy: SsrfPolicy, connectTimeoutMs: number, clientTls?: ClientTlsOptions): buildConnector.connector {
  const base = buildConnector({ lookup: guardedLookup(policy), timeout: connectTimeoutMs, keepAlive: true, ...tlsOptions(clientTls) });
  return (options, callback) => {
    const host = options.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) !== 0) {
      const verdict = policy.check(host);
      if (!verdict.allowed) {
        callback(new SsrfBlockedError(host, verdict.category), null);
        return;
      }
    }
    base(options, (error, socket) => {
      if (error !== null) {
        callback(error, null);
        return;
      }
      const peer = socket.remoteAddress;
      const verdict = peer ? policy.check(peer) : ({ allowed: false, category: 'unparseable' } as const);
      if (!verdict.allowed) {
        socket.destroy();
        callback(new SsrfBlockedError(peer ?? host, verdict.category), null);
        return;
      }
      callback(null, socket);
    });
  };
}

/** What undici passes on to tls.connect; `ca` replaces the public CAs for this connector. */
export function tlsOptions(clientTls: ClientTlsOptions | undefined): { cert?: string; key?: string; ca?: string } {
  if (!clientTls) return {};
  return {
    ...(clientTls.cert !== undefined && clientTls.key !== undefined ? { cert: clientTls.cert, key: clientTls.key } : {}),
    ...(clientTls.ca !== undefined ? { ca: clientTls.ca } : {}),
  };
}

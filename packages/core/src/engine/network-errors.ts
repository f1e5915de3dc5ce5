// Maps the errors of an HTTP attempt (node:net, node:dns, node:tls, undici, our SSRF guard and
// egress proxy tunnel) to a small set of stable classes recorded on the attempt history.

export type NetworkErrorClass =
  | 'TIMEOUT'
  | 'CONNECTION_REFUSED'
  | 'CONNECTION_RESET'
  | 'DNS'
  | 'TLS'
  | 'SSRF_BLOCKED'
  /** The egress proxy failed: unreachable, no answer, CONNECT refused, closed before answering. */
  | 'PROXY'
  | 'INVALID_URL'
  | 'NETWORK'
  /** No access token could be had from the subscriber's OAuth2 token endpoint (engine/oauth2/). */
  | 'OAUTH2'
  /** Cut short by this worker's shutdown (recorded; the row is handed back, not failed). */
  | 'INTERRUPTED';

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT', 'ABORT_ERR']);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED']);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME']);
const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'ERR_TLS_CERT_ALTNAME_INVALID', 'CERT_NOT_YET_VALID', 'EPROTO',
]);

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/** Walks `cause` chains and AggregateErrors (happy-eyeballs connects report one per address). */
function codesOf(error: unknown, seen = new Set<unknown>()): { codes: string[]; names: string[] } {
  const codes: string[] = [];
  const names: string[] = [];
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || seen.has(value)) return;
    seen.add(value);
    const candidate = value as ErrorLike;
    if (typeof candidate.code === 'string') codes.push(candidate.code);
    if (typeof candidate.name === 'string') names.push(candidate.name);
    visit(candidate.cause);
    if (Array.isArray(candidate.errors)) candidate.errors.forEach(visit);
  };
  visit(error);
  return { codes, names };
}

export function classifyNetworkError(error: unknown): NetworkErrorClass {
  const { codes, names } = codesOf(error);
  if (codes.includes('SSRF_BLOCKED')) return 'SSRF_BLOCKED';
  // Before the socket codes: a proxy's ECONNREFUSED is the proxy's failure, not the receiver's.
  if (codes.includes('EGRESS_PROXY')) return 'PROXY';
  if (codes.includes('ERR_INVALID_URL') || codes.includes('INVALID_URL')) return 'INVALID_URL';
  if (names.includes('TimeoutError') || names.includes('AbortError') || codes.some((c) => TIMEOUT_CODES.has(c))) return 'TIMEOUT';
  if (codes.some((c) => DNS_CODES.has(c))) return 'DNS';
  if (codes.some((c) => TLS_CODES.has(c) || c.startsWith('ERR_TLS_') || c.startsWith('ERR_SSL_'))) return 'TLS';
  if (codes.includes('ECONNREFUSED')) return 'CONNECTION_REFUSED';
  if (codes.some((c) => RESET_CODES.has(c))) return 'CONNECTION_RESET';
  return 'NETWORK';
}

/** A message for the attempt history: the error's own text, bounded, without stack. */
export function describeNetworkError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(0, 500);
}

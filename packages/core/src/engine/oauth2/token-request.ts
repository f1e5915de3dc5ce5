// The client credentials grant (RFC 6749 §4.4): the request Herald sends to a subscriber's token
// endpoint, built purely, and sent through the delivery sender, so the token endpoint is held to
// the same SSRF guard, egress proxy and time bound as the target.
import type { HttpSender } from '../http/sender.js';
import { parseTokenAnswer, TOKEN_RESPONSE_MAX_BYTES, type TokenAnswer } from './token-response.js';

export interface TokenClient {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope?: string | undefined;
  audience?: string | undefined;
  clientAuthentication: 'basic' | 'body';
}

/** application/x-www-form-urlencoded, as RFC 6749 Appendix B spells it (space as +). */
const formEncode = (value: string): string => new URLSearchParams({ v: value }).toString().slice(2);

export function buildTokenRequest(client: TokenClient, userAgent: string): { headers: Record<string, string>; body: string } {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (client.scope !== undefined) form.set('scope', client.scope);
  if (client.audience !== undefined) form.set('audience', client.audience);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
    'user-agent': userAgent,
  };
  if (client.clientAuthentication === 'body') {
    form.set('client_id', client.clientId);
    form.set('client_secret', client.clientSecret);
  } else {
    // §2.3.1: the id and secret are form-encoded before they are joined and base64-encoded.
    headers.authorization = `Basic ${Buffer.from(`${formEncode(client.clientId)}:${formEncode(client.clientSecret)}`).toString('base64')}`;
  }
  return { headers, body: form.toString() };
}

export interface TokenRequestOptions {
  sender: HttpSender;
  userAgent: string;
  timeoutMs: number;
  poolKey: string;
  egressProxy?: string | undefined;
  signal?: AbortSignal | undefined;
  now: () => number;
}

/** One token request; a failure is a message naming the endpoint's status or the network class. */
export async function requestToken(client: TokenClient, options: TokenRequestOptions): Promise<TokenAnswer> {
  const { headers, body } = buildTokenRequest(client, options.userAgent);
  const result = await options.sender.send({
    url: client.tokenUrl,
    headers,
    body,
    timeoutMs: options.timeoutMs,
    poolKey: options.poolKey,
    egressProxy: options.egressProxy,
    responseLimitBytes: TOKEN_RESPONSE_MAX_BYTES,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (result.kind === 'error') return { ok: false, message: `the token endpoint could not be reached: ${result.errorClass} (${result.message})` };
  return parseTokenAnswer(result.status, result.responseSnippet, options.now());
}

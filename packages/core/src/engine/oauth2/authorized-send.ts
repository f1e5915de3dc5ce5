// An attempt to a subscriber with OAuth2 credentials: the access token as a Bearer header beside
// the signature; on a 401 the token is dropped, one new token obtained and the request sent once
// more, within the same attempt. The token request and both sends share the attempt's time bound
// (the subscriber's timeoutMs), so the attempt still ends within its lease.
import type { SubscriberOAuth2Document } from '../../storage/documents.js';
import type { HttpSender, OutgoingRequest, SendResult } from '../http/sender.js';
import type { TokenSource } from './token-cache.js';

export interface AuthorizedSendInput {
  sender: HttpSender;
  tokens: TokenSource;
  subscriberId: string;
  oauth2: SubscriberOAuth2Document;
  outgoing: OutgoingRequest;
  now?: () => number;
}

export async function sendWithBearer(input: AuthorizedSendInput): Promise<SendResult> {
  const { sender, tokens, subscriberId, oauth2, outgoing } = input;
  const now = input.now ?? (() => performance.now());
  const started = now();
  const deadline = started + outgoing.timeoutMs;
  const elapsed = (): number => Math.round(now() - started);
  const timedOut = (): SendResult => ({ kind: 'error', errorClass: 'TIMEOUT', message: `no complete answer within ${outgoing.timeoutMs} ms`, durationMs: elapsed() });

  const attempt = async (): Promise<{ result: SendResult; token?: string }> => {
    const remaining = Math.floor(deadline - now());
    if (remaining <= 0) return { result: timedOut() };
    const answer = await tokens.tokenFor(subscriberId, oauth2, { timeoutMs: remaining, egressProxy: outgoing.egressProxy, signal: outgoing.signal });
    if (!answer.ok) return { result: { kind: 'error', errorClass: 'OAUTH2', message: answer.message, durationMs: elapsed() } };
    const left = Math.floor(deadline - now());
    if (left <= 0) return { result: timedOut() };
    const token = answer.token.value;
    const result = await sender.send({ ...outgoing, timeoutMs: left, headers: { ...outgoing.headers, authorization: `Bearer ${token}` } });
    return { result, token };
  };

  const first = await attempt();
  if (first.token === undefined || first.result.kind !== 'response' || first.result.status !== 401) return withDuration(first.result, elapsed());
  tokens.drop(subscriberId, oauth2, first.token);
  return withDuration((await attempt()).result, elapsed());
}

/** The attempt's duration covers the token requests and both sends. */
function withDuration(result: SendResult, durationMs: number): SendResult {
  return { ...result, durationMs };
}

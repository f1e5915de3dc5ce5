// What one attempt's result means for the delivery row (DECISIONS §7):
//  - 2xx → DELIVERED.
//  - 410 Gone → FAILED at once: the receiver said the endpoint is gone for good.
//  - 3xx → failure, the redirect is not followed (a signed body must not be replayed to an
//    address the subscriber did not register); retried per policy in case it is a transient
//    misconfiguration of the receiver.
//  - 429 and 503 → retried; a Retry-After within bounds replaces the backoff delay.
//  - every other 4xx/5xx → retried per policy. Receivers often answer 400/401/404 during their
//    own deploys or secret rotations; giving up on them early would lose events.
//  - network errors (DNS, connect, reset, TLS, timeout, a failing egress proxy) → retried per policy.
//  - SSRF_BLOCKED and INVALID_URL → FAILED at once: the target resolves to an address Herald
//    must not call, retrying cannot change that without a config change.
//  - whatever the class, running out of attempts → FAILED.
import { attemptsExhausted, retryDelayMs, type Random, type RetryPolicy } from './backoff.js';
import type { NetworkErrorClass } from './network-errors.js';
import { clamp, parseRetryAfter } from './retry-after.js';

export type AttemptResult =
  | { kind: 'response'; status: number; retryAfter?: string | undefined }
  | { kind: 'error'; errorClass: NetworkErrorClass };

export type Verdict =
  | { status: 'DELIVERED' }
  | { status: 'PENDING'; delayMs: number; reason: string }
  | { status: 'FAILED'; reason: string };

const TERMINAL_ERROR_CLASSES: ReadonlySet<NetworkErrorClass> = new Set(['SSRF_BLOCKED', 'INVALID_URL']);

export function decide(result: AttemptResult, attemptsMade: number, policy: RetryPolicy, nowMs: number, random?: Random): Verdict {
  if (result.kind === 'response' && result.status >= 200 && result.status < 300) return { status: 'DELIVERED' };

  const reason = result.kind === 'response' ? httpReason(result.status) : result.errorClass;
  if (result.kind === 'response' && result.status === 410) return { status: 'FAILED', reason: `${reason}: the receiver answered 410 Gone` };
  if (result.kind === 'error' && TERMINAL_ERROR_CLASSES.has(result.errorClass)) return { status: 'FAILED', reason };
  if (attemptsExhausted(attemptsMade, policy)) return { status: 'FAILED', reason: `${reason}; gave up after ${attemptsMade} attempts` };

  let delayMs = retryDelayMs(attemptsMade, policy, random);
  if (result.kind === 'response' && (result.status === 429 || result.status === 503)) {
    const requested = parseRetryAfter(result.retryAfter, nowMs);
    if (requested !== undefined) delayMs = clamp(requested, policy.retryAfterMinMs, policy.retryAfterMaxMs);
  }
  return { status: 'PENDING', delayMs, reason };
}

function httpReason(status: number): string {
  if (status >= 300 && status < 400) return `HTTP ${status} (redirect not followed)`;
  return `HTTP ${status}`;
}

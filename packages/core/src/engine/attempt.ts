// One attempt of one delivery, as pure functions: what to send (headers per profile, secrets in
// rotation) and what to write back (the row's new state and its attempt record).
import { buildApiPortalHeaders, buildStandardHeaders, unixSeconds } from '@herald/receiver';
import type { AttemptRecord, DeliveryDocument, SealedSecret, SubscriberDocument } from '../storage/documents.js';
import type { OutgoingRequest, SendResult } from './http/sender.js';
import type { Verdict } from './outcome.js';

export type SigningProfile = 'standard' | 'api-portal';

/**
 * Secrets that sign an attempt: the current one, then (standard profile only, which can carry
 * several signatures) previous ones whose overlap has not expired.
 */
export function signingSecrets(
  subscriber: Pick<SubscriberDocument, 'secret' | 'previousSecrets'>,
  profile: SigningProfile,
  now: Date,
  open: (sealed: SealedSecret) => string,
): string[] {
  const secrets = subscriber.secret ? [open(subscriber.secret)] : [];
  if (profile === 'standard') {
    for (const previous of subscriber.previousSecrets ?? []) {
      if (previous.expiresAt.getTime() > now.getTime()) secrets.push(open(previous.secret));
    }
  }
  return secrets;
}

export function buildOutgoing(input: {
  row: Pick<DeliveryDocument, '_id' | 'eventId' | 'eventType' | 'body' | 'attempts' | 'targetUrl'>;
  subscriber: Pick<SubscriberDocument, 'targetUrl' | 'timeoutMs'>;
  secrets: readonly string[];
  profile: SigningProfile;
  now: Date;
  userAgent: string;
}): OutgoingRequest {
  const { row, subscriber, secrets, profile, userAgent } = input;
  const timestamp = unixSeconds(input.now);
  const headers =
    profile === 'standard'
      ? buildStandardHeaders({ eventId: row.eventId, deliveryId: row._id, attempt: row.attempts + 1, timestamp, body: row.body, secrets, userAgent })
      : buildApiPortalHeaders({ eventType: row.eventType, eventId: row.eventId, deliveryId: row._id, timestamp, body: row.body, secret: secrets[0], userAgent });
  // The subscriber's current URL wins over the one copied at publish time: an edited URL is a fix.
  return { url: subscriber.targetUrl || row.targetUrl, headers, body: row.body, timeoutMs: subscriber.timeoutMs };
}

export function attemptRecord(attempt: number, startedAt: Date, result: SendResult): AttemptRecord {
  if (result.kind === 'response') {
    return {
      attempt,
      startedAt,
      durationMs: result.durationMs,
      httpStatus: result.status,
      errorClass: result.status >= 200 && result.status < 300 ? null : 'HTTP_STATUS',
      errorMessage: result.status >= 200 && result.status < 300 ? null : `HTTP ${result.status}`,
      responseBodySnippet: result.responseSnippet,
    };
  }
  return {
    attempt,
    startedAt,
    durationMs: result.durationMs,
    httpStatus: null,
    errorClass: result.errorClass,
    errorMessage: result.message,
    responseBodySnippet: null,
  };
}

/** The $set of a row after an attempt. The caller conditions the write on still owning the lease. */
export function outcomeFields(input: {
  row: Pick<DeliveryDocument, 'attempts' | 'attemptHistory'>;
  record: AttemptRecord;
  verdict: Verdict;
  now: Date;
  historyLimit: number;
}): Partial<DeliveryDocument> {
  const { row, record, verdict, now } = input;
  const attemptHistory = [...row.attemptHistory, record].slice(-input.historyLimit);
  const common = {
    attempts: row.attempts + 1,
    attemptHistory,
    lastAttemptAt: record.startedAt,
    lastHttpStatus: record.httpStatus,
    leaseOwner: null,
    leaseUntil: null,
    updatedAt: now,
  };
  switch (verdict.status) {
    case 'DELIVERED':
      return { ...common, status: 'DELIVERED', deliveredAt: now, lastError: null, nextAttemptAt: null };
    case 'PENDING':
      return { ...common, status: 'PENDING', lastError: describe(record, verdict.reason), nextAttemptAt: new Date(now.getTime() + verdict.delayMs) };
    case 'FAILED':
      return { ...common, status: 'FAILED', lastError: describe(record, verdict.reason), nextAttemptAt: null };
  }
}

function describe(record: AttemptRecord, reason: string): string {
  if (record.httpStatus !== null) return reason;
  return record.errorMessage ? `${reason}: ${record.errorMessage}` : reason;
}

/** A row whose subscriber was disabled or deleted after publish is cancelled, never sent. */
export function cancelledFields(reason: string, now: Date): Partial<DeliveryDocument> {
  return { status: 'FAILED', lastError: reason, nextAttemptAt: null, leaseOwner: null, leaseUntil: null, updatedAt: now };
}

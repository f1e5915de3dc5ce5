// One attempt of one delivery, as pure functions: what to send (headers per profile, secrets in
// rotation) and what to write back (the row's new state and its attempt record).
import { buildApiPortalHeaders, buildStandardHeaders, unixSeconds } from '@herald/receiver';
import type { KeyObject } from 'node:crypto';
import type { AttemptDocument, AttemptRecord, DeliveryDocument, SubscriberDocument } from '../storage/documents.js';
import type { SigningProfile } from '../shared/signing.js';
import type { KeyCache } from './keys.js';
import type { ClientTlsMaterial, OutgoingRequest, SendResult } from './http/sender.js';
import type { Verdict } from './outcome.js';

/**
 * Keys that sign an attempt: the current secret's, then (standard profile only, which can carry
 * several signatures) previous ones whose overlap has not expired. Sensitive fields are encrypted
 * with the current secret's field key, so what a receiver decrypts with matches what it verifies.
 */
export function attemptKeys(
  subscriber: Pick<SubscriberDocument, 'secret' | 'previousSecrets'>,
  profile: SigningProfile,
  now: Date,
  keys: KeyCache,
): { signing: KeyObject[]; field: KeyObject | undefined } {
  const current = subscriber.secret ? keys.keysOf(subscriber.secret) : undefined;
  const signing = current ? [current.signing] : [];
  if (profile === 'standard') {
    for (const previous of subscriber.previousSecrets ?? []) {
      if (previous.expiresAt.getTime() > now.getTime()) signing.push(keys.keysOf(previous.secret).signing);
    }
  }
  return { signing, field: current?.field };
}

export function buildOutgoing(input: {
  row: Pick<DeliveryDocument, '_id' | 'eventId' | 'eventType' | 'attempts' | 'targetUrl' | 'subscriberId'>;
  subscriber: Pick<SubscriberDocument, 'targetUrl' | 'timeoutMs' | 'egressProxy'>;
  signing: readonly KeyObject[];
  /** The subscriber's TLS client material, opened (client-tls.ts). */
  clientTls?: ClientTlsMaterial | undefined;
  body: string;
  profile: SigningProfile;
  now: Date;
  userAgent: string;
}): OutgoingRequest {
  const { row, subscriber, signing, body, profile, userAgent } = input;
  const timestamp = unixSeconds(input.now);
  const headers =
    profile === 'standard'
      ? buildStandardHeaders({ eventId: row.eventId, deliveryId: row._id, attempt: row.attempts + 1, timestamp, body, secrets: signing, userAgent })
      : buildApiPortalHeaders({ eventType: row.eventType, eventId: row.eventId, deliveryId: row._id, timestamp, body, secret: signing[0], userAgent });
  // The subscriber's current URL wins over the one copied at publish time: an edited URL is a fix.
  return {
    url: subscriber.targetUrl || row.targetUrl,
    headers,
    body,
    timeoutMs: subscriber.timeoutMs,
    poolKey: row.subscriberId,
    egressProxy: subscriber.egressProxy,
    ...(input.clientTls ? { clientTls: input.clientTls } : {}),
  };
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

/** The append-only record of one attempt; its id names the lease, so a repeated write is refused. */
export function attemptDocument(row: Pick<DeliveryDocument, '_id' | 'eventId' | 'subscriberId' | 'orgId' | 'leaseOwner'>, record: AttemptRecord): AttemptDocument {
  return {
    _id: `${row._id}:${row.leaseOwner ?? 'none'}:${record.attempt}`,
    deliveryId: row._id,
    eventId: row.eventId,
    subscriberId: row.subscriberId,
    orgId: row.orgId,
    ...record,
  };
}

/** The $set of a row after an attempt. The caller conditions the write on still owning the lease. */
export function outcomeFields(input: {
  row: Pick<DeliveryDocument, 'attempts'>;
  record: AttemptRecord;
  verdict: Verdict;
  now: Date;
  encryptedFields: string[];
}): Partial<DeliveryDocument> {
  const { row, record, verdict, now } = input;
  const common = {
    attempts: row.attempts + 1,
    encryptedFields: input.encryptedFields,
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

/**
 * An attempt cut short by this worker's shutdown: counted, and handed back due now for another
 * worker (or this one after a restart) to send again.
 */
export function interruptedFields(row: Pick<DeliveryDocument, 'attempts'>, startedAt: Date, now: Date): Partial<DeliveryDocument> {
  return {
    status: 'PENDING',
    attempts: row.attempts + 1,
    nextAttemptAt: now,
    lastAttemptAt: startedAt,
    lastHttpStatus: null,
    lastError: INTERRUPTED_BY_SHUTDOWN,
    leaseOwner: null,
    leaseUntil: null,
    updatedAt: now,
  };
}

/** A claimed row not attempted (its lease ran too short to start safely): back to PENDING, due now. */
export function handedBackFields(now: Date): Partial<DeliveryDocument> {
  return { status: 'PENDING', nextAttemptAt: now, leaseOwner: null, leaseUntil: null, updatedAt: now };
}

export const INTERRUPTED_BY_SHUTDOWN = 'the attempt was interrupted: its worker shut down before an answer came; it will be retried';

/** A row whose subscriber was disabled or deleted after publish is cancelled, never sent. */
export function cancelledFields(reason: string, now: Date): Partial<DeliveryDocument> {
  return { status: 'FAILED', lastError: reason, nextAttemptAt: null, leaseOwner: null, leaseUntil: null, updatedAt: now };
}
